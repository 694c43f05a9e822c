#!/usr/bin/env bash
# store.json's encoder alone (the keyed JSONWriter must not slow it): DocumentCodec.encode
# of a 100,000-item store, plain (36 MB) and annotated (104 MB), timed inside recnotes-encode
# (CPU and wall, fastest and median of RUNS encodes), this build against BEFORE (a
# recnotes-encode built from an earlier commit: git archive it, add bench/encode and its target,
# `swift build -c release --product recnotes-encode`), in turns; then hyperfine runs both
# whole (read, decode, one encode) beside `jq -c .` (a parse and a re-serialisation).
# Each binary also says whether its bytes are the file's own: a store this build wrote,
# re-encoded by the earlier build, must come out the same.
#   BEFORE=/path/to/old/recnotes-encode bench/encode.sh
set -euo pipefail
cd "$(dirname "$0")/.."
after=${AFTER:-$(swift build -c release --show-bin-path)/recnotes-encode}
before=${BEFORE:?set BEFORE to an earlier build of recnotes-encode}
recnotes=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
runs=${RUNS:-15}
out=bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

bench/gen-store 100000 --store "$work/plain"
bench/gen-store 100000 --annotate --store "$work/annotated"
for s in plain annotated; do
  # Written by this build, so that the identity check means something.
  "$recnotes" --store "$work/$s" mkdir /bench-x && "$recnotes" --store "$work/$s" rm /bench-x
  for turn in 1 2 3; do
    echo "$s before: $("$before" "$work/$s/store.json" "$runs")"
    echo "$s after:  $("$after" "$work/$s/store.json" "$runs")"
  done
done | tee "$out/encode.txt"

hyperfine --warmup 2 --runs 15 --export-markdown "$out/encode-100k.md" \
  -n "before: read, decode, encode (100k)" "$before $work/plain/store.json 1" \
  -n "after: read, decode, encode (100k)" "$after $work/plain/store.json 1" \
  -n "jq -c . (100k)" "jq -c . $work/plain/store.json >/dev/null"

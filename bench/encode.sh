#!/usr/bin/env bash
# store.json's encoder alone (the keyed JSONWriter must not slow it): DocumentCodec.encode
# of a 100,000-item store, plain (36 MB) and annotated (104 MB), timed inside recnotes-encode
# (CPU and wall, fastest and median of RUNS encodes), this build against BEFORE (a
# recnotes-encode built from an earlier commit: git archive it, add bench/encode and its target,
# `swift build -c release --product recnotes-encode`), in turns; then hyperfine runs both
# whole (read, decode, one encode) beside `jq -c .` (a parse and a re-serialisation).
# Each binary also says whether its bytes are the file's own: a store this build wrote,
# re-encoded by the earlier build, must come out the same.
# The fastest encode of each store (CPU, over every turn) against BEFORE's, and the whole run
# against jq, go into bench/results/encode.tsv (bench/lib.sh).
#   BEFORE=/path/to/old/recnotes-encode bench/encode.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_AREA="Store commands"
BENCH_HOW="\`recnotes-encode\` (\`DocumentCodec.encode\` alone, thread CPU, \`RUNS\` encodes a turn, three turns each) against BEFORE, an earlier build, in turns; the whole run beside \`jq -c .\` (hyperfine, 15 runs)."
source bench/lib.sh
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
  for _ in 1 2 3; do
    echo "$s before: $("$before" "$work/$s/store.json" "$runs")"
    echo "$s after:  $("$after" "$work/$s/store.json" "$runs")"
  done
done | tee "$out/encode.txt"
# The fastest encode's CPU in milliseconds, of one store and build, over the turns (each turn
# is two lines: "plain before: decode: ..." and "encode: CPU min 130.4 ms, ...").
fastest() {
  awk -v key="$1 $2:" '$1 == "plain" || $1 == "annotated" { turn = $1 " " $2 }
    turn == key && /encode: CPU min / { sub(/^.*encode: CPU min /, ""); ms = $1 + 0; if (best == "" || ms < best) best = ms }
    END { print best }' "$out/encode.txt"
}
for s in plain annotated; do
  label="100k"
  [[ $s == annotated ]] && label="100k annotated"
  what="\`DocumentCodec.encode\`, $label ($(stat -c %s "$work/$s/store.json" | awk '{ printf "%.0f", $1 / 1e6 }') MB), CPU min"
  a=$(fastest "$s" after) b=$(fastest "$s" before)
  bench_row "encode-$s" "$what" "$(bench_ms "$(awk -v t="$a" 'BEGIN { print t / 1000 }')")" \
    "before $(bench_ms "$(awk -v t="$b" 'BEGIN { print t / 1000 }')")" "$(bench_ratio "$a" "$b")" "≈ before"
done

hyperfine --warmup 2 --runs 15 --export-markdown "$out/encode-100k.md" --export-json "$out/encode-100k.json" \
  -n "before: read, decode, encode (100k)" "$before $work/plain/store.json 1" \
  -n "after: read, decode, encode (100k)" "$after $work/plain/store.json 1" \
  -n "jq -c . (100k)" "jq -c . $work/plain/store.json >/dev/null"
whole=$(bench_mean "$out/encode-100k.json" "after: read, decode, encode (100k)")
jq_mean=$(bench_mean "$out/encode-100k.json" "jq -c . (100k)")
bench_row whole "read, decode and one encode, 100k (\`recnotes-encode\`)" "$(bench_ms "$whole")" \
  "\`jq -c .\` $(bench_ms "$jq_mean")" "$(bench_ratio "$whole" "$jq_mean")" "—"
bench_record

#!/usr/bin/env bash
# Mutations at scale (the write path), with hyperfine, each beside its floor in the
# same run: copying store.json and fsyncing the copy (what any atomic rewrite costs).
#   - `mkdir`, `tag`, `mv`, `note --set` on the 10,000-item annotated store
#     (bench/gen-store 10000 --annotate) and on the 100,000-item one (bench/gen-store 100000):
#     target <= 2x the floor.
#   - a loop of 1,000 `tag` commands on the 10k annotated store: target <= 1/4 of the time
#     before splicing. RECNOTES_BEFORE names that build (e.g. main's release build) to run the
#     same loop beside this one.
# Every command makes a real change on every run (its --prepare takes the change back).
# With BEFORE_EACH=1, RECNOTES_BEFORE also runs each mutation with that build (only a build
# that reads the store version this one writes). RUNS (default 15) and LOOP
# (default 1000) make it shorter; SKIP_LOOP=1 leaves the loop out, ONLY_LOOP=1 all
# but the loop. SEARCHED=1 runs a `find`
# on each store first, so that find's index exists (each change through the table then logs
# itself for it, cache/find-items.pending; no find runs between). Results: bench/out/mutate-*.md
# and *.json, and its rows of bench/RESULTS.md (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
before=${RECNOTES_BEFORE:-}
runs=${RUNS:-15}
loop=${LOOP:-1000}
out=$PWD/bench/out${SEARCHED:+/searched}
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-mutate.XXXXXX")
trap 'rm -rf "$work"' EXIT

bench/gen-store 10000 --annotate --store "$work/s10k" >/dev/null
[ -n "${ONLY_LOOP:-}" ] || bench/gen-store 100000 --store "$work/s100k" >/dev/null

# A recording in the root folder, the one tagged and noted.
first_recording='[.items[] | select(.type == "recording" and .parent == "00000000-0000-0000-0000-000000000000")][0].name'
for size in $([ -n "${ONLY_LOOP:-}" ] || echo 10k 100k); do
  store=$work/s$size
  s="$bin --store $store"
  # The first change upgrades the generated (older) version: not what is measured.
  $s mkdir /bench-src
  [ -n "${SEARCHED:-}" ] && $s find / --tag bench-none >/dev/null
  rec=$(jq -r "$first_recording" "$store/store.json")
  runs_of=()
  for b in "$bin" ${BEFORE_EACH:+$before}; do
    [ "$b" = "$bin" ] && label="" || label=", before"
    c="$b --store $store"
    runs_of+=(
      --prepare "$s rm /bench-new 2>/dev/null || true" -n "mkdir ($size$label)" "$c mkdir /bench-new"
      --prepare "$s tag '/$rec' -bench" -n "tag ($size$label)" "$c tag '/$rec' +bench"
      --prepare "$s mv /bench-dst /bench-src 2>/dev/null || true" -n "mv ($size$label)" "$c mv /bench-src /bench-dst"
      --prepare "$s note '/$rec' --set a" -n "note --set ($size$label)" "$c note '/$rec' --set b"
    )
  done
  hyperfine --warmup 3 --runs "$runs" --export-markdown "$out/mutate-$size.md" --export-json "$out/mutate-$size.json" \
    --prepare true -n "cp+fsync ($size)" "cp $store/store.json $work/copy && sync $work/copy" "${runs_of[@]}"
done
if [ -z "${SKIP_LOOP:-}" ]; then

# The loop: the same tag added and taken away, $loop commands in all.
cat >"$work/loop" <<'SH'
#!/bin/sh
# $1 the binary, $2 the store, $3 the recording, $4 the number of commands.
i=0
while [ "$i" -lt "$4" ]; do
  "$1" --store "$2" tag "/$3" +loop >/dev/null
  "$1" --store "$2" tag "/$3" -loop >/dev/null
  i=$((i + 2))
done
SH
chmod +x "$work/loop"
[ -n "${ONLY_LOOP:-}" ] && "$bin" --store "$work/s10k" mkdir /bench-src
rec=$(jq -r "$first_recording" "$work/s10k/store.json")
peers=(-n "tag x$loop (10k)" "$work/loop $bin $work/s10k '$rec' $loop")
# The before build on its own copy of the same generated store: a build older than the
# store version this one writes cannot read this one's.
if [ -n "$before" ]; then
  bench/gen-store 10000 --annotate --store "$work/s10k-before" >/dev/null
  "$before" --store "$work/s10k-before" mkdir /bench-src
  peers+=(-n "tag x$loop (10k), before" "$work/loop $before $work/s10k-before '$rec' $loop")
fi
hyperfine --warmup 0 --runs "${LOOP_RUNS:-2}" --export-markdown "$out/mutate-loop.md" --export-json "$out/mutate-loop.json" \
  "${peers[@]}"
fi

python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def means(name):
    return {r["command"]: r["mean"] for r in json.load(open(f"{out}/{name}.json"))["results"]}
for size in ("10k", "100k"):
    if os.environ.get("ONLY_LOOP"):
        break
    m = means(f"mutate-{size}")
    floor = m[f"cp+fsync ({size})"]
    for k, v in m.items():
        print(f"{k:24s} {v*1000:8.1f} ms  {v/floor:5.2f}x the floor")
import os
loop = means("mutate-loop") if os.path.exists(f"{out}/mutate-loop.json") and os.path.getsize(f"{out}/mutate-loop.json") else {}
for k, v in loop.items():
    print(f"{k:24s} {v:8.2f} s")
if len(loop) == 2:
    a, b = loop.values()
    print(f"loop after / before     = {a/b:.2f}")
PY

for size in $([ -n "${ONLY_LOOP:-}" ] || echo 10k 100k); do
  json=$out/mutate-$size.json
  floor=$(bench_mean "$json" "cp+fsync ($size)")
  [ "$size" = 10k ] && label="10k annotated" || label=$size
  slowest=0
  for command in mkdir tag mv "note --set"; do
    mean=$(bench_mean "$json" "$command ($size)")
    slowest=$(awk -v a="$mean" -v b="$slowest" 'BEGIN { print (a > b ? a : b) }')
    [ -n "${SEARCHED:-}" ] && continue
    bench_row "${command%% *}-$size" "\`$command\`, $label" "$(bench_ms "$mean")" "floor $(bench_ms "$floor")" \
      "$(bench_ratio "$mean" "$floor")" "≤ 2×"
  done
  if [ -n "${SEARCHED:-}" ] && [ "$size" = 10k ]; then
    bench_row searched-10k "slowest mutation, 10k annotated, \`find\`'s index present" "$(bench_ms "$slowest")" \
      "floor $(bench_ms "$floor")" "$(bench_ratio "$slowest" "$floor")" "≤ 2×"
  fi
done
if [ -z "${SKIP_LOOP:-}" ]; then
  # Against a command's cost before the spliced write (measured once, ~150 ms): the goal a quarter.
  each=$(awk -v s="$(bench_mean "$out/mutate-loop.json" "tag x$loop (10k)")" -v n="$loop" 'BEGIN { print s / n }')
  bench_row tag-loop "$loop \`tag\` commands, 10k annotated, per command" "$(bench_ms "$each")" \
    "~150 ms before splicing" "$(awk -v e="$each" 'BEGIN { printf "%.2f", e / 0.150 }')" "≤ 0.25"
fi
bench_record

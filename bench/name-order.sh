#!/usr/bin/env bash
# The natural name order: what it costs to load and list a store, beside the
# binary before it (code-point order) and jq, in the same hyperfine run.
#   - BASE_BIN: a recnotes built from before the change (release); its store is written in
#     its own order (code point) by that revision's bench/gen-store, given as BASE_GEN.
#   - the new binary on a store in the new order, and on one in the old order (what an
#     existing store costs until its first write puts it in order).
# Results: bench/out/name-order-*.md and .json, and its rows of bench/RESULTS.md (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
base=${BASE_BIN:?BASE_BIN: a release recnotes from before the natural order}
base_gen=${BASE_GEN:?BASE_GEN: the gen-store of that revision}
out=bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

for n in 10000 100000; do
  bench/gen-store "$n" --store "$work/new$n"
  "$base_gen" "$n" --store "$work/old$n"
  hyperfine --warmup 3 --runs "${RUNS:-20}" \
    --export-markdown "$out/name-order-$n.md" --export-json "$out/name-order-$n.json" \
    -n "before: ls / (code-point store)" "$base --store $work/old$n ls / >/dev/null" \
    -n "now: ls / (natural store)" "$bin --store $work/new$n ls / >/dev/null" \
    -n "now: ls / (code-point store, re-sorted on load)" "$bin --store $work/old$n ls / >/dev/null" \
    -n "jq '.items|length'" "jq -c '.items|length' $work/new$n/store.json >/dev/null"
done

now=$(bench_mean "$out/name-order-10000.json" "now: ls / (natural store)")
jq=$(bench_mean "$out/name-order-10000.json" "jq '.items|length'")
bench_row ls-10k "\`ls /\`, 10,000 items" "$(bench_ms "$now")" "\`jq .items|length\` $(bench_ms "$jq")" \
  "$(bench_ratio "$now" "$jq")" "≤ 1.0×"
bench_record

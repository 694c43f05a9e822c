#!/usr/bin/env bash
# Folder-command benchmarks, with hyperfine, recnotes beside jq in the same run.
#   - 10,000-item store: mkdir, mv, rm and ls must each take at most 100 ms.
#   - 100,000-item store: `ls` at most 1.0x `jq -c '.items|length'`, and `mkdir` at most
#     1.0x `jq -c . > /dev/null` (a full parse and re-serialisation, as a mutation needs).
# Results: bench/out/*.md and *.json, and its rows of bench/RESULTS.md (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
out=bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

bench/gen-store 10000 --store "$work/s10k"
bench/gen-store 100000 --store "$work/s100k"
s10="$bin --store $work/s10k"
s100="$bin --store $work/s100k"
# Something to move and remove on each run.
$s10 mkdir /bench-src

hyperfine --warmup 3 --runs 30 --export-markdown "$out/folders-10k.md" --export-json "$out/folders-10k.json" \
  --prepare "$s10 rm /bench-new 2>/dev/null || true" -n "mkdir (10k)" "$s10 mkdir /bench-new" \
  --prepare "$s10 mv /bench-dst /bench-src 2>/dev/null || true" -n "mv (10k)" "$s10 mv /bench-src /bench-dst" \
  --prepare "$s10 mkdir -p /bench-gone" -n "rm (10k)" "$s10 rm /bench-gone" \
  --prepare "true" -n "ls (10k)" "$s10 ls / >/dev/null" \
  --prepare "true" -n "jq length (10k)" "jq -c '.items|length' $work/s10k/store.json >/dev/null"

hyperfine --warmup 2 --runs 15 --export-markdown "$out/folders-100k-ls.md" --export-json "$out/folders-100k-ls.json" \
  -n "recnotes ls (100k)" "$s100 ls / >/dev/null" \
  -n "jq '.items|length' (100k)" "jq -c '.items|length' $work/s100k/store.json >/dev/null"

hyperfine --warmup 2 --runs 15 --export-markdown "$out/folders-100k-mkdir.md" --export-json "$out/folders-100k-mkdir.json" \
  --prepare "$s100 rm /bench-new 2>/dev/null || true" -n "recnotes mkdir (100k)" "$s100 mkdir /bench-new" \
  --prepare "true" -n "jq -c . (100k)" "jq -c . $work/s100k/store.json >/dev/null"

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def means(name):
    return {r["command"]: r["mean"] for r in json.load(open(f"{out}/{name}.json"))["results"]}
m10 = means("folders-10k")
for k, v in m10.items():
    print(f"{k:28s} {v*1000:7.1f} ms")
ls = means("folders-100k-ls"); mk = means("folders-100k-mkdir")
jq_len = ls["jq '.items|length' (100k)"]
print(f"ls (100k) / jq length     = {ls['recnotes ls (100k)'] / jq_len:.2f}x")
print(f"mkdir (100k) / jq -c .    = {mk['recnotes mkdir (100k)'] / mk['jq -c . (100k)']:.2f}x")
PY

ls100=$(bench_mean "$out/folders-100k-ls.json" "recnotes ls (100k)")
jqlen=$(bench_mean "$out/folders-100k-ls.json" "jq '.items|length' (100k)")
mk100=$(bench_mean "$out/folders-100k-mkdir.json" "recnotes mkdir (100k)")
jqall=$(bench_mean "$out/folders-100k-mkdir.json" "jq -c . (100k)")
bench_row ls-100k '`ls /`, 100,000 items' "$(bench_ms "$ls100")" "\`jq -c '.items|length'\` $(bench_ms "$jqlen")" \
  "$(bench_ratio "$ls100" "$jqlen")" "≤ 1.0×"
bench_row mkdir-100k '`mkdir`, 100,000 items, whole store' "$(bench_ms "$mk100")" "\`jq -c .\` $(bench_ms "$jqall")" \
  "$(bench_ratio "$mk100" "$jqall")" "≤ 1.0×"
bench_record

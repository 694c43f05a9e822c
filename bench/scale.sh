#!/usr/bin/env bash
# Reads at scale (the read path): `pwd`, `status`, `ls` of a folder of <= 100 items
# and `info` of a recording, side by side with `recnotes --version` in one hyperfine run, on
# the 10,000-item annotated store (target: each <= 1.5x --version) and the 100,000-item store
# (target: <= 2x). The reads' table in cache/ is made by the first read (a warm-up run);
# store.json is older than a second by then, so its identity alone proves the table current.
# RECNOTES_BEFORE names another build to measure the same way beside this one (e.g. main's
# release build: every read parses all of store.json).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
before=${RECNOTES_BEFORE:-}
runs=${RUNS:-20}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench/gen-store 10000 --annotate --store "$work/s10k" >/dev/null 2>&1
bench/gen-store 100000 --store "$work/s100k" >/dev/null 2>&1
# A folder of fewer than 100 items and a recording, of each store (gen-store is seeded).
declare -A folder=([s10k]="/Folder 000002" [s100k]="/Folder 000001")
declare -A recording=([s10k]="/call 003383" [s100k]="/call 057044")
sleep 1.1
for b in "$bin" $before; do
  name=$(basename "$(dirname "$b")")-$(basename "$b")
  for s in s10k s100k; do
    r="$b --store $work/$s"
    $r ls "${folder[$s]}" >/dev/null # the first read makes cache/items-table
    echo "== $b $s: ls ${folder[$s]}: $($r ls "${folder[$s]}" | wc -l) items"
    hyperfine -N --warmup 2 --runs "$runs" -i --export-markdown "$out/scale-$s-$name.md" \
      --export-json "$out/scale-$s-$name.json" \
      -n "recnotes --version" "$b --version" \
      -n "pwd" "$r pwd" \
      -n "status (nothing running)" "$r status" \
      -n "ls folder" "$r ls '${folder[$s]}'" \
      -n "ls -l --json folder" "$r ls -l --json '${folder[$s]}'" \
      -n "info recording" "$r info '${recording[$s]}'"
    if [[ $b == "$bin" ]]; then
      json=$out/scale-$s-$name.json size=${s#s} goal="≤ 1.5×"
      [[ $s == s10k ]] && label="10k annotated" || { label=100k goal="≤ 2×"; }
      version=$(bench_mean "$json" "recnotes --version")
      for spec in "pwd:pwd:\`pwd\`" "ls:ls folder:\`ls\` of a folder" "info:info recording:\`info\` of a recording"; do
        IFS=: read -r id command what <<<"$spec"
        mean=$(bench_mean "$json" "$command")
        bench_row "$id-$size" "$what, $label" "$(bench_ms "$mean")" "\`--version\` $(bench_ms "$version")" \
          "$(bench_ratio "$mean" "$version")" "$goal"
      done
    fi
  done
done
bench_record

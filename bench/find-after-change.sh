#!/usr/bin/env bash
# The first `find` after a change: the 10,000-item annotated store
# (bench/gen-store 10000 --annotate). Each run is prepared by one change of one item made by
# recnotes (a new tag on one recording), then `find / --tag urgent` runs: target <= 100 ms.
# With no cache/ at all (a cold start): target <= 250 ms. Beside them, in the same runs: a
# search with the index current, jq's same filter over store.json, and the change itself.
# RECNOTES_BEFORE names another build to measure beside this one (e.g. main's release build).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
before=${RECNOTES_BEFORE:-}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-find-change.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench/gen-store 10000 --annotate --store "$work/s10k" >/dev/null 2>&1
json=$work/s10k/store.json
cat > "$work/change" <<'SH'
#!/bin/sh
# One change of one item, as a user makes it: a new tag on one recording.
exec "$1" --store "$2" tag "/call 003383" "+t$(date +%s%N)" >/dev/null
SH
chmod +x "$work/change"
jq_tag='.items[] | select((.tags // []) | index("urgent")) | .name'
runs=${RUNS:-15}
for b in "$bin" $before; do
  s="$b --store $work/s10k"
  $s find / --tag urgent >/dev/null # makes the index: from here on the writes keep it
  echo "== $b: hits $($s find / --tag urgent | wc -l) / jq $(jq -r "$jq_tag" "$json" | wc -l)"
  name=$(basename "$(dirname "$b")")-$(basename "$b")
  hyperfine -N --warmup 1 --runs "$runs" --export-markdown "$out/find-after-change-$name.md" \
    --export-json "$out/find-after-change-$name.json" \
    --prepare true --prepare "$work/change $b $work/s10k" --prepare "rm -rf $work/s10k/cache" --prepare true \
    -n "find --tag, index current" "$s find / --tag urgent" \
    -n "find --tag after one change" "$s find / --tag urgent" \
    -n "find --tag, no cache/" "$s find / --tag urgent" \
    -n "the change (tag +t)" "$work/change $b $work/s10k"
done
hyperfine --warmup 1 --runs 5 --export-markdown "$out/find-after-change-jq.md" --export-json "$out/find-after-change-jq.json" \
  -n "jq tag filter (10k)" "jq -r '$jq_tag' $json >/dev/null"

json=$out/find-after-change-$(basename "$(dirname "$bin")")-$(basename "$bin").json
jq=$(jq -r '.results[0].mean' "$out/find-after-change-jq.json")
after=$(bench_mean "$json" "find --tag after one change") cold=$(bench_mean "$json" "find --tag, no cache/")
bench_row after-change "first \`find --tag\` after a change" "$(bench_ms "$after")" "jq $(bench_ms "$jq")" \
  "$(bench_ratio "$after" "$jq")" "≤ 100 ms"
bench_row cold "\`find --tag\` with no \`cache/\`" "$(bench_ms "$cold")" "jq $(bench_ms "$jq")" "$(bench_ratio "$cold" "$jq")" "≤ 250 ms"
bench_record

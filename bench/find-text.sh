#!/usr/bin/env bash
# find --text over transcripts: 10,000 recordings with a 2-minute transcript each
# (bench/gen-store, bench/gen-transcripts). Targets: <= 200 ms, and <= 1.0x `grep -ri` over
# the same text stored as plain files, side by side in one hyperfine run. Two words: one
# that occurs in a few transcripts, one that occurs in none (each tool reads everything).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
out=bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-find-text.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench/gen-store 11111 --store "$work/store" 2>/dev/null
bench/gen-transcripts "$work/store" "$work/plain"
rare=$(awk 'NR==1 {print $5}' "$(ls "$work"/plain/*.txt | head -1)")
s="$bin --store $work/store"
echo "rare word: $rare ($(grep -ril -- "$rare" "$work/plain" | wc -l) files)"
# find answers from its index (cache/), made by the first find after a change; the source
# files must be a second old to be trusted (SourceIdentity), so the store is aged first.
touch -d '-10 seconds' "$work/store/store.json" "$work/store/transcripts"
hyperfine -N --warmup 3 --runs "${RUNS:-20}" -i --export-markdown "$out/find-text.md" --export-json "$out/find-text.json" \
  -n "recnotes find --text $rare" "$s find --text $rare" \
  -n "grep -ri $rare" "grep -ri -- $rare $work/plain" \
  -n "recnotes find --text zzqxj (none)" "$s find --text zzqxj" \
  -n "grep -ri zzqxj (none)" "grep -ri -- zzqxj $work/plain"
# The first find after a change makes the index again: a store.json just replaced (its time
# now, so each run makes it again), and no cache at all (the transcripts' index too).
hyperfine -N --warmup 1 --runs "${COLD_RUNS:-10}" -i --export-markdown "$out/find-text-cold.md" --export-json "$out/find-text-cold.json" \
  --prepare "touch $work/store/store.json" --prepare "rm -rf $work/store/cache" --prepare true \
  -n "find --text $rare, store.json just changed" "$s find --text $rare" \
  -n "find --text $rare, no cache" "$s find --text $rare" \
  -n "grep -ri $rare" "grep -ri -- $rare $work/plain"

json=$out/find-text.json
hits=$(grep -ril -- "$rare" "$work/plain" | wc -l)
for spec in "word-hits:$rare:a word in $hits transcripts" "word-none:zzqxj (none):a word in none"; do
  IFS=: read -r id word what <<<"$spec"
  ours=$(bench_mean "$json" "recnotes find --text $word") grep=$(bench_mean "$json" "grep -ri $word")
  bench_row "$id" "\`find --text\`, $what" "$(bench_ms "$ours")" "\`grep -ri\` $(bench_ms "$grep")" \
    "$(bench_ratio "$ours" "$grep")" "≤ 200 ms, ≤ 1.0×"
done
bench_record

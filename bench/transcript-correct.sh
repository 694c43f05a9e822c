#!/usr/bin/env bash
# Correcting a transcript, with hyperfine: `transcript PATH --replace OLD --with NEW` of one word in an
# hour's transcript (9,000 words in 450 segments, each word with its time, bench/gen-transcripts),
# in a store of 100 recordings, beside the peer a user without recnotes has: sed replacing the
# word in the transcript kept as a text file (no times, no undo, no index). Measured:
#   - the time to save the correction (<= 100 ms);
#   - the words whose times changed, but the one replaced (0).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
runs=${RUNS:-30}
out=$PWD/bench/out
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-correct.XXXXXX")
trap 'rm -rf "$work"' EXIT

bench/gen-store 100 --flat --store "$work/store" >/dev/null
bench/gen-transcripts "$work/store" "$work/plain" --segments 450 >/dev/null
s="$bin --store $work/store"
uuid=$(jq -r '[.items[] | select(.type == "recording")][0].uuid' "$work/store/store.json")
# The recording an hour long, as its transcript (a transcript is kept to its recording's length).
jq --arg u "$uuid" '(.items[] | select(.uuid == $u)) |= (.duration = 3700 | .frames = 3700 * .sampleRate)' \
  "$work/store/store.json" >"$work/store.json" && mv "$work/store.json" "$work/store/store.json"
json=$work/store/transcripts/$uuid.json
plain=$work/plain/$uuid.txt
cp "$plain" "$work/plain.orig"
words=$(jq '[.segments[].words[]] | length' "$json")
# A word said once, in the middle of the hour.
old=$(jq -r '[.segments[].words[].text] | group_by(.) | map(select(length == 1)) | .[length / 2 | floor][0]' "$json")
[[ -n $old && $old != null ]] || { echo "transcript-correct: no word said once" >&2; exit 1; }

jq -c '[.segments[].words[]]' "$json" >"$work/before.json"
$s transcript "@$uuid" --replace "$old" --with Zürich -q
jq -c '[.segments[].words[]]' "$json" >"$work/after.json"
moved=$(jq -n --slurpfile a "$work/before.json" --slurpfile b "$work/after.json" --arg old "$old" \
  '[range(0; $a[0] | length) as $i | select($a[0][$i].text != $old and $a[0][$i] != $b[0][$i])] | length')
echo "words: $words; $old replaced; other words whose times changed: $moved"
$s undo -q

hyperfine --warmup 2 --runs "$runs" --export-json "$out/transcript-correct.json" \
  -n "transcript --replace" --prepare "$s undo -q 2>/dev/null || true" \
  "$s transcript @$uuid --replace $old --with Zürich -q" \
  -n "sed on the text" --prepare "cp $work/plain.orig $plain" \
  "sed -i '0,/\\b$old\\b/s//Zürich/' $plain"
replace=$(bench_mean "$out/transcript-correct.json" "transcript --replace")
sed=$(bench_mean "$out/transcript-correct.json" "sed on the text")
bench_row replace "one word corrected in an hour's transcript ($(bench_thousands "$words") words), saved" \
  "$(bench_ms "$replace")" "sed on its text $(bench_ms "$sed")" "$(bench_ratio "$replace" "$sed")" "≤ 100 ms"
bench_row unchanged-times "words whose times changed after the correction, but the one replaced" "$moved" "—" "—" "0"

BENCH_AREA="Transcription" BENCH_HOW="hyperfine, a store of 100 recordings with an hour's transcript (bench/gen-transcripts --segments 450); \`transcript --replace\` of a word said once, undone before each run, against sed on the same text in a plain file." bench_record

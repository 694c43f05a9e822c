#!/usr/bin/env bash
# Export benchmark, with hyperfine: `recnotes export x - > /dev/null` on a
# 60-minute Opus recording, decoded to WAV on stdout.
#
# The issue's peer is `sox x.opus -t wav -`, but Debian 12's sox cannot read Opus (no opus
# handler, and its sndfile handler rejects the Opus subtype), so the same run holds:
#   - sfdecode (bench/sfdecode.c): libsndfile's own Opus decode to stdout, nothing around it;
#     the floor for recnotes, which decodes with libsndfile too;
#   - sox decoding the same 60 minutes as Ogg Vorbis, beside `recnotes export` of that Vorbis
#     recording: the sox comparison on a codec both read.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-export-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work RECNOTES_HOME=$work/store

cc -O2 -o "$work/sfdecode" bench/sfdecode.c -lsndfile

# 60 minutes of a 440 Hz tone at 48 kHz mono, imported once as Opus and once as Vorbis.
sox -n -r 48000 -c 1 -b 16 -e signed -t wav "$work/long.wav" synth 3600 sine 440 vol 0.5
"$bin" import "$work/long.wav" --name long --format opus
sox "$work/long.wav" "$work/long.ogg"
"$bin" import "$work/long.ogg" --name longvorbis --keep
rm "$work/long.wav"
file() { "$bin" info "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["file"])'; }
opus=$work/store/audio/$(file long)
vorbis=$work/store/audio/$(file longvorbis)
echo "opus: $(stat -c %s "$opus") bytes; vorbis: $(stat -c %s "$vorbis") bytes"

hyperfine --warmup 1 --runs 5 --export-markdown "$out/export.md" --export-json "$out/export.json" \
  -n "recnotes export long - (Opus)" "$bin export long - > /dev/null" \
  -n "sfdecode long.opus (libsndfile floor)" "$work/sfdecode $opus > /dev/null" \
  -n "recnotes export longvorbis - (Vorbis)" "$bin export longvorbis - > /dev/null" \
  -n "sox long.ogg -t wav - (Vorbis)" "sox $vorbis -t wav - > /dev/null"

secs() { awk -v s="$1" 'BEGIN { printf "%.2f s", s }'; }
opus=$(bench_mean "$out/export.json" "recnotes export long - (Opus)")
floor=$(bench_mean "$out/export.json" "sfdecode long.opus (libsndfile floor)")
bench_row opus "\`export\` of Opus to WAV" "$(secs "$opus")" "libsndfile floor $(secs "$floor")" "$(bench_ratio "$opus" "$floor")" "≤ 1.2×"
vorbis=$(bench_mean "$out/export.json" "recnotes export longvorbis - (Vorbis)")
sox=$(bench_mean "$out/export.json" "sox long.ogg -t wav - (Vorbis)")
bench_row vorbis "\`export\` of Vorbis to WAV" "$(secs "$vorbis")" "sox $(secs "$sox")" "$(bench_ratio "$vorbis" "$sox")" "≤ 1.2×"
bench_record

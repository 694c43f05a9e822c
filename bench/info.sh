#!/usr/bin/env bash
# `info` on a 1-hour recording: before, a store without the stored analysis (a
# version-2 store: info decodes the whole file each time, as every info did before version
# 3); after, the same store as version 3, where the import measured levels, waveform and
# speech once. The two stores hold the same audio file; the v2 one is the v3 one with the
# "analysis" field taken out, which is what a version-2 recnotes wrote. Also times the
# import itself, which now includes that one measurement.
#   MINUTES=N  length of the recording (default 60)
# Figures go to bench/out/info.md, and its rows of bench/RESULTS.md (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
minutes=${MINUTES:-60}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-info-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Pink noise with a slow tremolo: levels that move, and speech regions for the detector.
sox -n -r 48000 -c 1 -b 16 "$work/long.wav" synth $((minutes * 60)) pinknoise tremolo 0.2 90 vol 0.3
/usr/bin/time -f "import of $minutes min of WAV as Opus (transcode + analysis): %e s wall, %U s user" \
  env RECNOTES_HOME="$work/v3" "$bin" import "$work/long.wav" --name long 2>&1 | tee "$out/info-import.txt"
cp -r "$work/v3" "$work/v2"
python3 - "$work/v2/store.json" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read().replace('"version": 3', '"version": 2')
text = re.sub(r', "analysis": \{.*?"speech": \[.*?\]\}', '', text)
assert '"analysis"' not in text
open(path, "w").write(text)
PY
hyperfine -N --warmup 1 --runs 5 --export-markdown "$out/info.md" --export-json "$out/info.json" \
  -n "info, no stored analysis (before)" "env RECNOTES_HOME=$work/v2 $bin info long" \
  -n "info, stored analysis (after)" "env RECNOTES_HOME=$work/v3 $bin info long"
wc -c "$work/v2/store.json" "$work/v3/store.json" | tee -a "$out/info-import.txt"

after=$(bench_mean "$out/info.json" "info, stored analysis (after)")
before=$(bench_mean "$out/info.json" "info, no stored analysis (before)")
bench_row info-hour "\`info\` of a 1 h recording, analysis stored" "$(awk -v s="$after" 'BEGIN { printf "%.3f s", s }')" \
  "decoding it, $(awk -v s="$before" 'BEGIN { printf "%.2f s", s }')" \
  "$(awk -v a="$after" -v b="$before" 'BEGIN { printf "~%.0f× faster", b / a }')" "—"
bench_record

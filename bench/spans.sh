#!/usr/bin/env bash
# A seek in an edited recording: an hour of speech-shaped noise as one Opus take, cut 99 times
# (100 spans), a random seek and 0.1 s read through SpanReader, against the same seek and read
# straight from the take's file, in turns (recnotes-spans, medians of SEEKS seeks). Target:
# at most 1.2x.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
bin=${SPANS_BIN:-$(swift build -c release --show-bin-path)/recnotes-spans}
seeks=${SEEKS:-300}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

sox -n -r 48000 -c 1 -b 16 "$work/hour.wav" synth 3600 pinknoise tremolo 3 80 gain -12
opusenc --quiet --bitrate 32 "$work/hour.wav" "$work/hour.opus"
rm "$work/hour.wav"
"$bin" "$work/hour.opus" "$seeks" | tee "$work/out"
spans=$(awk '$1 == "spans" { print $2 / 1000 }' "$work/out")
take=$(awk '$1 == "take" { print $2 / 1000 }' "$work/out")
bench_row seek "seek and 0.1 s read in a 60-minute Opus recording of 100 spans, median" "$(bench_ms "$spans" 2)" \
  "one take $(bench_ms "$take" 2)" "$(bench_ratio "$spans" "$take")" "≤ 1.2×"

BENCH_AREA="Audio" BENCH_HOW="recnotes-spans: an hour of noise as one Opus take (opusenc, 32 kb/s), cut 99 times; $seeks random seeks each reading 4,800 frames, through SpanReader and straight from the file, in turns." bench_record

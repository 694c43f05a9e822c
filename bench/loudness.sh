#!/usr/bin/env bash
# What the loudness (EBU R128, libebur128) adds to an import's analysis: the same
# import of BENCH_SECONDS (default 60) of speech as 48 kHz WAV, with the loudness meter and
# without it (RECNOTES_EBUR128 naming a library that is not there: the rest of the analysis is
# the same, in the same pass), side by side in one hyperfine run; stored as WAV (a copy: the
# analysis is most of the time) and as Opus (the default: the encoder is most of it). ffmpeg's
# ebur128 filter, the same measurement by another implementation, times the meter alone.
# Then `export --level -16` (the gain and the true-peak limiter) of the same audio, stored as
# FLAC, to WAV, beside the plain export to WAV, in one hyperfine run.
# Run with the release build (`swift build -c release`), not niced.
set -euo pipefail
cd "$(dirname "$0")/.."
data=/usr/share/pocketsphinx/test/data/librivox
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
seconds=${BENCH_SECONDS:-60}
channels=${BENCH_CHANNELS:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-loudness.XXXXXX")
trap 'rm -rf "$work"' EXIT
export RECNOTES_HOME=$work/store

ls "$data"/*.wav | head -5 > "$work/list"
sox $(cat "$work/list") "$work/round.wav"
round=$(soxi -D "$work/round.wav")
repeats=$(/usr/bin/python3 -c "import math; print(max(0, math.ceil($seconds / $round) - 1))")
sox "$work/round.wav" -r 48000 -c "$channels" -b 16 "$work/speech.wav" repeat "$repeats" trim 0 "$seconds"
echo "== input: $(soxi -d "$work/speech.wav"), $(soxi -r "$work/speech.wav") Hz, $channels channel(s)"
# What each measures, once: the stored loudness beside ffmpeg's.
"$bin" import "$work/speech.wav" --name once --format wav > /dev/null
"$bin" info once | grep -E '^(level|loudness):'
ffmpeg -nostats -nostdin -i "$work/speech.wav" -af ebur128=peak=true -f null - 2>&1 | sed -n '/Summary:/,$p' | grep -E 'I:|LRA:|Peak:'

without="env RECNOTES_EBUR128=$work/none.so"
hyperfine --warmup 1 --runs "${BENCH_RUNS:-10}" --prepare "rm -rf $work/store" \
  --command-name "import --format wav, with loudness" "$bin import $work/speech.wav --name s --format wav" \
  --command-name "import --format wav, without" "$without $bin import $work/speech.wav --name s --format wav" \
  --command-name "import (opus), with loudness" "$bin import $work/speech.wav --name s" \
  --command-name "import (opus), without" "$without $bin import $work/speech.wav --name s" \
  --command-name "ffmpeg ebur128=peak=true" "ffmpeg -nostats -nostdin -i $work/speech.wav -af ebur128=peak=true -f null -" \
  --export-markdown "$work/table.md"
cat "$work/table.md"

"$bin" import "$work/speech.wav" --name stored --format flac > /dev/null
hyperfine --warmup 1 --runs "${BENCH_RUNS:-10}" \
  --command-name "export --level -16 to wav" "$bin export stored $work/levelled.wav --level -16 --force" \
  --command-name "export to wav" "$bin export stored $work/plain.wav --force" \
  --export-markdown "$work/export.md"
cat "$work/export.md"

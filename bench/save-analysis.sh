#!/usr/bin/env bash
# Analysis must not slow saving: what saving (the audio and its analysis: levels,
# waveform, speech, loudness) costs beside tools that only save, side by side in one
# hyperfine run each:
#   - import of BENCH_SECONDS (default 60) of speech (pocketsphinx-testdata's LibriVox
#     sentences repeated), 48 kHz mono WAV, to Opus (the default) beside `opusenc` on the
#     same file (target <= 1.1x), and to WAV (`--format wav`) beside `cp` then `sync`;
#   - `record --format wav` of BENCH_RECORD_SECONDS (default 600) on ALSA's file device
#     beside `arecord`, and `arecord` then `sync` (recnotes syncs before the store names it).
# RECNOTES_BEFORE names a second recnotes binary (a build from before the change) that runs
# in the same hyperfine runs, so before and after share the machine's load. Then user and
# system CPU by /usr/bin/time, BENCH_CPU_ROUNDS (3) rounds, the commands alternating.
# The Opus import's wall time beside opusenc goes into bench/results/save-analysis.tsv
# (bench/lib.sh).
# Run with the release build (`swift build -c release`), not niced.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
data=/usr/share/pocketsphinx/test/data/librivox
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
before=${RECNOTES_BEFORE:-}
seconds=${BENCH_SECONDS:-60}
recordSeconds=${BENCH_RECORD_SECONDS:-600}
runs=${BENCH_RUNS:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-save-analysis.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work RECNOTES_HOME=$work/store
command -v opusenc > /dev/null || { echo "opusenc is missing: apt-get install opus-tools" >&2; exit 1; }
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

ls "$data"/*.wav | head -5 > "$work/list"
sox $(cat "$work/list") "$work/round.wav"
round=$(soxi -D "$work/round.wav")
repeats=$(/usr/bin/python3 -c "import math; print(max(0, math.ceil($seconds / $round) - 1))")
sox "$work/round.wav" -r 48000 -c 1 -b 16 "$work/speech.wav" repeat "$repeats" trim 0 "$seconds"
echo "== input: $(soxi -d "$work/speech.wav"), 48 kHz mono"

# One command line per binary: after (and before, when given).
import_commands=(--command-name "recnotes import (opus)" "$bin import $work/speech.wav --name s")
wav_commands=(--command-name "recnotes import --format wav" "$bin import $work/speech.wav --name s --format wav")
if [[ -n "$before" ]]; then
  import_commands+=(--command-name "before: recnotes import (opus)" "$before import $work/speech.wav --name s")
  wav_commands+=(--command-name "before: recnotes import --format wav" "$before import $work/speech.wav --name s --format wav")
fi
hyperfine --warmup 1 --runs "$runs" --prepare "rm -rf $work/store $work/out.opus $work/copy.wav" \
  "${import_commands[@]}" \
  --command-name "opusenc" "opusenc --quiet $work/speech.wav $work/out.opus" \
  "${wav_commands[@]}" \
  --command-name "cp, then sync" "cp $work/speech.wav $work/copy.wav && sync $work/copy.wav" \
  --export-markdown "$work/import.md" --export-json "$work/import.json"
cat "$work/import.md"
ours=$(bench_mean "$work/import.json" "recnotes import (opus)")
opusenc=$(bench_mean "$work/import.json" "opusenc")
bench_row import "\`import\` $seconds s to Opus, wall" "$(bench_ms "$ours" 0)" "opusenc $(bench_ms "$opusenc" 0)" \
  "$(bench_ratio "$ours" "$opusenc")" "≤ 1.1×"

bench_file_device "$work/in.raw"
# Speech again, as the device's input, for as long as the recording.
repeats=$(/usr/bin/python3 -c "import math; print(max(0, math.ceil($recordSeconds / $round) - 1))")
sox "$work/round.wav" -r 48000 -c 1 -b 16 -e signed -t raw "$work/in.raw" repeat "$repeats" trim 0 "$recordSeconds"
record_commands=(--command-name "recnotes record --format wav" "$bin record r --duration $recordSeconds --format wav --progress none")
if [[ -n "$before" ]]; then
  record_commands+=(--command-name "before: recnotes record --format wav" "$before record r --duration $recordSeconds --format wav --progress none")
fi
hyperfine --warmup 1 --runs "$runs" --prepare "rm -rf $work/store $work/arecord.wav" \
  "${record_commands[@]}" \
  --command-name "arecord" "arecord -q -D default -f S16_LE -r 48000 -c 1 -d $recordSeconds $work/arecord.wav" \
  --command-name "arecord, then sync" "arecord -q -D default -f S16_LE -r 48000 -c 1 -d $recordSeconds $work/arecord.wav && sync $work/arecord.wav" \
  --export-markdown "$work/record.md"
cat "$work/record.md"

# CPU: user and system seconds, each command once a round, in turn.
cpu() {
  local name=$1
  shift
  rm -rf "$work/store" "$work/out.opus" "$work/arecord.wav"
  /usr/bin/time -f "$name: %U user %S sys %e wall" "$@" > /dev/null 2>> "$work/cpu.txt"
}
: > "$work/cpu.txt"
for _ in $(seq "${BENCH_CPU_ROUNDS:-3}"); do
  cpu "import (opus)" "$bin" import "$work/speech.wav" --name s
  [[ -n "$before" ]] && cpu "before: import (opus)" "$before" import "$work/speech.wav" --name s
  cpu "opusenc" opusenc --quiet "$work/speech.wav" "$work/out.opus"
  cpu "record wav" "$bin" record r --duration "$recordSeconds" --format wav --progress none
  [[ -n "$before" ]] && cpu "before: record wav" "$before" record r --duration "$recordSeconds" --format wav --progress none
  cpu "arecord" arecord -q -D default -f S16_LE -r 48000 -c 1 -d "$recordSeconds" "$work/arecord.wav"
done
sort "$work/cpu.txt"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_record

#!/usr/bin/env bash
# Audio benchmarks, with hyperfine, recnotes beside sox and arecord in the same run.
# All of them go through ALSA's file-plugin devices (a test-only ~/.asoundrc in a temporary
# HOME), which run faster than real time:
#   - seek: `play --seek` to the last second of a 60-minute Opus recording vs playing its first
#     second (target <= 1.2x), with sox doing the same with `trim` in the same run. Debian 12's
#     sox cannot read Opus (no opus handler; its sndfile handler rejects the Opus subtype), so
#     sox trims a FLAC copy of the same audio, and recnotes is timed on that FLAC copy too;
#   - throughput: recording 10 minutes of input to FLAC vs `sox -t alsa` (target <= 1.0x), and to
#     WAV vs `arecord` (target <= 1.0x). recnotes fsyncs the finished file before the store names
#     it (a recording must survive a power cut); sox and arecord do not, so each also runs
#     followed by `sync FILE`, the same guarantee.
# The real-time PulseAudio measurement is bench/realtime.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-audio-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work RECNOTES_HOME=$work/store
bench_file_device "$work/in.raw"

# 60 minutes of a 440 Hz tone, 48 kHz mono s16, captured once into a 60-minute Opus recording.
sox -n -r 48000 -c 1 -b 16 -e signed -t raw "$work/in.raw" synth 3600 sine 440 vol 0.5
"$bin" mkdir /bench
"$bin" record /bench/long --duration 60:00 --format opus --progress none
long=$("$bin" info /bench/long --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["file"])')
sox -t raw -r 48000 -c 1 -b 16 -e signed "$work/in.raw" "$work/long.flac"
"$bin" import "$work/long.flac" --to /bench --name longflac --keep 2>/dev/null ||
  "$bin" record /bench/longflac --duration 60:00 --format flac --progress none
echo "60-minute recording: $("$bin" info /bench/long | grep -E 'duration|size' | tr -s ' ' | tr '\n' ' ')"

hyperfine --warmup 3 --runs 15 --export-markdown "$out/seek.md" --export-json "$out/seek.json" \
  -n "recnotes play --until 1 (first second)" "$bin play /bench/long --from-start --until 1 --progress none" \
  -n "recnotes play --seek -1s (last second)" "$bin play /bench/long --seek -1s --progress none" \
  -n "recnotes play --seek -1s (last second, FLAC)" "$bin play /bench/longflac --seek -1s --progress none" \
  -n "sox trim 0 1 (first second, FLAC)" "sox -q $work/long.flac -t alsa default trim 0 1" \
  -n "sox trim 59:59 (last second, FLAC)" "sox -q $work/long.flac -t alsa default trim 59:59"

# 10 minutes of input for the throughput runs.
sox -n -r 48000 -c 1 -b 16 -e signed -t raw "$work/in.raw" synth 600 sine 440 vol 0.5
hyperfine --warmup 1 --runs 8 --export-markdown "$out/record-flac.md" --export-json "$out/record-flac.json" \
  --prepare "$bin rm --permanent /bench/flac 2>/dev/null || true" \
  -n "recnotes record --format flac (10 min)" "$bin record /bench/flac --duration 10:00 --format flac --progress none" \
  --prepare "rm -f $work/sox.flac" \
  -n "sox -t alsa ... out.flac (10 min)" "sox -q -t alsa default -r 48000 -c 1 -b 16 $work/sox.flac trim 0 600" \
  --prepare "rm -f $work/sox.flac" \
  -n "sox, then sync out.flac (10 min)" "sox -q -t alsa default -r 48000 -c 1 -b 16 $work/sox.flac trim 0 600 && sync $work/sox.flac"

hyperfine --warmup 1 --runs 8 --export-markdown "$out/record-wav.md" --export-json "$out/record-wav.json" \
  --prepare "$bin rm --permanent /bench/wav 2>/dev/null || true" \
  -n "recnotes record --format wav (10 min)" "$bin record /bench/wav --duration 10:00 --format wav --progress none" \
  --prepare "rm -f $work/arecord.wav" \
  -n "arecord (10 min)" "arecord -q -D default -f S16_LE -r 48000 -c 1 -d 600 $work/arecord.wav" \
  --prepare "rm -f $work/arecord.wav" \
  -n "arecord, then sync the file (10 min)" "arecord -q -D default -f S16_LE -r 48000 -c 1 -d 600 $work/arecord.wav && sync $work/arecord.wav"

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def means(name):
    return {r["command"]: r["mean"] for r in json.load(open(f"{out}/{name}.json"))["results"]}
s = means("seek")
k = list(s)
print(f"seek: last/first second = {s[k[1]] / s[k[0]]:.2f}x (recnotes, Opus), {s[k[4]] / s[k[3]]:.2f}x (sox, FLAC); "
      f"recnotes/sox for the last second of the FLAC = {s[k[2]] / s[k[4]]:.2f}x")
f = means("record-flac"); k = list(f)
print(f"record flac: recnotes/sox = {f[k[0]] / f[k[1]]:.2f}x; recnotes/(sox + sync) = {f[k[0]] / f[k[2]]:.2f}x")
w = means("record-wav"); k = list(w)
print(f"record wav: recnotes/arecord = {w[k[0]] / w[k[1]]:.2f}x; recnotes/(arecord + sync) = {w[k[0]] / w[k[2]]:.2f}x")
PY

first=$(bench_mean "$out/seek.json" "recnotes play --until 1 (first second)")
last=$(bench_mean "$out/seek.json" "recnotes play --seek -1s (last second)")
bench_row seek-last "last second against first (Opus), a one-second play" "—" "—" "$(bench_ratio "$last" "$first")" "≤ 1.2×"
flac=$(bench_mean "$out/record-flac.json" "recnotes record --format flac (10 min)")
sox=$(bench_mean "$out/record-flac.json" "sox, then sync out.flac (10 min)")
bench_row record-flac "record to FLAC" "$(bench_ms "$flac")" "sox $(bench_ms "$sox") (with sync)" "$(bench_ratio "$flac" "$sox")" "≤ 1.0×"
wav=$(bench_mean "$out/record-wav.json" "recnotes record --format wav (10 min)")
arecord=$(bench_mean "$out/record-wav.json" "arecord, then sync the file (10 min)")
bench_row record-wav "record to WAV (57 MB)" "$(bench_ms "$wav")" "arecord $(bench_ms "$arecord") (with sync)" \
  "$(bench_ratio "$wav" "$arecord")" "≤ 1.0×"
bench_record

#!/usr/bin/env bash
# Speed with the pitch kept: recnotes' SoundTouch beside sox's `tempo`.
#  1. Intelligibility at 1.5x: pocketsphinx-testdata's five LibriVox sentences (16 kHz), each
#     imported into a store and written at 1.5x by `recnotes export --speed 1.5` (SoundTouch at
#     its own settings), beside `sox in out tempo 1.5` and SoundTouch's own command with the
#     settings recnotes could take instead (`soundstretch -tempo=50`: the same defaults;
#     `-quick`: quick seek; `-speech`: sequence 40 ms, seek window 15 ms, overlap 8 ms); each
#     transcribed by pocketsphinx_continuous, word error rate against the reference
#     (bench/wer.awk), and the clips at 1x for the floor.
#  2. Time: `export --speed 1.5` of a long recording (BENCH_MINUTES, default 60, of the clips
#     repeated, 16 kHz mono FLAC) to WAV, beside `sox in out tempo 1.5` and the plain export
#     at 1x (hyperfine).
#  3. Real-time CPU: `play --speed 1.5` of 30 s of the clips (20 s of playback) on a PulseAudio
#     null sink (a user-space server, bench/pulse.sh; ALSA's pulse plugin), beside
#     `sox in.flac -t pulseaudio bench tempo 1.5` and `play` at 1x for 20 s; CPU = user + sys
#     under /usr/bin/time. Skipped with BENCH_PULSE=0 (and 1. with BENCH_WER=0).
# The WER of 1. (recnotes and sox), the CPU of 2. (user + system, hyperfine) and the median of
# 3.'s three runs go into bench/results/speed.tsv (bench/lib.sh).
# Run with the release build (`swift build -c release --static-swift-stdlib`), not niced.
set -euo pipefail
cd "$(dirname "$0")/.."
data=/usr/share/pocketsphinx/test/data/librivox
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
minutes=${BENCH_MINUTES:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-speed.XXXXXX")
pulse=""
cleanup() {
  [[ -n $pulse ]] && kill "$pulse" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export RECNOTES_HOME=$work/store
source bench/lib.sh

if [[ ${BENCH_WER:-1} != 0 ]]; then
while read -r id; do
  "$bin" import "$data/$id.wav" --name "$id" --format flac
  cp "$data/$id.wav" "$work/$id-1x.wav"
  "$bin" export "$id" "$work/$id-recnotes.wav" --speed 1.5
  sox "$data/$id.wav" "$work/$id-sox.wav" tempo 1.5
  soundstretch "$data/$id.wav" "$work/$id-st.wav" -tempo=50 >/dev/null 2>&1
  soundstretch "$data/$id.wav" "$work/$id-st-quick.wav" -tempo=50 -quick >/dev/null 2>&1
  soundstretch "$data/$id.wav" "$work/$id-st-speech.wav" -tempo=50 -speech >/dev/null 2>&1
done < "$data/fileids"
for variant in 1x recnotes sox st st-quick st-speech; do
  : > "$work/pairs"
  while read -r id; do
    grep "($id)" "$data/transcription" | sed -e 's/([^)]*)$//' -e 's/<\/*s>//g' | bench_words >> "$work/pairs"
    pocketsphinx_continuous -infile "$work/$id-$variant.wav" -logfn /dev/null | tr '\n' ' ' | bench_words >> "$work/pairs"
    echo >> "$work/pairs"
  done < "$data/fileids"
  sed -i '/^$/d' "$work/pairs"
  awk -f bench/wer.awk "$work/pairs" | tail -1 > "$work/wer-$variant"
  echo "== WER at 1.5x, $variant: $(cat "$work/wer-$variant")"
done
# "WER 40.8% (29 errors / 71 words)": the rate as "40.8", and the words.
wer() { awk '{ sub(/%$/, "", $2); print $2 }' "$work/wer-$1"; }
words=$(awk '{ print $6 }' "$work/wer-recnotes")
bench_row wer "WER of speech at 1.5× ($words words)" "$(wer recnotes) %" "sox $(wer sox) %" \
  "$(awk -v a="$(wer recnotes)" -v b="$(wer sox)" 'BEGIN { printf "%.1f×", a / b }')" "≤ sox"
fi

# The long file: the clips, over and over, to BENCH_MINUTES.
ls "$data"/*.wav | head -5 > "$work/list"
sox $(cat "$work/list") "$work/round.wav"
round=$(soxi -D "$work/round.wav")
repeats=$(/usr/bin/python3 -c "import math; print(max(0, math.ceil($minutes * 60 / $round) - 1))")
sox "$work/round.wav" "$work/long.flac" repeat "$repeats" trim 0 "$((minutes * 60))"
# Stored as FLAC, as sox reads it: the store's default (Opus) would time Opus's decoder.
"$bin" import "$work/long.flac" --name long --format flac
hyperfine --warmup 1 --runs "${BENCH_RUNS:-3}" --export-json "$work/export.json" \
  --command-name "recnotes export --speed 1.5" "$bin export long $work/out-st.wav --speed 1.5 --force" \
  --command-name "sox tempo 1.5" "sox $work/long.flac $work/out-sox.wav tempo 1.5" \
  --command-name "recnotes export (1x)" "$bin export long $work/out-1x.wav --force"
ours=$(bench_cpu "$work/export.json" "recnotes export --speed 1.5")
theirs=$(bench_cpu "$work/export.json" "sox tempo 1.5")
bench_row export "\`export --speed 1.5\`, CPU" "$(bench_s "$ours")" "sox $(bench_s "$theirs")" "$(bench_ratio "$ours" "$theirs")" "≤ 1.5×"

if [[ ${BENCH_PULSE:-1} != 0 ]]; then
# 30 s of the clips (48 kHz, as the sink), played at 1.5x: 20 s in real time.
sox "$work/round.wav" -r 48000 "$work/short.flac" repeat 3 trim 0 30
"$bin" import "$work/short.flac" --name short --format flac
source bench/pulse.sh
start_pulse speed
cat > "$HOME/.asoundrc" <<ASOUND
pcm.bench { type pulse device "bench" server "unix:$socket" }
ASOUND
cpu() { awk '{ printf "%.3f s CPU (user %.2f, sys %.2f), %.1f s wall", $1 + $2, $1, $2, $3 }' "$1"; }
: > "$work/play.cpu"; : > "$work/sox.cpu"
for run in 1 2 3; do
  /usr/bin/time -f "%U %S %e" -o "$work/play.time" "$bin" play short --device bench --speed 1.5 > /dev/null
  /usr/bin/time -f "%U %S %e" -o "$work/sox.time" \
    env PULSE_SERVER="unix:$socket" sox -q "$work/short.flac" -t pulseaudio bench tempo 1.5
  /usr/bin/time -f "%U %S %e" -o "$work/play1.time" "$bin" play short --device bench --until 20 > /dev/null
  echo "== real time, run $run: recnotes play --speed 1.5: $(cpu "$work/play.time");" \
    "sox -t pulseaudio tempo 1.5: $(cpu "$work/sox.time"); recnotes play at 1x for 20 s: $(cpu "$work/play1.time")"
  awk '{ print $1 + $2 }' "$work/play.time" >> "$work/play.cpu"
  awk '{ print $1 + $2 }' "$work/sox.time" >> "$work/sox.cpu"
done
median() { sort -n "$1" | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
ours=$(median "$work/play.cpu") theirs=$(median "$work/sox.cpu")
bench_row play "\`play --speed 1.5\`, CPU" "$(bench_s "$ours")" "sox $(bench_s "$theirs")" \
  "$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.1f×", a / b }')" "≤ 2×"
fi
bench_record

#!/usr/bin/env bash
# Speed with the pitch kept (issue 25).
#  1. Intelligibility at 1.5x: pocketsphinx-testdata's five LibriVox sentences (16 kHz), each
#     imported into a store and written at 1.5x by `recnotes export --speed 1.5` (Rubber Band
#     R3, the default, and R2 with RECNOTES_STRETCH_ENGINE=faster), beside `sox in out tempo
#     1.5` and SoundTouch's `soundstretch in out -tempo=50`; each transcribed by
#     pocketsphinx_continuous, word error rate against the reference (bench/wer.awk), and the
#     clips at 1x for the floor.
#  2. Time: `export --speed 1.5` of a long recording (BENCH_MINUTES, default 60, of the
#     clips repeated, 16 kHz mono FLAC) to WAV, beside `sox in out tempo 1.5` (hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
data=/usr/share/pocketsphinx/test/data/librivox
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
minutes=${BENCH_MINUTES:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-speed.XXXXXX")
trap 'rm -rf "$work"' EXIT
export RECNOTES_HOME=$work/store
normalize() { tr 'A-Z' 'a-z' | sed -e 's/([0-9]*)//g' -e 's/[^a-z '"'"']/ /g' | tr -s ' ' | sed -e 's/^ //' -e 's/ $//'; }

while read -r id; do
  "$bin" import "$data/$id.wav" --name "$id" --format flac
  cp "$data/$id.wav" "$work/$id-1x.wav"
  "$bin" export "$id" "$work/$id-r3.wav" --speed 1.5
  RECNOTES_STRETCH_ENGINE=faster "$bin" export "$id" "$work/$id-r2.wav" --speed 1.5
  sox "$data/$id.wav" "$work/$id-sox.wav" tempo 1.5
  soundstretch "$data/$id.wav" "$work/$id-soundtouch.wav" -tempo=50 >/dev/null 2>&1
done < "$data/fileids"
for variant in 1x r3 r2 sox soundtouch; do
  : > "$work/pairs"
  while read -r id; do
    grep "($id)" "$data/transcription" | sed -e 's/([^)]*)$//' -e 's/<\/*s>//g' | normalize >> "$work/pairs"
    pocketsphinx_continuous -infile "$work/$id-$variant.wav" -logfn /dev/null | tr '\n' ' ' | normalize >> "$work/pairs"
    echo >> "$work/pairs"
  done < "$data/fileids"
  sed -i '/^$/d' "$work/pairs"
  echo "== WER at 1.5x, $variant: $(awk -f bench/wer.awk "$work/pairs" | tail -1)"
done

# The long file: the clips, over and over, to BENCH_MINUTES.
ls "$data"/*.wav | head -5 > "$work/list"
sox $(cat "$work/list") "$work/round.wav"
round=$(soxi -D "$work/round.wav")
repeats=$(/usr/bin/python3 -c "import math; print(max(0, math.ceil($minutes * 60 / $round) - 1))")
sox "$work/round.wav" "$work/long.flac" repeat "$repeats" trim 0 "$((minutes * 60))"
sox "$work/long.flac" "$work/long.wav"  # soundstretch reads WAV only
"$bin" import "$work/long.flac" --name long
hyperfine --warmup 1 --runs "${BENCH_RUNS:-3}" \
  --command-name "recnotes export --speed 1.5 (R3)" "$bin export long $work/out-r3.wav --speed 1.5 --force" \
  --command-name "recnotes export --speed 1.5 (R2)" "RECNOTES_STRETCH_ENGINE=faster $bin export long $work/out-r2.wav --speed 1.5 --force" \
  --command-name "sox tempo 1.5" "sox $work/long.flac $work/out-sox.wav tempo 1.5" \
  --command-name "soundstretch -tempo=50" "soundstretch $work/long.wav $work/out-st.wav -tempo=50"

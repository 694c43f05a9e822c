#!/usr/bin/env bash
# Noise reduction: recnotes' --denoise (speexdsp's preprocessor) beside sox noisered.
#  1. Each of pocketsphinx-testdata's five LibriVox sentences, resampled to 48 kHz, a second of
#     silence before and after it, mixed with white noise 20 dB below the sentence's RMS (sox's
#     whitenoise, repeatable: -R); imported (FLAC) and written by `recnotes export --denoise`,
#     beside `sox noisy.wav -n noiseprof p; sox noisy.wav out.wav noisered p 0.21`. Measured:
#     the floor (RMS of the silences, 0.1 s in from their edges) against the noisy one's, the
#     sentence's RMS against the clean one's, and the word error rate of the built-in engine
#     (RecCore's PocketSphinxEngine, through the bench-only `recnotes-transcribe`, at 16 kHz as it
#     decodes) against the reference (bench/wer.awk), on the clean sentence (unpadded), noisy,
#     denoised and noisered.
#  2. CPU: `play --denoise` beside plain `play` of the five noisy sentences in a row (35 s,
#     48 kHz) on ALSA's file plugin (to a null slave: as fast as it goes, so the time is the
#     work), in one hyperfine run.
# Run with the release build (`swift build -c release --static-swift-stdlib`); BENCH_CPU=0 skips
# 2. (then run it niced), BENCH_FIGURES=0 skips the figures and WER of 1. (2. is timed: not niced).
# $TRANSCRIBE_BIN names a built recnotes-transcribe (the word error rate needs no release build).
# The floor, the speech level and the WER of `--denoise` go into bench/results/denoise.tsv
# (bench/lib.sh); 2. prints its table only.
set -euo pipefail
cd "$(dirname "$0")/.."
data=/usr/share/pocketsphinx/test/data/librivox
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
transcribe=${TRANSCRIBE_BIN:-}
if [[ -z $transcribe && ${BENCH_FIGURES:-1} != 0 ]]; then
  swift build -c release --product recnotes-transcribe >/dev/null
  transcribe=$(swift build -c release --show-bin-path)/recnotes-transcribe
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-denoise.XXXXXX")
trap 'rm -rf "$work"' EXIT
export RECNOTES_HOME=$work/store
source bench/lib.sh
rms() { sox "$1" -n ${2:+trim "$2" "$3"} stat 2>&1 | awk '/^RMS +amplitude/ { print $3 }'; }
db() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", 20 * log(a / b) / log(10) }'; }

sox -n -r 48000 -c 1 -b 16 "$work/silence.wav" trim 0 1
: > "$work/figures"
while read -r id; do
  sox -R "$data/$id.wav" -r 48000 -b 16 "$work/sentence.wav"
  length=$(soxi -D "$work/sentence.wav")
  # Transcribed as it is: a second of digital silence before it throws PocketSphinx off
  # (bench/leading-silence.sh measures it); the noisy ones have noise there.
  cp "$work/sentence.wav" "$work/$id-sentence.wav"
  sox "$work/silence.wav" "$work/sentence.wav" "$work/silence.wav" "$work/$id-clean.wav"
  total=$(soxi -D "$work/$id-clean.wav")
  # Uniform white noise: RMS = vol / sqrt(3).
  vol=$(awk -v r="$(rms "$work/sentence.wav")" 'BEGIN { printf "%.6f", r / 10 * sqrt(3) }')
  sox -R -n -r 48000 -c 1 -b 16 "$work/noise.wav" synth "$total" whitenoise vol "$vol"
  # -R (here and for the resampled sentence): the dither repeatable too, so that every run
  # scores the same noisy audio (an LSB of dither moved the noisy WER by 0.06 between runs).
  sox -R -m -v 1 "$work/$id-clean.wav" -v 1 "$work/noise.wav" -b 16 "$work/$id-noisy.wav"
  "$bin" import "$work/$id-noisy.wav" --name "$id" --format flac
  [[ ${BENCH_FIGURES:-1} == 0 ]] && continue
  "$bin" export "$id" "$work/$id-denoised.wav" --denoise
  sox "$work/$id-noisy.wav" -n noiseprof "$work/profile" 2>/dev/null
  sox "$work/$id-noisy.wav" "$work/$id-noisered.wav" noisered "$work/profile" 0.21
  tail=$(awk -v t="$total" 'BEGIN { print t - 0.9 }')
  for variant in noisy denoised noisered; do
    f=$work/$id-$variant.wav
    floor=$(awk -v a="$(rms "$f" 0.1 0.8)" -v b="$(rms "$f" "$tail" 0.8)" 'BEGIN { print sqrt((a * a + b * b) / 2) }')
    echo "$id $variant $floor $(rms "$f" 1 "$length") $(rms "$work/$id-clean.wav" 1 "$length")" >> "$work/figures"
  done
done < "$data/fileids"
if [[ ${BENCH_FIGURES:-1} != 0 ]]; then
# Per variant: the floor's drop from the noisy one's and the speech against clean, each the
# mean over the five sentences of its dB figure.
awk '
  $2 == "noisy" { floor[$1] = $3 }
  { drop[$2] += 20 * log(floor[$1] / $3) / log(10); speech[$2] += 20 * log($4 / $5) / log(10); n[$2]++ }
  END { for (v in n) printf "== %s: floor %.1f dB lower, speech %+.2f dB from clean\n", v, drop[v] / n[v], speech[v] / n[v] }
' "$work/figures" | tee "$work/levels"
# The row's minus is the typographic one, as the table's other figures.
read -r floor speech < <(awk '$2 == "denoised:" { sub(/\.$/, "", $8); print $4, $8 }' "$work/levels")
bench_row floor "noise floor lowered" "$floor dB" "—" "—" "≥ 10 dB"
bench_row speech "speech level against the clean" "${speech/-/−} dB" "—" "—" "within 1 dB"

for variant in sentence noisy denoised noisered; do
  : > "$work/pairs"
  while read -r id; do
    grep "($id)" "$data/transcription" | sed -e 's/([^)]*)$//' -e 's/<\/*s>//g' | bench_words >> "$work/pairs"
    "$transcribe" "$work/$id-$variant.wav" | tr '\n' ' ' | bench_words >> "$work/pairs"
    echo >> "$work/pairs"
  done < "$data/fileids"
  sed -i '/^$/d' "$work/pairs"
  echo "== WER, $variant:"
  awk -f bench/wer.awk "$work/pairs" | tee "$work/wer-$variant"
done
# errors / words, as "0.535", and denoised against noisy.
wer() { awk '/^WER/ { gsub(/\(/, ""); printf "%.3f", $3 / $6 }' "$work/wer-$1"; }
bench_row wer "WER noisy → denoised" "$(wer denoised)" "noisy $(wer noisy)" \
  "$(awk -v a="$(wer denoised)" -v b="$(wer noisy)" 'BEGIN { printf "%.2f", a / b }')" "≤ noisy"
fi
if [[ ${BENCH_CPU:-1} != 0 ]]; then

# CPU: the five noisy sentences in a row, played on the file plugin.
sox $(sed "s|.*|$work/&-noisy.wav|" "$data/fileids") "$work/all.wav"
"$bin" import "$work/all.wav" --name all --format flac
export HOME=$work
cat > "$work/.asoundrc" <<ASOUND
pcm.!default { type file slave.pcm null file "/dev/null" format "raw" }
ASOUND
hyperfine --warmup 1 --runs "${BENCH_RUNS:-10}" \
  --command-name "recnotes play --denoise" "$bin play all --denoise --speed 1" \
  --command-name "recnotes play" "$bin play all --speed 1"
fi
bench_record

#!/usr/bin/env bash
# Transcripts after leading silence: each of pocketsphinx-testdata's five LibriVox
# sentences (16 kHz) alone, and after 3 s of digital silence or of a quiet room (white noise at
# about -63 dBFS RMS), imported into a store and transcribed by recnotes' built-in engine,
# beside pocketsphinx_continuous on the same files. Word error rate against the reference
# transcription (bench/wer.awk), and how far the padded transcript's first word moved against
# the clip alone (target: the padding, 3 s, within 0.1 s).
set -euo pipefail
cd "$(dirname "$0")/.."
data=/usr/share/pocketsphinx/test/data/librivox
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-leading.XXXXXX")
trap 'rm -rf "$work"' EXIT
export RECNOTES_HOME=$work/store
unset RECNOTES_TRANSCRIBER
source bench/lib.sh
sox -n -r 16000 -c 1 -b 16 "$work/silence.wav" trim 0 3
sox -n -r 16000 -c 1 -b 16 "$work/room.wav" synth 3 whitenoise vol 0.00122
while read -r id; do
  cp "$data/$id.wav" "$work/$id-none.wav"
  sox "$work/silence.wav" "$data/$id.wav" "$work/$id-silence.wav"
  sox "$work/room.wav" "$data/$id.wav" "$work/$id-room.wav"
  for pad in none silence room; do "$bin" import "$work/$id-$pad.wav" --name "$id-$pad" --format flac; done
done < "$data/fileids"
"$bin" transcribe --all --engine pocketsphinx --progress none
first() { "$bin" transcript "$1" --format json | /usr/bin/python3 -c '
import json, sys
words = [w for s in json.load(sys.stdin)["segments"] for w in s.get("words", [])]
print(words[0]["start"] if words else "nan")'; }
declare -A wer
for pad in none silence room; do
  for engine in recnotes pocketsphinx_continuous; do
    : > "$work/pairs"
    shifts=""
    while read -r id; do
      grep "($id)" "$data/transcription" | sed -e 's/([^)]*)$//' -e 's/<\/*s>//g' | bench_words >> "$work/pairs"
      if [[ $engine == recnotes ]]; then
        "$bin" transcript "$id-$pad" | tr '\n' ' ' | bench_words >> "$work/pairs"
        [[ $pad != none ]] && shifts+=" $(/usr/bin/python3 -c "print(round($(first "$id-$pad") - $(first "$id-none"), 3))")"
      else
        pocketsphinx_continuous -infile "$work/$id-$pad.wav" -logfn /dev/null | tr '\n' ' ' | bench_words >> "$work/pairs"
      fi
      echo >> "$work/pairs"
    done < "$data/fileids"
    sed -i '/^$/d' "$work/pairs"
    result=$(awk -f bench/wer.awk "$work/pairs" | tail -1)
    echo "== padding: $pad, $engine: $result${shifts:+; first word moved by:$shifts s}"
    wer[$pad-$engine]=$(echo "$result" | sed -E 's/^WER ([0-9.]+)%.*/\1 %/')
  done
done
for pad in silence room; do
  [[ $pad == silence ]] && what="WER after 3 s of digital silence" || what="WER after 3 s of a quiet room"
  bench_row "$pad" "$what" "${wer[$pad-recnotes]}" "pocketsphinx_continuous ${wer[$pad-pocketsphinx_continuous]}" "—" \
    "as the clip alone (${wer[none-recnotes]})"
done
bench_record

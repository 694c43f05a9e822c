#!/usr/bin/env bash
# Real-time capture under load: record MINUTES (default 5) on a PulseAudio device
# (a user-space server with a null sink, recorded from its monitor through ALSA's pulse plugin)
# while a CPU hog saturates every core; then the same with arecord. Reports xruns and ring-buffer
# overruns (from recnotes' own NDJSON "finished" event; arecord prints "overrun!!!") and the CPU
# seconds each spends per minute of audio.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
seconds=$(( ${MINUTES:-5} * 60 ))
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-realtime.XXXXXX")
hogs=()
pulse=""
cleanup() {
  for pid in "${hogs[@]}" $pulse; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
source bench/pulse.sh
start_pulse realtime
cat > "$HOME/.asoundrc" <<ASOUND
pcm.monitor { type pulse device "bench.monitor" server "unix:$socket" }
ASOUND

for _ in $(seq "$(nproc)"); do sha256sum /dev/zero >/dev/null & hogs+=($!); done
echo "realtime: recording ${seconds}s with $(nproc) CPU hogs running"

/usr/bin/time -f "%U %S" -o "$work/recnotes.time" \
  "$bin" record /load --device monitor --format "${FORMAT:-wav}" --duration "$seconds" --progress json > "$work/events.ndjson"
/usr/bin/time -f "%U %S" -o "$work/arecord.time" \
  arecord -D monitor -f S16_LE -r 48000 -c 1 -d "$seconds" "$work/arecord.wav" 2> "$work/arecord.err" || true

python3 - "$work" "$seconds" "$bench_rows" <<'PY'
import json, sys
work, seconds = sys.argv[1], int(sys.argv[2])
finished = [json.loads(l) for l in open(f"{work}/events.ndjson") if '"finished"' in l][-1]
def cpu(name):
    u, s = map(float, open(f"{work}/{name}.time").read().split()[-2:])
    return (u + s) / (seconds / 60)
overruns = open(f"{work}/arecord.err").read().count("overrun")
print(f"recnotes: {finished.get('seconds')} s recorded, xruns {finished.get('xruns')}, "
      f"ring overruns {finished.get('overruns')}, {cpu('recnotes'):.3f} CPU s per minute of audio")
print(f"arecord:  xruns {overruns}, {cpu('arecord'):.3f} CPU s per minute of audio")
with open(sys.argv[3], "a") as rows:
    rows.write(f"xruns\txruns and ring overruns under load\t{finished.get('xruns', 0) + finished.get('overruns', 0)}"
               f"\tarecord {overruns}\t—\t0\n")
PY
bench_record

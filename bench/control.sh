#!/usr/bin/env bash
# Remote-control response time: how soon a `pause`/`resume` sent from another
# process shows in the running recorder's or player's NDJSON stream. A background recording
# (from a PulseAudio monitor) and a background playback (into its null sink) run on a real-time
# device; ROUNDS (default 20) toggles are sent to each. For every toggle, the time just before
# the command is started (date +%s.%N) is compared with the "time" of the paused/resumed event
# the running process wrote in its log: process start-up, lock, inotify and the audio loop all
# count. hyperfine then times the whole `recnotes toggle` command, which returns only once the
# running process has acknowledged (so it includes the acknowledgement's round trip).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
rounds=${ROUNDS:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-control.XXXXXX")
pulse=""
cleanup() {
  "$bin" stop >/dev/null 2>&1 || true
  "$bin" stop >/dev/null 2>&1 || true
  [[ -n $pulse ]] && kill "$pulse" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
source bench/pulse.sh
start_pulse control
cat > "$HOME/.asoundrc" <<ASOUND
pcm.monitor { type pulse device "bench.monitor" server "unix:$socket" }
pcm.sink { type pulse device "bench" server "unix:$socket" }
ASOUND

# One round: note the time, toggle, find the event that answered it.
measure() {  # label log
  local label=$1 log=$2 out=$work/$1.samples
  : > "$out"
  for _ in $(seq "$rounds"); do
    local before count
    count=$(grep -cE '"event": "(paused|resumed)"' "$log" || true)
    before=$(date +%s.%N)
    "$bin" toggle >/dev/null
    # The toggle returned after the acknowledgement, so the event is in the log by now.
    python3 - "$log" "$count" "$before" >> "$out" <<'PY'
import json, sys
log, count, before = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
events = [json.loads(l) for l in open(log) if '"paused"' in l or '"resumed"' in l]
print(f"{(events[count]['time'] - before) * 1000:.1f}")
PY
    sleep 0.2
  done
  python3 - "$label" "$out" <<'PY'
import statistics, sys
label, values = sys.argv[1], sorted(float(v) for v in open(sys.argv[2]))
p95 = values[max(0, round(0.95 * len(values)) - 1)]
print(f"{label}: command start -> event, n={len(values)}: median {statistics.median(values):.1f} ms, "
      f"p95 {p95:.1f} ms, max {values[-1]:.1f} ms")
PY
  local p95
  p95=$(sort -n "$out" | awk '{ v[NR] = $1 } END { i = int(0.95 * NR + 0.5); if (i < 1) i = 1; print v[i] }')
  [ "$label" = recording ] && bench_row record "toggle of a background recording, p95" "$p95 ms" "—" "—" "≤ 100 ms"
  [ "$label" = playback ] && bench_row play "toggle of a background playback, p95" "$p95 ms" "—" "—" "≤ 100 ms"
  return 0
}

"$bin" record /bench-rec --device monitor --format wav --background --progress json --log "$work/rec.log" >/dev/null
sleep 1
measure recording "$work/rec.log"
hyperfine -N --warmup 2 --runs "$rounds" --export-markdown "$work/rec.md" "$bin toggle" >/dev/null
echo "recording: whole 'recnotes toggle' (returns after the acknowledgement):"; tail -n 1 "$work/rec.md"
"$bin" stop >/dev/null

python3 - "$work/src.wav" <<'PY'
import math, struct, sys, wave
with wave.open(sys.argv[1], "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(48000)
    w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / 48000))) for i in range(48000 * 120)))
PY
"$bin" import "$work/src.wav" --name bench-src --format wav >/dev/null
"$bin" play /bench-src --device sink --background --progress json --log "$work/play.log" >/dev/null
sleep 1
measure playback "$work/play.log"
hyperfine -N --warmup 2 --runs "$rounds" --export-markdown "$work/play.md" "$bin toggle" >/dev/null
echo "playback: whole 'recnotes toggle' (returns after the acknowledgement):"; tail -n 1 "$work/play.md"
"$bin" stop >/dev/null
bench_record

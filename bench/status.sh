#!/usr/bin/env bash
# `status` between the running job's reports: a background playback runs on a
# real-time PulseAudio null sink; `status --json` is read READINGS (default 20) times, about
# 0.3 s apart. Each step compares how far the reported position moved with how much wall time
# passed between the two readings (date +%s.%N just before each). The player writes its
# position about once a second, so without carrying it forward most steps read 0.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
readings=${READINGS:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-status.XXXXXX")
pulse=""
cleanup() {
  "$bin" stop >/dev/null 2>&1 || true
  [[ -n $pulse ]] && kill "$pulse" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
source bench/pulse.sh
start_pulse status
cat > "$HOME/.asoundrc" <<ASOUND
pcm.sink { type pulse device "bench" server "unix:$socket" }
ASOUND
sox -n -r 48000 -c 1 -b 16 "$work/tone.wav" synth 30 sine 440 vol 0.3
"$bin" import "$work/tone.wav" --name tone >/dev/null
"$bin" play tone --device sink --background >/dev/null
sleep 1.5
: > "$work/readings"
for _ in $(seq "$readings"); do
  t=$(date +%s.%N)
  p=$("$bin" status --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["playing"]["position"])')
  echo "$t $p" >> "$work/readings"
  sleep 0.3
done
"$bin" pause >/dev/null
a=$("$bin" status --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["playing"]["position"])')
sleep 1
b=$("$bin" status --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["playing"]["position"])')
/usr/bin/python3 - "$work/readings" "$a" "$b" "$bench_rows" <<'PY'
import sys, statistics
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
errors = [ (p2 - p1) - (t2 - t1) for (t1, p1), (t2, p2) in zip(rows, rows[1:]) ]
steps = [ p2 - p1 for (_, p1), (_, p2) in zip(rows, rows[1:]) ]
print(f"steps: {len(steps)}; wall between readings: median {statistics.median([t2-t1 for (t1,_),(t2,_) in zip(rows,rows[1:])]):.3f} s")
print(f"position step minus wall step: median {statistics.median(errors):+.3f} s, "
      f"max |error| {max(abs(e) for e in errors):.3f} s, steps of 0: {sum(1 for s in steps if s == 0)}")
print(f"paused: {sys.argv[2]} then {sys.argv[3]} one second later")
with open(sys.argv[4], "a") as out:
    out.write(f"steps\t`status` position between reports: step − wall time, max\t"
              f"{max(abs(e) for e in errors):.3f} s\t—\t—\t0.3 ± 0.1 s steps\n")
PY
bench_record

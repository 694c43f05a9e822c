#!/usr/bin/env bash
# `recnotes speed` against `recnotes seek`: both are remote commands that return
# once the running player has applied them. A paused background playback of a 20 s recording
# on a file device (the ALSA file plugin into a null sink, as the tests use) takes them; each
# hyperfine command makes two real changes (1.5 then 2, or 1 s then 2 s), so every run is a
# change, not a repeat. `speed` also opens the Rubber Band library in the command itself
# (it refuses before sending without it), which `seek` does not.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
runs=${RUNS:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-speedctl.XXXXXX")
export HOME=$work RECNOTES_HOME=$work/store
cleanup() {
  "$bin" stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
python3 - "$work/in.raw" <<'PY'
import math, struct, sys
open(sys.argv[1], "wb").write(b"".join(
    struct.pack("<h", int(math.sin(2 * math.pi * 440 * i / 48000) * 16000)) for i in range(20 * 48000)))
PY
bench_file_device "$work/in.raw"
"$bin" record tone --format wav --duration 20 >/dev/null 2>&1
"$bin" play tone --paused --background >/dev/null
mkdir -p bench/out
hyperfine -N --warmup 2 --runs "$runs" --export-markdown bench/out/speed-control.md --export-json bench/out/speed-control.json \
  -n "recnotes speed 1.5; speed 2" "bash -c '$bin speed 1.5 >/dev/null && $bin speed 2 >/dev/null'" \
  -n "recnotes seek 1; seek 2 (peer)" "bash -c '$bin seek 1 >/dev/null && $bin seek 2 >/dev/null'"

speed=$(bench_mean bench/out/speed-control.json "recnotes speed 1.5; speed 2")
seek=$(bench_mean bench/out/speed-control.json "recnotes seek 1; seek 2 (peer)")
bench_row speed "\`speed 1.5 && speed 2\`" "$(bench_ms "$speed")" "\`seek\` pair $(bench_ms "$seek")" "$(bench_ratio "$speed" "$seek")" "—"
bench_record

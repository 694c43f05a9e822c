#!/usr/bin/env bash
# Recording in the served page, from the server's side: a client that sends what the page
# sends (16-bit mono at 48 kHz, a chunk a second, POST /api/recording-audio at its byte
# offset), as fast as the server answers, for a 60 s recording. Measured in one run:
#   - the server's CPU (utime + stime from /proc, in ticks of 10 ms) per second of audio
#     received, its encoding at the stop included, against the same 60 s sent whole as a WAV
#     to POST /api/upload (the import the page had before); target <= 0.05 s;
#   - from the stop request to the recording in `recnotes ls` (wall), against `recnotes
#     import` of the same audio as a WAV; target <= 2 s.
#   bench/page-record.sh [BIN_DIR]
# BIN_DIR holds recnotes and recnotes-serve (default: the release build, .build/release).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-$here/../.build/release}" && pwd)
cd "$here/.."
source bench/lib.sh
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
export HOME=$work TZ=UTC NO_COLOR=1
store=$work/store
"$bin/recnotes" --store "$store" mkdir /Phone >/dev/null
# 60 s of speech-like noise: what the samples are does not change what the server does.
sox -n -r 48000 -c 1 -b 16 "$work/take.wav" synth 60 pinknoise tremolo 3 80 2>/dev/null
port=$((20000 + RANDOM % 20000))
"$bin/recnotes-serve" --store "$store" --listen "127.0.0.1:$port" >"$work/url" 2>"$work/serve.err" &
server=$!
pids+=("$server")
for _ in $(seq 100); do [[ -s $work/url ]] && break; sleep 0.05; done
base=$(head -1 "$work/url")
base=${base%/}

# The page's client, in Python's standard library: prints the server's CPU seconds for the
# chunks, the seconds from the stop request to its answer, then the same for /api/upload.
/usr/bin/python3 - "$base" "$server" "$work/take.wav" "$bin/recnotes" "$store" <<'PY' >"$work/figures"
import json, subprocess, sys, time, urllib.request, uuid, wave
base, pid, take, recnotes, store = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
ticks = 100  # os.sysconf("SC_CLK_TCK") on Linux
def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks
token = json.load(urllib.request.urlopen(base + "/api/session"))["writeToken"]
def post(route, query, body=b""):
    request = urllib.request.Request(f"{base}/api/{route}?{query}", data=body, method="POST",
                                     headers={"X-Recnotes-Token": token})
    return json.load(urllib.request.urlopen(request))
with wave.open(take) as w:
    samples = w.readframes(w.getnframes())
second = 48000 * 2
id = str(uuid.uuid4())
before = cpu()
post("recording-start", f"id={id}&path=/Phone&rate=48000&channels=1")
for offset in range(0, len(samples), second):
    post("recording-audio", f"id={id}&offset={offset}", samples[offset:offset + second])
started = time.monotonic()
post("recording-stop", f"id={id}&frames={len(samples) // 2}&name=from+the+page")
stopped = time.monotonic() - started
# The chunks and the stop, which encodes the samples and measures them, as the upload does.
chunks = cpu() - before
listed = subprocess.run([recnotes, "--store", store, "ls", "/Phone"], capture_output=True, text=True).stdout
assert "from the page" in listed, listed
whole = open(take, "rb").read()
before = cpu()
post("upload", "path=/Phone&name=uploaded", whole)
upload = cpu() - before
print(chunks, stopped, upload)
PY
read -r chunks stopped upload <"$work/figures"
started=$(date +%s.%N)
"$bin/recnotes" --store "$store" import "$work/take.wav" --to /Phone --name imported -q
imported=$(awk -v a="$(date +%s.%N)" -v b="$started" 'BEGIN { printf "%.3f", a - b }')
per_second=$(awk -v c="$chunks" 'BEGIN { printf "%.4f", c / 60 }')
upload_per_second=$(awk -v c="$upload" 'BEGIN { printf "%.4f", c / 60 }')
echo "server CPU for 60 s sent in chunks and saved: $chunks s ($per_second s per second of audio); sent whole to /api/upload: $upload s"
echo "stop to saved: $stopped s; recnotes import of the same WAV: $imported s"
bench_row page-cpu "server CPU per second of audio, sent as the page sends it (1 s chunks) and saved" "$(bench_s "$per_second" 4)" \
  "/api/upload whole $(bench_s "$upload_per_second" 4)" "$(bench_ratio "$per_second" "$upload_per_second")" "≤ 0.05 s"
bench_row page-stop "a 60 s recording from the page: Stop to saved (loopback)" "$(bench_s "$stopped")" \
  "\`import\` $(bench_s "$imported")" "$(bench_ratio "$stopped" "$imported")" "≤ 2 s"
BENCH_AREA="Serve" BENCH_HOW="A client sending what the page sends (48 kHz mono, 1 s chunks at byte offsets) to a release recnotes-serve on loopback, 60 s of audio; server CPU from /proc, against the same audio sent whole to /api/upload; Stop to saved against \`recnotes import\` of the WAV." bench_record

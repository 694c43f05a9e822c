#!/usr/bin/env bash
# `recnotes serve` under a slow-client attack: ATTACKERS connections that send one header byte
# a second (never finishing their header), while a normal client asks GET /api/ls five times.
#   bench/serve-slowloris.sh [BIN_DIR] [ATTACKERS]
# BIN_DIR holds recnotes and recnotes-serve (default: the debug build, .build/debug);
# ATTACKERS defaults to 1100. Run once with the descriptor limit as it is and once under
# `ulimit -n 1024`. Each run prints, per normal request, its HTTP status and time (curl's
# --max-time 5: 000 is a time-out), and how many attack connections the server closed.
# The answers within a second under `ulimit -n 1024` go into bench/results/serve-slowloris.tsv
# (bench/lib.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-$here/../.build/debug}" && pwd)
attackers=${2:-1100}
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
export HOME=$work TZ=UTC NO_COLOR=1
store=$work/store
"$bin/recnotes" --store "$store" mkdir /Work >/dev/null
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"

run() { # $1: label, $2: descriptor limit for the server ("" for as it is)
  local port=$((20000 + RANDOM % 20000))
  ( [[ -n "$2" ]] && ulimit -n "$2"
    exec "$bin/recnotes-serve" --store "$store" --listen "127.0.0.1:$port" ) >"$work/url" 2>"$work/err" &
  local serve=$!
  pids+=($serve)
  for _ in $(seq 100); do [[ -s "$work/url" ]] && break; sleep 0.1; done
  echo "== $1: server's limit $(awk '/Max open files/ {print $4}' /proc/$serve/limits), $attackers attackers"
  python3 - "$port" "$attackers" >"$work/attack" <<'PY' &
import socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
import resource
resource.setrlimit(resource.RLIMIT_NOFILE, (count + 200, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
socks, closed = [], 0
def connect():
    s = socket.socket(); s.settimeout(5)
    try:
        s.connect(("127.0.0.1", port)); s.setblocking(False); return s
    except OSError:
        s.close(); return None
for _ in range(count):
    s = connect()
    if s: socks.append(s)
end = time.time() + 25
while time.time() < end:
    for i, s in enumerate(socks):
        try:
            s.send(b"G")
        except OSError:
            closed += 1; s.close(); socks[i] = connect() or s
    time.sleep(1)
print(f"attack connections closed by the server: {closed}, open at the end: {len(socks)}")
PY
  local attack=$!
  pids+=($attack)
  sleep 8 # the attack in place
  : >"$work/requests"
  for n in 1 2 3 4 5; do
    curl -s -o /dev/null --max-time 5 -w "request $n: %{http_code} in %{time_total} s\n" "http://127.0.0.1:$port/api/ls?path=/Work" | tee -a "$work/requests" || true
    sleep 1
  done
  # Answered: a 200 within a second.
  answered=$(awk '$3 == "200" && $5 < 1 { n++ } END { print n + 0 }' "$work/requests")
  echo "answered within 1 s: $answered of 5"
  wait "$attack" || true
  cat "$work/attack"
  kill "$serve"; wait "$serve" || true
}
run "descriptor limit as it is" ""
run "ulimit -n 1024" 1024
bench_row answers "answers within 1 s, \`ulimit -n 1024\`" "$answered of 5" "—" "—" "5 of 5"
bench_record

#!/usr/bin/env bash
# `recnotes serve`'s page: what a browser waits for, and the server under load.
#   bench/serve.sh [BIN_DIR] [SECONDS]
# BIN_DIR holds recnotes and recnotes-serve (default: the release build, .build/release);
# SECONDS is each wrk run's length (default 30).
#  1. First byte of a 10,000-item folder's page: the static shell (GET /) beside the JSON it
#     then asks for (GET /api/ls on that folder) and `recnotes ls --json` as a command, in one
#     hyperfine run (curl's own start-up is in every curl row alike).
#  2. wrk on loopback, SECONDS each: /api/ls of that folder; a Range request (64 KiB from the
#     middle) of a recording's audio; the page's script (from memory: the server's floor); and,
#     when nginx is installed (Debian's nginx-light), nginx serving the same file with the same
#     Range as the peer. Errors must be zero.
#  3. /api/find against `recnotes find --json` as a command, the same search (hyperfine -N).
# Load and the machine's state go to stdout with the figures; bench/out keeps the details. The
# shell's median first byte, the audio's requests/s against nginx's and /api/find against the
# command go into bench/results/serve.tsv (bench/lib.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-$here/../.build/release}" && pwd)
seconds=${2:-30}
cd "$here/.."
source bench/lib.sh
out=$here/out
mkdir -p "$out"
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
# One flat folder of 10,000 items, annotated (a note, tags, markers on each): the page's worst
# folder; and one recording with real audio (60 s of speech-like noise as opus) for the Range runs.
"$here/gen-store" 10000 --flat --annotate --store "$store" >/dev/null
sox -n -r 48000 -c 1 -b 16 "$work/take.wav" synth 60 pinknoise tremolo 3 80 2>/dev/null
"$bin/recnotes" --store "$store" import "$work/take.wav" --name bench-audio >/dev/null
uuid=$("$bin/recnotes" --store "$store" info /bench-audio --json | jq -r .uuid)
file=$("$bin/recnotes" --store "$store" info /bench-audio --json | jq -r .audioPath)
size=$(stat -c %s "$file")
from=$((size / 2))
range="bytes=$from-$((from + 65535))"

port=$((20000 + RANDOM % 20000))
"$bin/recnotes-serve" --store "$store" --listen "127.0.0.1:$port" >"$work/url" 2>"$out/serve-bench.err" &
pids+=($!)
serve_pid=$!
url=""
for _ in $(seq 100); do
  url=$(head -n1 "$work/url" 2>/dev/null || true)
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || { echo "serve.sh: recnotes-serve printed no URL" >&2; exit 1; }
base=${url%/}
echo "items in /: $(curl -s "$base/api/ls?path=/" | jq length); audio: $size bytes; Range: $range"
echo "idle server with the 10k store, RSS: $(awk '/VmRSS/ {print $2, $3}' "/proc/$serve_pid/status")"

# 1. First byte: the shell, the folder's JSON, the command.
hyperfine -N --warmup 5 --runs 50 --export-markdown "$out/serve-first-byte.md" \
  -n "GET / (the page's shell)" "curl -s -o /dev/null $base/" \
  -n "GET /api/ls?path=/ (10k items)" "curl -s -o /dev/null $base/api/ls?path=/" \
  -n "recnotes ls / --json" "$bin/recnotes --store $store ls / --json"
for target in "/" "/api/ls?path=/"; do
  for _ in 1 2 3; do curl -s -o /dev/null "$base$target"; done
  printf '%s first byte (ms, 20 runs):' "$target"
  for _ in $(seq 20); do
    curl -s -o /dev/null -w '%{time_starttransfer}\n' "$base$target"
  done | sort -n > "$work/first-byte"
  awk '{ t[NR] = $1 * 1000 } END { printf " median %.2f, max %.2f\n", t[int((NR + 1) / 2)], t[NR] }' "$work/first-byte"
  # The page's first byte is the shell's (/): it never waits for the library.
  if [[ $target == / ]]; then
    shell_first=$(awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }' "$work/first-byte")
  fi
done
bench_row first-byte "first byte of a 10,000-item folder's page, median" "$(bench_ms "$shell_first" 2)" "—" "—" "≤ 50 ms"
echo "after first byte: load $(cut -d' ' -f1-3 /proc/loadavg)"

# 2. wrk: two threads, eight connections, latency percentiles.
run_wrk() {
  local name=$1
  shift
  echo "== wrk: $name"
  wrk -t2 -c8 -d"${seconds}s" --latency "$@" | tee "$out/serve-wrk-$name.txt" |
    grep -E 'Requests/sec|Transfer/sec|99%|requests in|Socket errors|Non-2xx'
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
}
run_wrk api-ls "$base/api/ls?path=/"
run_wrk audio-range -H "Range: $range" "$base/audio/$uuid"
# Hummingbird's own floor: a response from memory (the page's script, 21 KB, compiled into the
# binary), no library, no file: what any route of this server costs at least.
run_wrk page-asset "$base/page/page.js"

if command -v nginx >/dev/null; then
  nport=$((port + 1))
  mkdir -p "$work/nginx/www" "$work/nginx/tmp"
  cp "$file" "$work/nginx/www/audio.opus"
  cat >"$work/nginx/nginx.conf" <<EOF
worker_processes auto;
user root;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/nginx/tmp;
  proxy_temp_path $work/nginx/tmp;
  fastcgi_temp_path $work/nginx/tmp;
  uwsgi_temp_path $work/nginx/tmp;
  scgi_temp_path $work/nginx/tmp;
  sendfile on;
  server { listen 127.0.0.1:$nport; root $work/nginx/www; }
}
EOF
  nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
  pids+=($!)
  sleep 0.5
  run_wrk nginx-audio-range -H "Range: $range" "http://127.0.0.1:$nport/audio.opus"
else
  echo "nginx is not installed: no peer for the Range runs (apt-get install nginx-light)"
fi
# wrk's requests a second of a run, as "18535.12".
rate() { awk '$1 == "Requests/sec:" { print $2 }' "$out/serve-wrk-$1.txt"; }
audio=$(rate audio-range)
if [[ -f $out/serve-wrk-nginx-audio-range.txt ]] && command -v nginx >/dev/null; then
  nginx_rate=$(rate nginx-audio-range)
  bench_row audio "\`/audio/UUID\`, 64 KiB Range, requests/s" "$(bench_thousands "$audio")/s" \
    "nginx $(bench_thousands "$nginx_rate")/s" "$(awk -v a="$audio" -v b="$nginx_rate" 'BEGIN { printf "%.2f", a / b }')" "≥ 0.8"
else
  bench_row audio "\`/audio/UUID\`, 64 KiB Range, requests/s" "$(bench_thousands "$audio")/s" "—" "—" "≥ 0.8"
fi

# 3. /api/find against the command: `find / --text 'budget zürich' --json`, the server's body
# and the command's output the same bytes.
echo "== /api/find against find --json"
find_url="$base/api/find?path=/&text=budget%20z%C3%BCrich"
curl -s "$find_url" > "$work/find-api.json"
if "$bin/recnotes" --store "$store" find / --text 'budget zürich' --json | cmp -s - "$work/find-api.json"; then
  echo "/api/find's body and find --json's output: the same $(wc -c < "$work/find-api.json") bytes, $(jq length "$work/find-api.json") hits"
else
  echo "/api/find's body and find --json's output differ"
fi
hyperfine -N --warmup 3 --runs 30 --export-markdown "$out/serve-find.md" --export-json "$out/serve-find.json" \
  -n "curl /api/find" "curl -s -o /dev/null $find_url" \
  -n "recnotes find --json" "$bin/recnotes --store $store find / --text 'budget zürich' --json"
api=$(bench_mean "$out/serve-find.json" "curl /api/find")
command=$(bench_mean "$out/serve-find.json" "recnotes find --json")
bench_row find "\`/api/find\` against \`find --json\`" "$(bench_ms "$api")" "$(bench_ms "$command")" \
  "$(bench_ratio "$api" "$command")" "≤ 1.2×"
bench_record

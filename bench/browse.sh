#!/usr/bin/env bash
# browse, on a 10,000-item store (bench/gen-store; ITEMS=100000 for the
# 100k), in a real terminal (tmux):
#   - first frame <= 100 ms: `browse` in a pseudo-terminal (script) with a `q` waiting, so
#     each run is start, store read, first frame, quit, timed to its exit (see in_script);
#     beside it, alternating, `recnotes ls /` in the same pseudo-terminal; then hyperfine on
#     `recnotes ls /` alone and `jq` counting the items of the same store.json;
#     plus the first frame's time inside the process (RECNOTES_BROWSE_TRACE);
#   - key press to updated screen <= 16 ms at p95: 200 keys (j/k) sent with tmux; the
#     trace times each frame from the poll that saw the key to the end of its write;
#   - resident memory after the first frame (<= 50 MB at 100k): VmRSS and its peak
#     VmHWM of the browser in tmux (/proc);
#   - idle CPU <= 0.5% of a core: utime+stime of the idle browser over 10 s (/proc);
#   - while playing (a real-time PulseAudio sink): >= 20 updates a second, and the bytes
#     of each update <= 5% of a full redraw (the trace's first frame).
# Results: bench/out/browse-*.md and browse.txt (browse-ITEMS-* for another size); the first
# frame inside the process, the memory and the keys' p95 go into bench/results/browse.tsv
# (bench/lib.sh), labelled with the store's size: the table's are of ITEMS=100000.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/pulse.sh
source bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
runs=${RUNS:-20}
items=${ITEMS:-10000}
# The size in the rows' words: 100k, 10k, 2.5k.
size=$(awk -v n="$items" 'BEGIN { if (n >= 1000) printf "%gk", n / 1000; else printf "%d", n }')
# Results of another size go beside the 10k ones, not over them.
tag=$([[ $items == 10000 ]] && echo browse || echo "browse-$items")
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-browse.XXXXXX")
pulse=""
tmux_socket="recnotes-bench-$$"
cleanup() {
  tmux -L "$tmux_socket" kill-server 2>/dev/null || true
  [[ -n $pulse ]] && kill "$pulse" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

start_pulse browse   # sets HOME, RECNOTES_HOME=$work/store, $socket, $pulse
cat > "$HOME/.asoundrc" <<ASOUND
pcm.!default { type pulse device "bench" server "unix:$socket" }
ASOUND
bench/gen-store "$items" --store "$RECNOTES_HOME" >/dev/null
json=$RECNOTES_HOME/store.json
sox -n -r 48000 -c 1 -b 16 "$work/tone.wav" synth 10 sine 440 vol 0.3
"$bin" import "$work/tone.wav" --name "0000 bench tone" >/dev/null
report=$out/$tag.txt
: > "$report"

echo "== first frame" | tee -a "$report"
# Start to exit inside a pseudo-terminal (script), with a q waiting: the time from before
# script starts to the moment the command inside it has quit, stamped by `date` in the same
# pseudo-terminal. Not hyperfine's time of the whole pipeline: at the end of its stdin,
# util-linux 2.38's script waits 250 ms before it passes the end on to a program still
# running (ul_pty_write_eof_to_child), and whether browse has quit by then is a race, so
# hyperfine saw 25 ms in some runs and 280 ms in others. stdin stays open here (sleep), and
# script's wait never starts. Browse and `ls /` alternate, so they share the load.
in_script() {
  local started ended
  started=$(date +%s%N)
  (printf q; sleep 0.5) | script -qfec "$1; date +%s%N > $work/ended" /dev/null > /dev/null
  ended=$(cat "$work/ended")
  echo $(( (ended - started) / 1000 ))
}
: > "$work/browse.us"; : > "$work/ls.us"
for _ in 1 2; do in_script "$bin browse" > /dev/null; done
for _ in $(seq "$runs"); do
  in_script "$bin browse" >> "$work/browse.us"
  in_script "$bin ls /" >> "$work/ls.us"
done
for name in browse ls; do
  sort -n "$work/$name.us" | awk -v name="$name" '{ t[NR] = $1 / 1000; sum += t[NR] }
    END { printf "%s in script, start to exit (%d runs): mean %.1f ms, median %.1f ms, min %.1f, max %.1f\n",
      name == "browse" ? "browse: first frame, then q," : "recnotes ls /,", NR, sum / NR, t[int((NR + 1) / 2)], t[1], t[NR] }'
done | tee -a "$report"
hyperfine --warmup 2 --runs "$runs" --export-markdown "$out/$tag-first-frame.md" \
  -n "recnotes ls /" "$bin ls /" \
  -n "jq '.items | length'" "jq '.items | length' $json" | tee -a "$report"

# A browser in tmux, 80x24, tracing its frames.
trace=$work/trace
t() { tmux -L "$tmux_socket" "$@"; }
t new-session -d -s bench -x 80 -y 24 "exec env RECNOTES_BROWSE_TRACE=$trace $bin browse"
for _ in $(seq 100); do [[ -s $trace ]] && break; sleep 0.05; done
pid=$(t list-panes -t bench -F '#{pane_pid}')
first_ms=$(awk 'NR==1 {print $1}' "$trace")
echo "first frame inside the process (store read + first draw): $first_ms ms, $(awk 'NR==1 {print $2}' "$trace") bytes" | tee -a "$report"
bench_row first-frame "first frame inside the process, $size" "$(bench_ms "$(awk -v t="$first_ms" 'BEGIN { print t / 1000 }')" 2)" \
  "—" "—" "≤ 100 ms"
sleep 0.5
echo "resident after the first frame: $(awk '/^VmRSS/ {print $2, $3}' "/proc/$pid/status"), peak $(awk '/^VmHWM/ {print $2, $3}' "/proc/$pid/status")" | tee -a "$report"
bench_row memory "resident after the first frame, $size" "$(awk '/^VmRSS/ { printf "%.1f MB", $2 / 1024 }' "/proc/$pid/status")" "—" "—" "≤ 50 MB"

echo "== key to screen" | tee -a "$report"
pairs=100
for _ in $(seq "$pairs"); do t send-keys -t bench j; sleep 0.03; t send-keys -t bench k; sleep 0.03; done
sleep 0.5
awk '$3 == "key" {print $4}' "$trace" | sort -n | awk '{a[NR]=$1} END {
  printf "%d key frames: median %.2f ms, p95 %.2f ms, max %.2f ms\n", NR, a[int(NR*0.5)], a[int(NR*0.95)], a[NR]}' | tee -a "$report"
p95=$(awk '$3 == "key" {print $4}' "$trace" | sort -n | awk '{a[NR]=$1} END { print a[int(NR*0.95)] / 1000 }')
bench_row keys "key to screen, p95 ($((pairs * 2)) j/k)" "$(bench_ms "$p95" 2)" "—" "—" "≤ 16 ms"

echo "== idle CPU" | tee -a "$report"
sleep 1
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
before=$(ticks); sleep 10; after=$(ticks)
awk -v d=$((after - before)) -v hz="$hz" 'BEGIN {printf "idle for 10 s: %d ticks = %.2f%% of a core\n", d, d / hz / 10 * 100}' | tee -a "$report"

echo "== playing" | tee -a "$report"
full=$(awk 'NR==1 {print $2}' "$trace")
: > "$trace.play"
mark=$(wc -l < "$trace")
t send-keys -t bench g Enter
sleep 6
t send-keys -t bench x
sleep 0.5
tail -n +"$((mark + 1))" "$trace" | awk -v full="$full" '$3 == "tick" {n++; bytes += $2; if (n == 1) first = $1; last = $1; if ($2 > max) max = $2}
  END {span = (last - first) / 1000; printf "%d tick frames in %.1f s: %.1f updates/s; %.0f bytes each on average (max %d), %.2f%% of a full redraw (%d bytes)\n",
       n, span, (n - 1) / span, bytes / n, max, bytes / n / full * 100, full}' | tee -a "$report"
t send-keys -t bench q
sleep 0.5
bench_record

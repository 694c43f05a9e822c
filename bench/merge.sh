#!/usr/bin/env bash
# The merge driver: `recnotes sync merge-driver` on two 10,000-item stores
# (bench/gen-store 10000 --annotate) with 100 changes on each side (notes, tags, renames, moves
# of random items; some items changed on both): target <= 150 ms. Beside it, on the same three
# files: `git merge-file`, git's own line merge, which is what store.json would get without the
# driver (and which leaves conflict markers). RECNOTES_BEFORE names an older build to run beside.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-merge.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench/gen-store 10000 --annotate --store "$work/base" >/dev/null 2>&1
# gen-store writes version 2; one change through recnotes writes it as this version does
# (store version 4: marker ids), as every synced store is.
RECNOTES_HOME="$work/base" "$bin" mkdir /Synced >/dev/null
cp "$work/base/store.json" "$work/base.json"
python3 - "$work" <<'PY'
import json, random, sys
work = sys.argv[1]
base = json.load(open(f"{work}/base.json"))
def side(seed, tag):
    rnd = random.Random(seed)
    doc = json.loads(json.dumps(base))
    recs = [i for i in doc["items"] if i.get("type") == "recording"]
    for n in range(100):
        item = recs[rnd.randrange(len(recs))] if n % 4 else recs[n]  # every 4th on both sides
        kind = n % 3
        if kind == 0:
            item["note"] = f"{tag} note {n}"
        elif kind == 1:
            item["tags"] = sorted(set(item.get("tags", []) + [f"{tag}{n}"]))
        else:
            item["name"] = item["name"] + f" {tag}{n}"
            # when the rename was made (store version 4): the later of two renames wins
            item["changed"] = {"name": "2026-11-25T09:%02d:00.000Z" % (n % 60 if tag == "ours" else (n + 7) % 60)}
    # one line per item, as recnotes writes it
    with open(f"{work}/{tag}.json", "w") as f:
        f.write('{\n"version": %d,\n"items": [\n' % doc["version"])
        f.write(",\n".join(json.dumps(i, ensure_ascii=False) for i in doc["items"]))
        f.write("\n],\n\"trash\": []\n}\n")
side(1, "ours")
side(2, "theirs")
# base in the same layout (recnotes writes it so: one item a line)
with open(f"{work}/base.json", "w") as f:
    f.write('{\n"version": %d,\n"items": [\n' % base["version"])
    f.write(",\n".join(json.dumps(i, ensure_ascii=False) for i in base["items"]))
    f.write("\n],\n\"trash\": []\n}\n")
PY
mkdir -p bench/out
cd "$work"
cp ours.json merged.json
GIT_DIR=$work/gitdir "$bin" sync merge-driver base.json merged.json theirs.json store.json
echo "conflicts reported: $(wc -l < "$work/gitdir/recnotes/merge-report.jsonl")"
python3 - "$work" <<'PY'
import json, sys
json.load(open(sys.argv[1] + "/merged.json"))
print("merged store parses")
PY
before=()
if [[ -n ${RECNOTES_BEFORE:-} ]]; then
  before=(-n merge-driver-before "env GIT_DIR=$work/gitdir $RECNOTES_BEFORE sync merge-driver $work/base.json $work/A.json $work/theirs.json store.json")
fi
hyperfine -N -i --warmup 3 --runs "${RUNS:-30}" \
  --prepare "cp $work/ours.json $work/A.json" \
  "${before[@]}" \
  -n merge-driver "env GIT_DIR=$work/gitdir $bin sync merge-driver $work/base.json $work/A.json $work/theirs.json store.json" \
  -n git-merge-file "git merge-file -p $work/ours.json $work/base.json $work/theirs.json" \
  --export-markdown "$OLDPWD/bench/out/merge.md" --export-json "$OLDPWD/bench/out/merge.json" 2>&1 || true

cd "$OLDPWD"
ours=$(bench_mean bench/out/merge.json merge-driver) git=$(bench_mean bench/out/merge.json git-merge-file)
bench_row driver "merge driver, 10,000 items" "$(bench_ms "$ours")" "\`git merge-file\` $(bench_ms "$git")" \
  "$(bench_ratio "$ours" "$git")" "≤ 150 ms"
bench_record

#!/usr/bin/env bash
# sync, beside the git and git-annex commands it runs, typed by hand:
#  1. `recnotes sync` with nothing to do, a 10,000-item store (bench/gen-store 10000, every
#     recording with a small audio file) and a local bare remote, against
#     `git status; git fetch; git annex merge; git annex get --from; git annex copy --to --not --in`
#     (what a person types to learn there is nothing to do): target <= 1.2x;
#  2. the first sync of a store of 1,000 recordings to an empty local remote, against
#     `git annex add audio; git add -A; git commit; git annex sync --content`: target <= 1.2x;
#  3. how long the store lock is held per sync at 10,000 items (sync --json's lockMilliseconds),
#     with nothing to do and with one change: target <= 200 ms;
#  4. the same for a sync that receives a change from another machine (SECTIONS="4"), alone and
#     with a change of its own (a merge).
# SECTIONS="1 3" runs only those (the store of 1 is made for 3 and 4 too); RECNOTES_BEFORE names
# an older build whose lock times 3 and 4 measure in turn with this one's, on the same stores.
# 2.'s means and 4.'s longest holds of this build go into bench/results/sync.tsv (bench/lib.sh);
# 1. and 3. print theirs only.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
before=${RECNOTES_BEFORE:-}
sections=${SECTIONS:-1 2 3}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-sync.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home
mkdir -p "$HOME" bench/out
git config --global user.name bench
git config --global user.email bench@localhost
git config --global init.defaultBranch main

# Writes N items with audio (distinct random bytes: distinct git-annex keys) into $1.
store_with_audio() {
  bench/gen-store "$2" --store "$1" >/dev/null
  python3 - "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
for item in json.load(open(d + "/store.json"))["items"]:
    f = item.get("file") or (item.get("recording") or {}).get("file")
    if f:
        with open(os.path.join(d, "audio", f), "wb") as out:
            out.write(os.urandom(2048))
PY
}

echo "== 1. nothing to do, 10,000 items"
store_with_audio "$work/big" 10000
"$bin" --store "$work/big" sync init --name bench >/dev/null
"$bin" --store "$work/big" sync remote add hub "$work/big-hub" >/dev/null
# Section 4 alone syncs documents only (--no-content), so its store's audio need not reach the hub.
setup_content=$([[ "$sections" == "4" ]] && echo --no-content || true)
"$bin" --store "$work/big" sync $setup_content >/dev/null
"$bin" --store "$work/big" sync $setup_content --json
if [[ " $sections " == *" 1 "* ]]; then
by_hand="cd $work/big && git status --porcelain >/dev/null && git fetch -q hub && git annex merge -q && git annex get -q --from hub && git annex copy -q --to hub --not --in hub"
hyperfine -N -i --warmup 2 --runs "${RUNS:-10}" \
  -n "recnotes sync" "$bin --store $work/big sync" \
  -n "by hand" "bash -c '$by_hand'" \
  --export-markdown bench/out/sync-idle.md 2>&1 || true
fi

if [[ " $sections " == *" 3 "* ]]; then
echo "== 3. lock held per sync, 10,000 items"
lock_held() {
  "$1" --store "$work/big" sync --json | python3 -c 'import json,sys; print("%s: lock held %.1f ms" % (sys.argv[1], json.load(sys.stdin)["lockMilliseconds"]))' "$2"
}
for i in 1 2 3 4 5; do
  for b in $before $bin; do
    name=$([[ $b == "$bin" ]] && echo this || echo before)
    lock_held "$b" "$name, nothing to do"
    "$bin" --store "$work/big" mkdir "/bench-$name-$i" >/dev/null
    lock_held "$b" "$name, one change   "
  done
done
fi
if [[ " $sections " == *" 4 "* ]]; then
echo "== 4. lock held per sync that receives, 10,000 items"
# A second machine (a clone, without the audio) changes the library and syncs first; then this
# one syncs: with nothing of its own (git fast-forwards) and with a change of its own too (a
# merge, through recnotes' merge driver).
"$bin" --store "$work/other" sync clone "$work/big-hub" >/dev/null
# With RECNOTES_BEFORE, each round is made by both builds in turn, on the same stores.
: > "$work/receiving"
for i in 1 2 3 4 5; do
  for b in $before $bin; do
    name=$([[ $b == "$bin" ]] && echo this || echo before)
    "$bin" --store "$work/other" mkdir "/from-other-$name-$i" >/dev/null
    "$bin" --store "$work/other" sync --no-content >/dev/null
    "$b" --store "$work/big" sync --no-content --json | python3 -c 'import json,sys; print("%s, receiving:            lock held %.1f ms" % (sys.argv[1], json.load(sys.stdin)["lockMilliseconds"]))' "$name" | tee -a "$work/receiving"
    "$bin" --store "$work/other" tag "/from-other-$name-$i" +theirs >/dev/null
    "$bin" --store "$work/other" sync --no-content >/dev/null
    "$bin" --store "$work/big" tag "/from-other-$name-$i" +ours >/dev/null
    "$b" --store "$work/big" sync --no-content --json | python3 -c 'import json,sys; print("%s, receiving and merging: lock held %.1f ms" % (sys.argv[1], json.load(sys.stdin)["lockMilliseconds"]))' "$name" | tee -a "$work/receiving"
  done
done
# This build's longest hold of the five, each way.
longest() { awk -v kind="$1" -F 'lock held ' '$1 ~ "^this, " kind ":" { ms = $2 + 0; if (ms > max) max = ms } END { print max / 1000 }' "$work/receiving"; }
bench_row lock-ff "store lock held while receiving a change" "$(bench_ms "$(longest receiving)" 0)" "—" "—" "≤ 200 ms"
bench_row lock-merge "store lock held while receiving and merging" "$(bench_ms "$(longest "receiving and merging")" 0)" "—" "—" "≤ 200 ms"
fi

if [[ " $sections " == *" 2 "* ]]; then
echo "== 2. first sync, 1,000 recordings"
store_with_audio "$work/seed" 1111
prepare="rm -rf $work/first $work/first-hub && cp -a $work/seed $work/first && $bin --store $work/first sync init --name bench >/dev/null && $bin --store $work/first sync remote add hub $work/first-hub >/dev/null"
first_by_hand="cd $work/first && git annex add -q audio && git add -A . && git commit -q -m first && git annex sync -q --content hub"
rm -f bench/out/sync-first.json
hyperfine -N -i --runs "${RUNS_FIRST:-3}" \
  --prepare "bash -c '$prepare'" \
  -n "recnotes sync (first)" "$bin --store $work/first sync" \
  -n "by hand (first)" "bash -c '$first_by_hand'" \
  --export-markdown bench/out/sync-first.md --export-json bench/out/sync-first.json 2>&1 || true
ours=$(bench_mean bench/out/sync-first.json "recnotes sync (first)")
theirs=$(bench_mean bench/out/sync-first.json "by hand (first)")
bench_row first "first sync of 1,000 recordings to an empty hub" "$(bench_s "$ours" 1)" "by hand $(bench_s "$theirs" 1)" \
  "$(bench_ratio "$ours" "$theirs")" "≤ 1.2×"
fi
bench_record

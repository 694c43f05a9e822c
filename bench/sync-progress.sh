#!/usr/bin/env bash
# What sync's live audio line costs: the same binary, the same sync, run through
# script(1) on a pseudo-terminal with stderr on it (the line is drawn: --json-progress, the
# records read as they come, one `git annex find` for the totals once something moves) and
# with stderr on /dev/null (no line), side by side in one hyperfine run:
#  1. the first sync of N recordings (N=200, 100 KB of random audio each) to an empty local
#     hub: target <= 1.05x;
#  2. a sync with nothing to move at the same store: target <= 1.02x (no find is run).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
n=${N:-200}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-sync-progress.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home
mkdir -p "$HOME" bench/out
git config --global user.name bench
git config --global user.email bench@localhost
git config --global init.defaultBranch main

bench/gen-store "$n" --flat --store "$work/seed" >/dev/null
python3 - "$work/seed" <<'PY'
import json, os, sys
d = sys.argv[1]
os.makedirs(os.path.join(d, "audio"), exist_ok=True)
for item in json.load(open(d + "/store.json"))["items"]:
    f = item.get("file") or (item.get("recording") or {}).get("file")
    if f:
        with open(os.path.join(d, "audio", f), "wb") as out:
            out.write(os.urandom(100_000))
PY
"$bin" --store "$work/seed" sync init --name bench >/dev/null

on_tty="script -qec '$bin --store $work/first sync' /dev/null"
no_tty="script -qec '$bin --store $work/first sync 2>/dev/null' /dev/null"
prepare="rm -rf $work/first $work/first-hub && cp -a $work/seed $work/first && $bin --store $work/first sync remote add hub $work/first-hub >/dev/null"

echo "== 1. first sync, $n recordings of 100 KB"
hyperfine -N -i --runs "${RUNS_FIRST:-5}" --prepare "bash -c '$prepare'" \
  -n "line (stderr a terminal)" "bash -c \"$on_tty\"" \
  -n "no line (stderr /dev/null)" "bash -c \"$no_tty\"" \
  --export-markdown bench/out/sync-progress-first.md --export-json bench/out/sync-progress-first.json 2>&1 || true

echo "== 2. nothing to move"
bash -c "$prepare"
"$bin" --store "$work/first" sync >/dev/null
hyperfine -N -i --warmup 2 --runs "${RUNS:-10}" \
  -n "line (stderr a terminal)" "bash -c \"$on_tty\"" \
  -n "no line (stderr /dev/null)" "bash -c \"$no_tty\"" \
  --export-markdown bench/out/sync-progress-idle.md --export-json bench/out/sync-progress-idle.json 2>&1 || true

secs() { awk -v s="$1" 'BEGIN { if (s >= 1) printf "%.2f s", s; else printf "%.0f ms", s * 1000 }'; }
for spec in "line:first:first sync with the live line on a terminal:≤ 1.05" "idle:idle:nothing to move, with the live line:≤ 1.02"; do
  IFS=: read -r id run what goal <<<"$spec"
  json=bench/out/sync-progress-$run.json
  on=$(bench_mean "$json" "line (stderr a terminal)") off=$(bench_mean "$json" "no line (stderr /dev/null)")
  bench_row "$id" "$what" "$(secs "$on")" "without $(secs "$off")" "$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", a / b }')" "$goal"
done
bench_record

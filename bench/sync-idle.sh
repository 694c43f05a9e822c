#!/usr/bin/env bash
# A sync with nothing to do, beside git-annex's own: `recnotes sync` against `git annex sync
# --content` in the same store (a local bare hub, every recording's audio on both), in one
# hyperfine run; target <= 1.2x. RECORDINGS sets the store's size (default 50); RECNOTES_BEFORE
# names an older build to run in the same hyperfine run too.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
before=${RECNOTES_BEFORE:-}
count=${RECORDINGS:-50}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-sync-idle.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home
mkdir -p "$HOME" bench/out
git config --global user.name bench
git config --global user.email bench@localhost
git config --global init.defaultBranch main

store=$work/store
"$bin" --store "$store" sync init --name bench >/dev/null
for i in $(seq 1 "$count"); do
  sox -n -r 16000 -c 1 "$work/take.wav" synth "0.$((i % 9 + 1))" sine $((200 + i)) 2>/dev/null
  "$bin" --store "$store" import "$work/take.wav" --name "memo $i" -q
done
"$bin" --store "$store" sync remote add hub "$work/hub" >/dev/null
"$bin" --store "$store" sync >/dev/null
# Both have run once, so that neither's first-time work is timed.
(cd "$store" && git annex sync --content -q)
"$bin" --store "$store" sync

runs=(-n "recnotes sync" "$bin --store $store sync")
[[ -n "$before" ]] && runs+=(-n "recnotes sync (before)" "$before --store $store sync")
hyperfine -N --warmup 3 --runs "${RUNS:-20}" "${runs[@]}" \
  -n "git annex sync --content" "bash -c 'cd $store && git annex sync --content -q'" \
  --export-markdown bench/out/sync-idle.md --export-json bench/out/sync-idle.json

ours=$(bench_mean bench/out/sync-idle.json "recnotes sync")
annex=$(bench_mean bench/out/sync-idle.json "git annex sync --content")
bench_row idle "\`sync\` with nothing to do" "$(bench_ms "$ours")" "\`git annex sync --content\` $(bench_ms "$annex")" \
  "$(bench_ratio "$ours" "$annex")" "≤ 1.2×"
bench_record

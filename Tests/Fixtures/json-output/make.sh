#!/usr/bin/env bash
# The store of JSONOutputTests and what `--json` printed for it. The store is made once
# (bench/gen-store, then notes that take every way a snippet is cut); the golden files
# were printed by the release before `--json` was made to write its bytes directly
# (main at e997f5e), with the store's directory replaced by STORE.
#   make.sh store    make the store again (it then needs new golden files)
#   make.sh golden   print the golden files with $RECNOTES_BIN (only when the output is
#                    meant to change)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${RECNOTES_BIN:-recnotes}
case ${1:-} in
store)
  rm -rf "$here/store"
  "$here/../../../bench/gen-store" 200 --annotate --seed 22 --store "$here/store"
  s="$bin --store $here/store"
  mapfile -t recs < <($s find / --type recording | head -8)
  $s note "${recs[0]}" --set $'Cafe\u0301 notes, then a budget for Zu\u0308rich (decomposed accents)'
  $s note "${recs[1]}" --set $'line one budget\r\nline two zürich\r\nend'
  $s note "${recs[2]}" --set $'tab\tbudget\vzürich\fform\u0085next'
  $s note "${recs[3]}" --set "$(printf 'word %.0s' {1..40})BUDGET in capitals, then ZÜRICH, then $(printf 'more %.0s' {1..40})"
  $s note "${recs[4]}" --set $'🎉 party budget zürich 👍🏽 and more emoji 🇨🇭 after it, long enough to be cut at the end of it all'
  $s note "${recs[5]}" --set $'ǅ ɐ ʃ ˆ budget Zürich ß straße Œuvre ĳ'
  $s note "${recs[6]}" --set $'\r\r\n\n budget zürich at the start'
  rm -rf "$here/store/cache" "$here/store/viewstate.json" "$here/store/journal.jsonl" "$here/store/store.lock" "$here/store/store.json.v2"
  ;;
golden)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cp -a "$here/store" "$work/store"
  s="$bin --store $work/store"
  mkdir -p "$here/golden"
  out() { sed "s|$work/store|STORE|g" > "$here/golden/$1"; }
  $s find / --text 'budget' --json | out find-budget.json
  $s find / --tag urgent --json | out find-tag.json
  $s ls -l / --json | out ls-root.json
  $s tree / --json | out tree.json
  ;;
*) echo "usage: make.sh store|golden" >&2; exit 64 ;;
esac

#!/usr/bin/env bash
# A short scripted session in a throwaway store: what a new user should see first.
set -euo pipefail
bin=${1:?usage: demo.sh path/to/recnotes}
store=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-demo.XXXXXX")
trap 'rm -rf "$store"' EXIT
export RECNOTES_HOME="$store" NO_COLOR=1

step() { printf '\n\033[1m$ recnotes %s\033[0m\n' "$*"; "$bin" "$@"; }
fails() { printf '\n\033[1m$ recnotes %s\033[0m\n' "$*"; "$bin" "$@" && exit 1 || printf '(exit %d)\n' "$?"; }

echo "recnotes demo: a temporary store in $store"
step --version
step mkdir -p Work/Standups Ideas Personal/Journal
step tree
step cd Work
step pwd
step mkdir "Project X"
step ls -l
step mv "Project X" "/Ideas/Project Y"
step cd ../Ideas
step ls --json
step info "Project Y"
fails rm /Work
step rm -r /Work
fails mkdir " leading space"
step tree /
step state
echo
echo "store.json is plain JSON; for example: jq -r '.items[].name' \"\$RECNOTES_HOME/store.json\""
jq -r '.items[].name' "$store/store.json"

#!/usr/bin/env bash
# Stored enhancement, with hyperfine, recnotes beside its peer in the same run.
#   - `enhance R --level` then `--no-level` on a 10,000-item store beside `tag R +a` then
#     `tag R -a`: both are annotations, so both take the spliced in-place write
#     (Transaction.annotatedOnly); the ratio should be about 1.
# Results: bench/out/enhance-*.md and *.json, and its rows of bench/RESULTS.md (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
runs=${RUNS:-30}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-enhance.XXXXXX")
trap 'rm -rf "$work"' EXIT

bench/gen-store 10000 --annotate --store "$work/s10k" >/dev/null
s="$bin --store $work/s10k"
# Upgraded once (a version-2 store is rewritten whole by its first change), so that both
# commands below measure the current version's write.
$s mkdir /bench-upgrade >/dev/null
r=$($s find / --type recording | sed -n 1p)
hyperfine --warmup 3 --runs "$runs" --export-markdown "$out/enhance-mutate.md" --export-json "$out/enhance-mutate.json" \
  -n "enhance --level; --no-level" "$s enhance '$r' --level >/dev/null; $s enhance '$r' --no-level >/dev/null" \
  -n "tag +a; -a (peer)" "$s tag '$r' +a >/dev/null; $s tag '$r' -a >/dev/null"

# hyperfine's user CPU, which a loaded machine disturbs least.
user() { jq -r --arg n "$1" '.results[] | select(.command == $n) | .user' "$out/enhance-mutate.json"; }
ours=$(user "enhance --level; --no-level") peer=$(user "tag +a; -a (peer)")
bench_row enhance "\`enhance --level\` pair, user CPU" "$(awk -v s="$ours" 'BEGIN { printf "%.3f s", s }')" \
  "\`tag\` pair $(awk -v s="$peer" 'BEGIN { printf "%.3f s", s }')" "$(bench_ratio "$ours" "$peer")" "≈ \`tag\`"
bench_record

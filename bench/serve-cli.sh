#!/usr/bin/env bash
# `recnotes serve` beside the CLI: the CLI must keep its start-up and size although
# the package now builds an HTTP server (Hummingbird, NIO) into recnotes-serve. Runs
# `recnotes --version` of the binary before the change (BEFORE, built from the base commit)
# beside the one after (AFTER) in the same hyperfine run, prints both sizes, stripped and
# not. (valgrind's callgrind gives up on these binaries' debug info, so no instruction count.)
# The stripped sizes go into bench/results/serve-cli.tsv (bench/lib.sh).
#   bench/serve-cli.sh BEFORE AFTER
set -euo pipefail
before=$(realpath "${1:?usage: serve-cli.sh BEFORE-recnotes AFTER-recnotes}")
after=$(realpath "${2:?usage: serve-cli.sh BEFORE-recnotes AFTER-recnotes}")
cd "$(dirname "$0")/.."
source bench/lib.sh
out=$PWD/bench/out
mkdir -p "$out"
echo "size before: $(stat -c %s "$before") bytes; after: $(stat -c %s "$after") bytes"
for bin in "$before" "$after"; do
  if grep -qa 7NIOCore "$bin"; then echo "$bin links NIO"; else echo "$bin does not link NIO"; fi
done
hyperfine -N --warmup 10 --runs 100 --export-markdown "$out/serve-cli-version.md" \
  -n "before: recnotes --version" "$before --version" \
  -n "after: recnotes --version" "$after --version"
declare -A stripped
for bin in "$before" "$after"; do
  strip --strip-unneeded -o "$out/serve-cli-stripped" "$bin"
  stripped[$bin]=$(stat -c %s "$out/serve-cli-stripped")
  echo "$bin stripped (as the .deb has it): ${stripped[$bin]} bytes"
done
rm -f "$out/serve-cli-stripped"
bench_row size "CLI binary, stripped" "$(bench_thousands "${stripped[$after]}") B" "before $(bench_thousands "${stripped[$before]}") B" \
  "$(awk -v a="${stripped[$after]}" -v b="${stripped[$before]}" 'BEGIN { printf "%.3f", a / b }')" "unchanged"
bench_record

#!/usr/bin/env bash
# What linking the Swift runtime statically costs and saves. Builds the release
# binary both ways (own scratch paths), strips a copy as the .deb does, and compares sizes and
# `recnotes --version` start-up side by side with hyperfine.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
swift build -c release --scratch-path .build-dynamic >/dev/null
swift build -c release --static-swift-stdlib --scratch-path .build-static >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-packaging.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp .build-dynamic/release/recnotes "$work/dynamic"
cp .build-static/release/recnotes "$work/static"
strip --strip-unneeded --remove-section=.comment --remove-section=.note -o "$work/static-stripped" "$work/static"
for b in dynamic static static-stripped; do
  printf '%-16s %6.1f MB  %s\n' "$b" "$(echo "$(stat -c %s "$work/$b") / 1048576" | bc -l)" \
    "$(ldd "$work/$b" | grep -c swift) Swift libraries loaded from the toolchain"
done
hyperfine -N -w 10 -r 100 --export-json "$work/startup.json" "$work/dynamic --version" "$work/static --version" "$work/static-stripped --version"

dynamic=$(bench_mean "$work/startup.json" "$work/dynamic --version")
static=$(bench_mean "$work/startup.json" "$work/static --version")
bench_row static "\`--version\`, static runtime against dynamic" "$(bench_ms "$static")" "dynamic $(bench_ms "$dynamic")" \
  "$(bench_ratio "$static" "$dynamic")" "—"
bench_record

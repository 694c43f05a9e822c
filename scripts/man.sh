#!/usr/bin/env bash
# Generates man/recnotes.1 from the command definitions (swift-argument-parser's
# generate-manual plugin) plus the hand-written sections in man/sections.mdoc.
#   scripts/man.sh          regenerate man/recnotes.1
#   scripts/man.sh --check  fail if man/recnotes.1 is out of date or renders with warnings
set -euo pipefail
cd "$(dirname "$0")/.."
# scripts/man.sh --stamp VERSION < man/recnotes.1: the page as installed, with the version
# from scripts/version.sh on its .Os line (the committed page leaves it out, so that it does
# not go stale with every commit).
if [[ "${1:-}" == "--stamp" ]]; then
  sed "s/^\.Os.*\$/.Os recnotes ${2:?usage: man.sh --stamp VERSION}/"
  exit 0
fi
# A fixed date keeps the page reproducible; bump it when the page changes on purpose.
date=2026-11-23
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

swift package --disable-sandbox plugin generate-manual --configuration debug --date "$date" >"$out/log" 2>&1 ||
  { cat "$out/log" >&2; exit 1; }
generated=.build/plugins/GenerateManual/outputs/recnotes/recnotes.1

python3 - "$generated" man/sections.mdoc "$out/recnotes.1" <<'PY'
import sys
generated, sections, target = sys.argv[1:4]
lines = open(generated, encoding="utf-8").read().split("\n")
# The generator's own EXIT STATUS (".Ex -std") says only 0 or >0; ours is in sections.mdoc.
if '.Sh "EXIT STATUS"' in lines:
    lines = lines[:lines.index('.Sh "EXIT STATUS"')]
out = []
for line in lines:
    if line == "":
        out.append(".Pp")           # a blank line is not a paragraph break in mdoc
    elif line[0] in "'" :
        out.append("\\&" + line)    # a leading quote would be read as a control line
    else:
        out.append(line)
while out and out[-1] in (".Pp", ""):
    out.pop()
text = "\n".join(out) + "\n" + open(sections, encoding="utf-8").read()
open(target, "w", encoding="utf-8").write(text)
PY

warnings=$(groff -man -ww -Tutf8 -z "$out/recnotes.1" 2>&1 || true)
if [[ -n "$warnings" ]]; then
  echo "man: recnotes.1 renders with warnings:" >&2
  echo "$warnings" >&2
  exit 1
fi

if [[ "${1:-}" == "--check" ]]; then
  if ! diff -u man/recnotes.1 "$out/recnotes.1" >"$out/diff"; then
    echo "man: man/recnotes.1 is out of date with the commands; run 'make man' and commit it:" >&2
    head -40 "$out/diff" >&2
    exit 1
  fi
  echo "man: man/recnotes.1 is up to date and renders without warnings"
else
  cp "$out/recnotes.1" man/recnotes.1
  echo "man: wrote man/recnotes.1"
fi

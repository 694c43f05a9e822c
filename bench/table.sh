#!/usr/bin/env bash
# Renders bench/RESULTS.md from bench/results/*.tsv (bench/lib.sh's bench_record runs it
# after every bench script). One table per area, one row per figure, each with the date and
# commit it was measured at; the areas in the order below, then any other.
#   BENCH_RESULTS=DIR   read DIR/*.tsv and write DIR/RESULTS.md instead
set -euo pipefail
cd "$(dirname "$0")/.."
results=${BENCH_RESULTS:-bench/results}
if [ "$results" = bench/results ]; then target=bench/RESULTS.md; else target=$results/RESULTS.md; fi
python3 - "$results" "$target" <<'PY'
import glob, os, sys

results, target = sys.argv[1:]
areas = ["Store commands", "Search", "Start-up", "Audio", "Enhancement", "Words", "Voice activity", "Sync", "Server"]
sections = {}
for path in sorted(glob.glob(os.path.join(results, "*.tsv"))):
    script = os.path.basename(path)[:-4]
    meta, rows = {}, []
    for line in open(path, encoding="utf-8").read().splitlines():
        if line.startswith("# "):
            key, _, value = line[2:].partition(": ")
            meta[key] = value
        elif line and not line.startswith("id\t"):
            fields = line.split("\t")
            if len(fields) != 8:
                sys.exit(f"table.sh: {path}: {len(fields)} fields, not 8: {line}")
            rows.append(fields)
    area = meta.get("area", "Other")
    if area not in areas:
        areas.append(area)
    sections.setdefault(area, []).append((script, meta.get("how", ""), rows))

cell = lambda text: text.replace("|", "\\|")
out = [
    "# Benchmark results",
    "",
    "Where recnotes stands against its peers: one row per figure, the latest measurement of",
    "each, with the date and commit it was measured at. Ratios are recnotes / peer (below 1 is",
    "faster) unless the row says otherwise; the goal is what the figure was asked to meet.",
    "",
    "This file is written by `bench/table.sh` from `bench/results/*.tsv`; each `bench/*.sh`",
    "rewrites its own rows when it runs (`make bench` runs them). Do not edit it by hand. The",
    "history of every number is in git: `git log -p bench/results`.",
    "",
    "Measured on the project machine (Debian 12, 2 cores, often shared), with hyperfine and the",
    "static release build unless the section says otherwise.",
]
for area in areas:
    if area not in sections:
        continue
    out += ["", f"## {area}", "", "How measured:", ""]
    for script, how, _ in sections[area]:
        out.append(f"- `bench/{script}.sh`: {how}")
    out += ["", "| what | recnotes | peer | ratio | goal | date | commit |", "|---|---|---|---|---|---|---|"]
    for _, _, rows in sections[area]:
        for id_, what, recnotes, peer, ratio, goal, date, commit in rows:
            out.append("| " + " | ".join(cell(c) for c in (what, recnotes, peer, ratio, goal, date, commit)) + " |")
open(target + ".new", "w", encoding="utf-8").write("\n".join(out) + "\n")
os.replace(target + ".new", target)
PY

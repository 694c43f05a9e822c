# Sourced by the bench scripts, after `cd` to the repository root. A script records each
# figure it measured as a row (bench_row), and ends with bench_record, which puts its rows
# into bench/results/<script>.tsv (a row of the same id replaced, the others kept) with
# today's date and the commit measured, then renders bench/RESULTS.md again from every
# script's file (bench/table.sh). So the table is always the latest figure of each row, and
# the history of the numbers is the history of bench/results in git.
#   BENCH_RESULTS=DIR   write the .tsv files and RESULTS.md under DIR instead (a trial run)
bench_name=$(basename "$0" .sh)
bench_results=${BENCH_RESULTS:-bench/results}
mkdir -p bench/out "$bench_results"
bench_rows=bench/out/$bench_name.rows
: >"$bench_rows"

# bench_row ID WHAT RECNOTES PEER RATIO GOAL: one figure (a cell may be "—").
bench_row() {
  [ $# -eq 6 ] || { echo "bench_row: 6 fields, not $#: $*" >&2; return 1; }
  local field
  for field in "$@"; do
    case $field in *$'\t'* | *$'\n'*) echo "bench_row: a tab or newline in '$field'" >&2; return 1 ;; esac
  done
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$bench_rows"
}

# bench_cpu_of FILE COMMAND...: runs COMMAND and writes the CPU seconds it took itself (user
# and system, from wait4's rusage: to the microsecond, where GNU time prints hundredths) to
# FILE; its exit status is COMMAND's.
bench_cpu_of() {
  /usr/bin/python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write("%.6f\n" % (usage.ru_utime + usage.ru_stime))
sys.exit(os.waitstatus_to_exitcode(status))' "$@"
}

# bench_mean FILE.json NAME: hyperfine's mean of the command named NAME, in seconds.
bench_mean() { jq -r --arg n "$2" '.results[] | select(.command == $n) | .mean' "$1"; }
# bench_ms SECONDS [PLACES]: "12.3 ms" (PLACES decimals, default 1).
bench_ms() { awk -v s="$1" -v p="${2:-1}" 'BEGIN { printf "%.*f ms", p, s * 1000 }'; }
# bench_ratio A B: "1.23×".
bench_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }
# bench_cpu FILE.json NAME: hyperfine's mean user + system CPU of the command named NAME, in
# seconds.
bench_cpu() { jq -r --arg n "$2" '.results[] | select(.command == $n) | .user + .system' "$1"; }
# bench_s SECONDS [PLACES]: "1.51 s" (PLACES decimals, default 2).
bench_s() { awk -v s="$1" -v p="${2:-2}" 'BEGIN { printf "%.*f s", p, s }'; }
# bench_thousands N: N rounded to a whole number, its thousands split by commas: "18,535".
bench_thousands() { awk -v n="$1" 'BEGIN { printf "%.0f", n }' | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }

# bench_file_device RAW: $HOME/.asoundrc with ALSA's file plugin as the default device, faster
# than real time: capture reads RAW (headerless, the rate and format the command asks for),
# playback goes to /dev/null.
bench_file_device() {
  cat >"$HOME/.asoundrc" <<ASOUND
pcm.!default {
  type asym
  playback.pcm { type file slave.pcm null file "/dev/null" format "raw" }
  capture.pcm { type file slave.pcm null file "/dev/null" infile "$1" format "raw" }
}
ASOUND
}

# bench_record: the rows into bench/results/<script>.tsv, then the table. A new file takes
# its section and its "how measured" line from BENCH_AREA and BENCH_HOW.
bench_record() {
  local file=$bench_results/$bench_name.tsv date commit
  date=$(date -u +%F)
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  # A binary built from uncommitted sources is not the commit's.
  git diff --quiet HEAD -- Sources Package.swift 2>/dev/null || commit=$commit+
  if [ ! -f "$file" ]; then
    printf '# area: %s\n# how: %s\nid\twhat\trecnotes\tpeer\tratio\tgoal\tdate\tcommit\n' \
      "${BENCH_AREA:-Other}" "${BENCH_HOW:-}" >"$file"
  fi
  # The header says how the rows were measured now, when the script says so.
  awk -F'\t' -v OFS='\t' -v date="$date" -v commit="$commit" -v area="${BENCH_AREA:-}" -v how="${BENCH_HOW:-}" '
    NR == FNR { row[$1] = $0 "\t" date "\t" commit; order[++n] = $1; next }
    /^# area: / && area != "" { print "# area: " area; next }
    /^# how: / && how != "" { print "# how: " how; next }
    /^#/ || $1 == "id" { print; next }
    $1 in row { print row[$1]; done[$1] = 1; next }
    { print }
    END { for (i = 1; i <= n; i++) if (!(order[i] in done)) print row[order[i]] }
  ' "$bench_rows" "$file" >"$file.new" && mv "$file.new" "$file"
  echo "recorded $(wc -l <"$bench_rows") rows in $file"
  BENCH_RESULTS=$bench_results bench/table.sh
}

# bench_words: text on stdin as the words bench/wer.awk scores: lower case, letters and
# apostrophes only, and titles spelt out as Whisper's English normalizer spells them (Mr. is
# mister), so that an engine writing "Mr." is not counted wrong against a reference that says
# "mister".
bench_words() {
  tr 'A-Z' 'a-z' | sed -e 's/([0-9]*)//g' -e 's/[^a-z '"'"']/ /g' \
    -e 's/\bmr\b/mister/g' -e 's/\bmrs\b/missus/g' -e 's/\bdr\b/doctor/g' |
    tr -s ' ' | sed -e 's/^ //' -e 's/ $//'
}

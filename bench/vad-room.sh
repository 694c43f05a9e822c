#!/usr/bin/env bash
# Voice activity in a quiet room: where the speech regions start and end on real
# speech with steady room noise before and after it, this tree's detector beside main's.
#   - clips: pocketsphinx-testdata's five LibriVox sentences, and goforward, numbers and
#     something; each resampled to 48 kHz (sox rate -v) and placed between 3 s of room: digital
#     silence, or pink noise at -63, -55, -45 dBFS RMS (and white noise at -63), made with sox.
#     The room is before and after the clip, not under it: the clip keeps its own background,
#     as a recording that starts and stops in a room quieter or louder than the voice's.
#   - reference speech: found in the clean 16 kHz clip by the unit tests' rule
#     (Tests/RecAudioTests/VoiceActivityTests.swift, SpeechClips.referenceSpeech): pre-emphasis,
#     10 ms blocks within 40 dB of the loudest and 10 dB above the clip's quietest tenth, runs
#     of 30 ms or more. Its first start is the first word's, its last end the last word's.
#   - the detector: Sources/RecAudio/Audio/VoiceActivity.swift compiled alone with
#     bench/vad-regions.swift (swiftc -O), and the same file from `main` (VAD_BASE to change).
#   - measured: start error (first region start - first word start; negative = earlier),
#     end error (last region end - last word end), recall (reference speech frames inside the
#     regions) and precision (region frames that are reference speech; pauses between words,
#     the pre-roll and the post-roll count against it).
# Figures go to bench/out/vad-room.txt; this tree's mean end error in pink noise at -55 dBFS
# and its recall in every room go into bench/results/vad-room.tsv (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
data=/usr/share/pocketsphinx/test/data
[[ -d $data/librivox ]] || { echo "vad-room.sh: $data: no clips: run scripts/install-deps.sh" >&2; exit 1; }
base=${VAD_BASE:-main}
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-vad-room.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A package name, as SwiftPM gives one: the detector's API is `package`.
swiftc -O -parse-as-library -module-name VadBench -package-name VadBench bench/vad-regions.swift \
  Sources/RecAudio/Audio/VoiceActivity.swift -o "$work/vad-new"
git show "$base:Sources/RecAudio/Audio/VoiceActivity.swift" > "$work/VoiceActivity.swift"
swiftc -O -parse-as-library -module-name VadBench -package-name VadBench bench/vad-regions.swift \
  "$work/VoiceActivity.swift" -o "$work/vad-old"

raw="-t raw -r 16000 -e signed -b 16 -c 1"
clips=()
while read -r id; do
  name=${id##*-}
  cp "$data/librivox/$id.wav" "$work/$name.clean.wav"
  clips+=("$name")
done < "$data/librivox/fileids"
for c in goforward numbers something; do
  sox $raw "$data/$c.raw" "$work/$c.clean.wav"
  clips+=("$c")
done
rooms=(silence pink-63 pink-55 pink-45 white-63)
for c in "${clips[@]}"; do
  sox "$work/$c.clean.wav" -r 48000 -b 16 "$work/$c.48.wav" rate -v
  for room in "${rooms[@]}"; do
    if [[ $room == silence ]]; then
      sox "$work/$c.48.wav" -t raw -e signed -b 16 "$work/$c.$room.raw" pad 3 3
      continue
    fi
    kind=${room%-*}; level=-${room#*-}
    sox -R -n -r 48000 -c 1 -b 16 "$work/n.wav" synth 3 "${kind}noise" vol 0.5
    rms=$(sox "$work/n.wav" -n stats 2>&1 | awk '/RMS lev dB/ {print $4}')
    sox "$work/n.wav" "$work/room.wav" gain "$(python3 -c "print($level - ($rms))")"
    sox "$work/room.wav" "$work/$c.48.wav" "$work/room.wav" -t raw -e signed -b 16 "$work/$c.$room.raw"
  done
done
files=()
for c in "${clips[@]}"; do for room in "${rooms[@]}"; do files+=("$work/$c.$room.raw"); done; done
"$work/vad-new" 48000 "${files[@]}" > "$work/new.txt"
"$work/vad-old" 48000 "${files[@]}" > "$work/old.txt"

BENCH_ROWS=$bench_rows python3 - "$work" "$base" "${clips[@]}" <<'PY' | tee "$out/vad-room.txt"
import array, math, os, sys, wave
work, base, clips = sys.argv[1], sys.argv[2], sys.argv[3:]
rooms = ["silence", "pink-63", "pink-55", "pink-45", "white-63"]
rate, pad = 48000, 3 * 48000

def reference(path):
    w = wave.open(path); x = array.array("h", w.readframes(w.getnframes())); r = w.getframerate()
    blk = r // 100; e = []
    for s in range(0, len(x), blk):
        b = x[s:s + blk]; t = 0.0
        for i, v in enumerate(b):
            p = x[s + i - 1] if s + i > 0 else 0
            y = v - 0.97 * p; t += y * y
        e.append(10 * math.log10(max(t / len(b), 1e-3) / 32768 ** 2))
    srt = sorted(e); thr = max(srt[len(e) // 10] + 10, srt[-1] - 40)
    runs = []
    for i, v in enumerate(e):
        if v >= thr:
            if runs and i - runs[-1][1] <= 1: runs[-1][1] = i + 1
            else: runs.append([i, i + 1])
    k = rate // r
    return [(pad + k * a * blk, pad + k * min(b * blk, len(x))) for a, b in runs if b - a >= 3]

def load(name):
    d = {}
    for line in open(f"{work}/{name}.txt"):
        f, *rs = line.split()
        d[f] = [tuple(map(int, r.split("-"))) for r in rs]
    return d

def inside(a, b):
    return sum(max(0, min(x1, y1) - max(x0, y0)) for x0, x1 in a for y0, y1 in b)

found = {"new": load("new"), "old": load("old")}
refs = {c: reference(f"{work}/{c}.clean.wav") for c in clips}
rows = {}
print(f"{'clip':10} {'room':9} | {'detector':8} {'start err':>9} {'end err':>8} {'recall':>7} {'precision':>9}")
for c in clips:
    ref = refs[c]; speech = sum(b - a for a, b in ref)
    for room in rooms:
        for which in ("old", "new"):
            reg = found[which][f"{work}/{c}.{room}.raw"]
            start = (reg[0][0] - ref[0][0]) / rate if reg else float("nan")
            end = (reg[-1][1] - ref[-1][1]) / rate if reg else float("nan")
            hit = inside(ref, reg); kept = sum(b - a for a, b in reg)
            recall = hit / speech; precision = hit / kept if kept else 0
            rows.setdefault((room, which), []).append((c, start, end, recall, precision, hit, speech, kept))
            label = "main" if which == "old" else "this"
            print(f"{c:10} {room:9} | {label:8} {start:+9.2f} {end:+8.2f} {100*recall:6.1f}% {100*precision:8.1f}%")
print()
print(f"{'room':9} {'detector':8} {'start err (mean, worst)':>24} {'end err (mean, worst)':>22} {'end within 0.35 s':>18} {'recall':>7} {'precision':>9}")
for room in rooms:
    for which in ("old", "new"):
        r = rows[(room, which)]
        s = [x[1] for x in r]; e = [x[2] for x in r]
        ok = sum(1 for x in e if 0 <= x <= 0.35)
        recall = sum(x[5] for x in r) / sum(x[6] for x in r)
        precision = sum(x[5] for x in r) / max(sum(x[7] for x in r), 1)
        label = base if which == "old" else "this"
        print(f"{room:9} {label:8} {sum(s)/len(s):+12.2f} {max(s, key=abs):+10.2f} {sum(e)/len(e):+11.2f} {max(e, key=abs):+9.2f} {ok:>10}/{len(e)} {100*recall:7.1f}% {100*precision:8.1f}%")

# The rows (this tree's detector): the mean end error at pink -55, the recall's range over the
# rooms ("99.6–100 %"); the minus is the typographic one, as the table's other figures.
end = [x[2] for x in rows[("pink-55", "new")]]
recalls = [sum(x[5] for x in rows[(room, "new")]) / sum(x[6] for x in rows[(room, "new")]) for room in rooms]
def percent(x):
    text = f"{100 * x:.1f}"
    return text[:-2] if text.endswith(".0") else text
low, high = percent(min(recalls)), percent(max(recalls))
with open(os.environ["BENCH_ROWS"], "a") as out:
    out.write(f"end\tregion end after the last word, pink −55 dBFS, mean\t{sum(end) / len(end):+.2f} s\t—\t—\t—\n".replace("\t-", "\t−"))
    out.write(f"recall\tspeech recall, every room\t{low if low == high else low + '–' + high} %\t—\t—\t100 %\n")
PY
bench_record

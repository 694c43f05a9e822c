#!/usr/bin/env bash
# Voice activity: the detector's speed, and on real speech padded with room noise,
# how much speech it misses and how much silence it keeps, beside sox's `silence` effect on
# the same files in the same run.
#   - speed: Sources/RecAudio/Audio/VoiceActivity.swift compiled alone with bench/vad-speed.swift
#     (swiftc -O), fed ~10 minutes of speech in memory in 1024-frame periods, at 16 and 48 kHz:
#     the detector and nothing else; then `recnotes info` on the same 10 minutes as a WAV
#     recording (decode + levels + waveform + speech regions), hyperfine;
#   - accuracy: the pocketsphinx-testdata clips (16 kHz s16le) with 3 s before and after, and
#     pink noise at -50 dBFS and a 60 Hz hum at -30 dBFS under all of it (sox); then again
#     without the hum, where a fixed threshold has its best chance. The reference
#     speech of a clip is found in the clean clip by the rule of the unit tests
#     (Tests/RecAudioTests/VoiceActivityTests.swift, SpeechClips.referenceSpeech): pre-emphasis,
#     10 ms blocks within 40 dB of the loudest and 10 dB above the clip's quietest tenth, runs
#     of 30 ms or more. recnotes' regions come from `info --json` of the imported file; sox's
#     from what `silence 1 0.1 T reverse silence 1 0.1 T reverse` leaves (its leading and
#     trailing cuts, measured apart), at T = 1% (the usual recipe), 5% and 10%;
#   - recording: each padded clip played into `record --start-on-voice --stop-on-silence 2s`
#     through ALSA's file plugin (an .asoundrc in the bench's HOME), the file found in the
#     input by its samples (it is bit-exact), measured as kept whole and up to its out point.
# VAD_SKIP_SPEED=1 skips the speed part (e.g. with RECNOTES_BIN set to a debug build).
# Figures go to bench/out/vad.txt; the detector's speed at 48 kHz and the speech missed under
# the hum (recnotes beside sox at T = 5%) go into bench/results/vad.tsv (bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
data=/usr/share/pocketsphinx/test/data
[[ -f $data/goforward.raw ]] || { echo "vad.sh: $data: no clips: run scripts/install-deps.sh" >&2; exit 1; }
bin=${RECNOTES_BIN:-}
if [[ -z $bin ]]; then
  swift build -c release >/dev/null
  bin=$(swift build -c release --show-bin-path)/recnotes
fi
out=$PWD/bench/out
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/recnotes-vad-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work RECNOTES_HOME=$work/store
raw="-t raw -r 16000 -e signed -b 16 -c 1"
clips=(goforward numbers something)

bench_file_device "$work/in.raw"

{
if [[ -z ${VAD_SKIP_SPEED:-} ]]; then
echo "== speed"
# A package name, as SwiftPM gives one: the detector's API is `package`.
swiftc -O -parse-as-library -module-name VadBench -package-name VadBench bench/vad-speed.swift \
  Sources/RecAudio/Audio/VoiceActivity.swift -o "$work/vad-speed"
for c in "${clips[@]}"; do cat "$data/$c.raw"; done > "$work/clips.raw"
for _ in $(seq 60); do cat "$work/clips.raw"; done > "$work/long16.raw"     # 588 s
sox $raw "$work/long16.raw" -r 48000 -t raw -e signed -b 16 "$work/long48.raw"
"$work/vad-speed" "$work/long16.raw" 16000 5
"$work/vad-speed" "$work/long48.raw" 48000 5 | tee "$work/speed48"
# "rate 48000 Hz, 588 s of audio: best of 5 0.197 s, 2992x real time, 3 regions"
bench_row speed "detector speed, 48 kHz mono" "$(sed -E 's/.* ([0-9]+)x real time.*/\1/' "$work/speed48")× real time" "—" "—" "≥ 200×"
sox $raw "$work/long16.raw" -r 48000 "$work/long48.wav"
"$bin" import "$work/long48.wav" --to / --name long48 --format wav >/dev/null
hyperfine -N --warmup 2 --runs 10 --export-json "$out/vad-info.json" "$bin info long48" >/dev/null
python3 - "$out/vad-info.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"recnotes info (decode, levels, waveform, speech) on 588 s at 48 kHz WAV: {r['mean']:.3f} s ± {r['stddev']:.3f}, {588/r['mean']:.0f}x real time")
PY
fi

for room in hum quiet; do
if [[ $room == hum ]]; then
  echo "== accuracy: pink noise at -50 dBFS and a 60 Hz hum at -30 dBFS, 3 s before and after the clip"
else
  echo "== accuracy: pink noise at -50 dBFS only (no hum), 3 s before and after the clip"
fi
rm -rf "$RECNOTES_HOME"
for c in "${clips[@]}"; do
  sox $raw "$data/$c.raw" "$work/$c.clean.wav"
  sox "$work/$c.clean.wav" "$work/$c.placed.wav" pad 3 3
  len=$(soxi -D "$work/$c.placed.wav")
  sox -R -n -r 16000 -c 1 -b 16 "$work/$c.pink.wav" synth "$len" pinknoise
  rms=$(sox "$work/$c.pink.wav" -n stats 2>&1 | awk '/RMS lev dB/ {print $4}')
  gain=$(python3 -c "print(-50 - ($rms))")
  sox "$work/$c.pink.wav" "$work/$c.noise.wav" gain "$gain"
  # -30 dBFS RMS: peak amplitude 10^(-30/20) * sqrt(2).
  hum=0.0447; [[ $room == hum ]] || hum=0
  sox -n -r 16000 -c 1 -b 16 "$work/$c.hum.wav" synth "$len" sine 60 vol $hum
  sox -m -v 1 "$work/$c.placed.wav" -v 1 "$work/$c.noise.wav" -v 1 "$work/$c.hum.wav" "$work/$c.wav"
  "$bin" import "$work/$c.wav" --to / --name "$c" --format wav >/dev/null
  "$bin" info "$c" --json > "$work/$c.info.json"
  sox "$work/$c.wav" -t raw "$work/in.raw"
  "$bin" record "rec-$c" --rate 16000 --format wav --start-on-voice --stop-on-silence 2s >/dev/null
  "$bin" info "rec-$c" --json > "$work/$c.rec.json"
  for t in 1% 5% 10%; do
    sox "$work/$c.wav" "$work/$c.lead.wav" silence 1 0.1 "$t" 2>/dev/null || true
    sox "$work/$c.wav" "$work/$c.trail.wav" reverse silence 1 0.1 "$t" reverse 2>/dev/null || true
    echo "$(soxi -s "$work/$c.wav") $(soxi -s "$work/$c.lead.wav" 2>/dev/null || echo 0) $(soxi -s "$work/$c.trail.wav" 2>/dev/null || echo 0)" > "$work/$c.sox$t"
  done
done
ROOM=$room BENCH_ROWS=$bench_rows python3 - "$work" "${clips[@]}" <<'PY'
import json, math, os, sys, wave, array
work, clips = sys.argv[1], sys.argv[2:]
rate, pad = 16000, 3 * 16000

def reference(path):
    w = wave.open(path); x = array.array("h", w.readframes(w.getnframes()))
    e = []
    for s in range(0, len(x), 160):
        blk = x[s:s + 160]; t = 0.0
        for i, v in enumerate(blk):
            p = x[s + i - 1] if s + i > 0 else 0
            y = v - 0.97 * p; t += y * y
        e.append(10 * math.log10(max(t / len(blk), 1e-3) / 32768 ** 2))
    srt = sorted(e); thr = max(srt[len(e) // 10] + 10, srt[-1] - 40)
    runs = []
    for i, v in enumerate(e):
        if v >= thr:
            if runs and i - runs[-1][1] <= 1: runs[-1][1] = i + 1
            else: runs.append([i, i + 1])
    return [(a * 160, min(b * 160, len(x))) for a, b in runs if b - a >= 3], len(x)

def inside(frames, regions):
    return sum(max(0, min(b, rb) - max(a, ra)) for a, b in frames for ra, rb in regions)

rows = []
tot = {}
for c in clips:
    ref, n = reference(f"{work}/{c}.clean.wav")
    ref = [(a + pad, b + pad) for a, b in ref]
    total = n + 2 * pad
    padding = [(0, pad), (pad + n, total)]
    speech = sum(b - a for a, b in ref); silence = 2 * pad
    info = json.load(open(f"{work}/{c}.info.json"))
    tools = {"recnotes": [(round(a * rate), round(b * rate)) for a, b in info["speech"]]}
    rec = json.load(open(f"{work}/{c}.rec.json"))
    w = wave.open(rec["audioPath"]); got = array.array("h", w.readframes(w.getnframes()))
    w = wave.open(f"{work}/{c}.wav"); src = array.array("h", w.readframes(w.getnframes()))
    probe = got[:400].tobytes(); at = src.tobytes().find(probe) // 2
    assert at >= 0 and src[at:at + len(got)] == got[:len(src) - at], f"{c}: the recording is not the input"
    out = rec["trim"]["outFrame"] if rec["trim"] else len(got)
    tools["record, whole file"] = [(at, at + len(got))]
    tools["record, to out point"] = [(at, at + out)]
    for t in ("1%", "5%", "10%"):
        full, lead, trail = map(int, open(f"{work}/{c}.sox{t}").read().split())
        tools[f"sox silence {t}"] = [(full - lead, trail)] if lead and trail and full - lead < trail else []
    for tool, regions in tools.items():
        missed = speech - inside(ref, regions); kept = inside(padding, regions)
        d = tot.setdefault(tool, [0, 0, 0, 0]); d[0] += missed; d[1] += speech; d[2] += kept; d[3] += silence
        rows.append((c, tool, len(regions), missed / speech, kept / silence))
print(f"{'clip':10} {'tool':20} {'regions':>7} {'speech missed':>14} {'silence kept':>13}")
for c, tool, k, m, s in rows:
    print(f"{c:10} {tool:20} {k:7} {100*m:13.1f}% {100*s:12.1f}%")
for tool, (m, sp, k, si) in tot.items():
    print(f"{'all':10} {tool:20} {'':7} {100*m/sp:13.1f}% {100*k/si:12.1f}%")
if os.environ["ROOM"] == "hum":
    missed = lambda tool: f"{100 * tot[tool][0] / tot[tool][1]:.1f} %"
    with open(os.environ["BENCH_ROWS"], "a") as out:
        out.write(f"missed\tspeech missed, pink noise + 60 Hz hum\t{missed('recnotes')}\tsox (T = 5 %) {missed('sox silence 5%')}\t—\t0 %\n")
PY
done
} | tee "$out/vad.txt"
bench_record

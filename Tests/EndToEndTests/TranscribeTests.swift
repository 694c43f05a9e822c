import Foundation
import RecCore
import RecStore
import RecValues
import Testing

/// `transcribe`, `transcript`, `find --text` over transcripts, and transcripts as document
/// data (trash, removal, fsck), with the built-in engine on real speech and with fake
/// external engines (shell scripts).
@Suite("transcripts: transcribe, transcript, find", .serialized)
struct TranscribeTests {
    static let speech = "/usr/share/pocketsphinx/test/data/goforward.raw"

    /// A fake engine: a shell script in the sandbox.
    func engine(_ cli: Sandbox, _ name: String, _ body: String) throws -> String {
        let path = cli.root + "/" + name
        try Data(("#!/bin/sh\n" + body + "\n").utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    /// Prints a WebVTT transcript with "budget" said at 1.25 s.
    func vttEngine(_ cli: Sandbox) throws -> String {
        try engine(
            cli, "vtt-engine",
            "printf 'WEBVTT\\n\\n00:00.000 --> 00:01.000\\nhello there\\n\\n00:01.250 --> 00:01.900\\nthe budget numbers\\n'"
        )
    }

    func transcripts(_ cli: Sandbox) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cli.store + "/transcripts")) ?? []).sorted()
    }

    /// goforward.raw (16 kHz mono s16, 3.7 s), `repeats` times over, as a WAV file at `path`.
    /// `leading`: s16 samples put before the speech (silence, a quiet room).
    func writeSpeechWAV(_ cli: Sandbox, to path: String, repeats: Int = 1, leading: [Int16] = []) throws {
        let once = try #require(cli.bytes(Self.speech))
        let padding = leading.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        let raw = padding + Array([[UInt8]](repeating: once, count: repeats).joined())
        var wav: [UInt8] = []
        func le(_ value: UInt32, _ count: Int) {
            for i in 0..<count { wav.append(UInt8((value >> (8 * UInt32(i))) & 0xFF)) }
        }
        wav += Array("RIFF".utf8)
        le(UInt32(36 + raw.count), 4)
        wav += Array("WAVE".utf8)
        wav += Array("fmt ".utf8)
        le(16, 4)
        le(1, 2)
        le(1, 2)
        le(16000, 4)
        le(32000, 4)
        le(2, 2)
        le(16, 2)
        wav += Array("data".utf8)
        le(UInt32(raw.count), 4)
        try cli.write(path, wav + raw)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: speech), "needs pocketsphinx-testdata"))
    func findLandsWhereTheWordIsSaid() throws {
        let cli = try Sandbox()
        try writeSpeechWAV(cli, to: cli.root + "/goforward.wav")
        try cli.succeed("import", cli.root + "/goforward.wav", "--format", "flac")
        expectSuccess(try cli.run(["transcribe", "goforward"], environment: ["RECNOTES_TRANSCRIBER": nil]))

        let json = try cli.run("transcript", "goforward", "--format", "json").object()
        #expect(json["engine"] as? String == "pocketsphinx")
        #expect(json["quality"] as? String == "draft")
        let segments = try #require(json["segments"] as? [[String: Any]])
        let words = segments.flatMap { ($0["words"] as? [[String: Any]]) ?? [] }
        // The engine's own time for "forward" is the reference.
        let forward = try #require(words.first { $0["text"] as? String == "forward" }, "\(json)")
        let said = try #require(forward["start"] as? Double)

        let hits = try #require(try cli.run("find", "--text", "FORWARD", "--json").json() as? [[String: Any]])
        #expect(hits.count == 1)
        let time = try #require(hits.first?["time"] as? Double)
        #expect(abs(time - said) <= 0.5, "\(hits)")
        // The name matches too ("goforward"); the transcript's match is the one with a time.
        let match = try #require(
            (hits.first?["matches"] as? [[String: Any]])?.first { $0["field"] as? String == "transcript" }, "\(hits)")
        #expect(abs((match["seconds"] as? Double ?? -1) - time) < 0.001)
        #expect((match["snippet"] as? String)?.contains("forward") == true)

        #expect(try cli.run("transcript", "goforward").stdout.contains("forward"))
        let info = try cli.run("info", "goforward")
        #expect(
            info.stdout.contains("transcript:") && info.stdout.contains("pocketsphinx")
                && info.stdout.contains("draft"), "\(info)")
        let summary = try #require(try cli.run("info", "goforward", "--json").object()["transcript"] as? [String: Any])
        #expect(summary["quality"] as? String == "draft")
        #expect(try cli.run("fsck").status == 0)
    }

    @Test("on a terminal, a bar of the recordings done and which one is being done, redrawn in place")
    func progressOnATerminal() throws {
        let cli = try Sandbox()
        try cli.addWAVRecording("a", in: "/", frames: 48_000)
        try cli.addWAVRecording("b", in: "/", frames: 96_000)
        let engine = try engine(cli, "quick", "echo said something")
        // script(1) runs it on a pseudo-terminal; what the terminal got comes back on stdout.
        let command = [Sandbox.binary, "--store", cli.store, "transcribe", "--all", "--engine", engine]
            .map(Format.shellQuoted).joined(separator: " ")
        let run = try Sandbox.execute(
            "/usr/bin/script", ["-qfec", command, "/dev/null"], environment: cli.baseEnvironment)
        #expect(run.status == 0, "\(run)")
        let screen = run.stdout
        #expect(
            screen.contains("\r\u{1B}[K[>-------------------] 1/2 transcribing /a (00:01)…"),
            "\(screen.debugDescription)")
        #expect(
            screen.contains("\r\u{1B}[K[==========>---------] 2/2 transcribing /b (00:02)…"),
            "\(screen.debugDescription)")
        #expect(
            screen.hasSuffix("\r\u{1B}[Ktranscribed 2 recordings: 4 words in 2 segments (quick)\r\n"),
            "\(screen.debugDescription)")
        // Not at a terminal: no progress line, and the same one line on stdout.
        let piped = try cli.run("transcribe", "--all", "--force", "--engine", engine)
        expectSuccess(piped)
        #expect(piped.stdout == "transcribed 2 recordings: 4 words in 2 segments (quick)\n")
    }

    @Test func aSuccessfulTranscriptionSaysWhatItDidInOneLineUnlessQuiet() throws {
        let cli = try Sandbox()
        try cli.addWAVRecording("talk", in: "/", frames: 96_000)
        try cli.addWAVRecording("other", in: "/", frames: 48_000)
        let vtt = try vttEngine(cli)
        let one = try cli.run("transcribe", "talk", "--engine", vtt)
        expectSuccess(one)
        #expect(one.stdout == "transcribed /talk: 5 words in 2 segments (vtt-engine)\n")
        let both = try cli.run("transcribe", "--all", "--missing", "--engine", vtt)
        expectSuccess(both)
        #expect(both.stdout == "transcribed /other: 5 words in 2 segments (vtt-engine); 1 had a transcript already\n")
        let quiet = try cli.run("transcribe", "--all", "--force", "-q", "--engine", vtt)
        expectSuccess(quiet)
        #expect(quiet.stdout.isEmpty)
        let json = try cli.run("transcribe", "talk", "--force", "--progress", "json", "--engine", vtt)
        #expect(json.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("{") }, "only events: \(json)")
    }

    @Test func anExternalEngineTranscriptFollowsItsRecording() throws {
        let cli = try Sandbox()
        try cli.addWAVRecording("talk", in: "/", frames: 96_000)
        try cli.addWAVRecording("other", in: "/", frames: 96_000)
        let env: [String: String?] = ["RECNOTES_TRANSCRIBER": try vttEngine(cli)]
        let first = try cli.run(["transcribe", "talk", "--progress", "json"], environment: env)
        expectSuccess(first)
        #expect(first.lines.last?.contains("\"event\": \"saved\"") == true, "\(first)")
        #expect(transcripts(cli).count == 2)  // the transcript and its search index

        // Found at the segment's time, the snippet shows what was said.
        let hit = try #require((try cli.run("find", "--text", "budget", "--json").json() as? [[String: Any]])?.first)
        #expect(hit["path"] as? String == "/talk")
        #expect(hit["time"] as? Double == 1.25)
        // Every word must occur somewhere: the name and the transcript together do.
        #expect(try cli.run("find", "--text", "talk numbers").lines == ["/talk"])
        #expect(try cli.run("find", "--text", "budget zebra").lines.isEmpty)

        // Done already: skipped, unless --force.
        let again = try cli.run(["transcribe", "talk"], environment: env)
        #expect(again.status == 0 && again.stderr.contains("has a transcript already"), "\(again)")
        expectSuccess(try cli.run(["transcribe", "--all", "--missing"], environment: env))
        #expect(transcripts(cli).count == 4)
        let forced = try cli.run(
            ["transcribe", "talk", "--force", "--engine", try engine(cli, "text-engine", "echo replaced words")],
            environment: env)
        expectSuccess(forced)
        #expect(try cli.run("transcript", "talk").stdout == "replaced words\n")

        // Trash keeps it, restore brings it back, emptying the trash removes it.
        try cli.succeed("rm", "talk")
        #expect(transcripts(cli).count == 4)
        #expect(try cli.run("fsck").status == 0)
        #expect(try cli.run("find", "--text", "replaced").lines.isEmpty)
        try cli.succeed("trash", "restore", "/talk")
        #expect(try cli.run("find", "--text", "replaced").lines == ["/talk"])
        try cli.succeed("rm", "talk")
        try cli.succeed("trash", "empty", "--yes")
        #expect(transcripts(cli).count == 2)
        #expect(try cli.run("fsck").status == 0)
    }

    @Test func undoTakesATranscriptionBack() throws {
        let cli = try Sandbox()
        try cli.addWAVRecording("talk", in: "/", frames: 96_000)
        expectSuccess(try cli.run(["transcribe", "talk"], environment: ["RECNOTES_TRANSCRIBER": try vttEngine(cli)]))
        expectSuccess(
            try cli.run(
                "transcribe", "talk", "--force", "--engine", try engine(cli, "text-engine", "echo replaced words")))
        let undo = cli.store + "/undo"
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: undo)) ?? []
        #expect(kept.count == 1)
        #expect(try cli.run("fsck").status == 0)
        // A copy no journal entry names is reported, and --repair removes only it.
        try cli.write(undo + "/\(ItemID.random()).1.json", Array("{}".utf8))
        let check = try cli.run("fsck")
        #expect(
            check.status == 1
                && (check.stdout + check.stderr).contains("kept for an undo that the journal no longer has"), "\(check)"
        )
        #expect(try cli.run("fsck", "--repair").status == 0)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: undo)) == kept)

        // A dry run says what it would take back and changes nothing.
        let preview = try cli.run("undo", "--dry-run")
        expectSuccess(preview)
        #expect(
            preview.stdout.hasPrefix("would undo #") && preview.stdout.hasSuffix(": transcribe /talk\n"), "\(preview)")
        #expect(try cli.run("transcript", "talk").stdout == "replaced words\n")

        // The replaced transcript comes back, and find searches it again (its index too).
        let first = try cli.run("undo")
        #expect(first.stdout.hasPrefix("undid #") && first.stdout.hasSuffix(": transcribe /talk\n"), "\(first)")
        #expect(try cli.run("transcript", "talk").stdout.contains("the budget numbers"))
        #expect(
            (try cli.run("find", "--text", "budget", "--json").json() as? [[String: Any]])?.first?["time"] as? Double
                == 1.25)
        #expect(try cli.run("find", "--text", "replaced").lines.isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: undo)) ?? []).isEmpty)

        // Undoing the first transcription leaves the recording without one.
        expectSuccess(try cli.run("undo"))
        expectFailure(try cli.run("transcript", "talk"), status: 1, containing: ["has no transcript"])
        #expect(transcripts(cli).isEmpty)
        #expect(try cli.run("find", "--text", "budget").lines.isEmpty)
        #expect(try cli.run("fsck").status == 0)
    }

    @Test func undoRefusesWhenTheReplacedTranscriptIsGone() throws {
        let cli = try Sandbox()
        try cli.addWAVRecording("talk", in: "/", frames: 96_000)
        let env: [String: String?] = ["RECNOTES_TRANSCRIBER": try vttEngine(cli)]
        expectSuccess(try cli.run(["transcribe", "talk"], environment: env))
        expectSuccess(try cli.run(["transcribe", "talk", "--force"], environment: env))
        let undo = cli.store + "/undo"
        for name in try FileManager.default.contentsOfDirectory(atPath: undo) {
            try FileManager.default.removeItem(atPath: undo + "/" + name)
        }
        let journal = cli.bytes(cli.store + "/journal.jsonl")
        let transcript = try cli.run("transcript", "talk", "--format", "json").stdout
        expectFailure(
            try cli.run("undo"), status: 1, containing: ["cannot undo", "the transcript it replaced is no longer kept"])
        #expect(cli.bytes(cli.store + "/journal.jsonl") == journal)
        #expect(try cli.run("transcript", "talk", "--format", "json").stdout == transcript)
    }

    @Test func exportWritesTheTranscriptBesideTheAudio() throws {
        let cli = try Sandbox()
        try cli.addWAVRecording("talk", in: "/", frames: 96_000)  // 2 s
        let out = cli.root + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).sorted() }

        // No transcript: an error that says what to do, and no audio either.
        expectFailure(
            try cli.run("export", "talk", out + "/talk.flac", "--transcript"), status: 1,
            message: "recnotes: talk: has no transcript; run 'recnotes transcribe talk'")
        #expect(files().isEmpty)
        // Usage errors change nothing.
        expectFailure(try cli.run("export", "talk", out + "/talk.flac", "--transcript-format", "vtt"), status: 64)
        expectFailure(try cli.run("export", "talk", "-", "--transcript"), status: 64)
        expectFailure(try cli.run("export", "talk", "--markers", "cue", out + "/talk.cue", "--transcript"), status: 64)
        expectFailure(
            try cli.run("export", "talk", out + "/talk.flac", "--transcript", "--transcript-format", "doc"), status: 64)
        #expect(files().isEmpty)

        expectSuccess(try cli.run(["transcribe", "talk"], environment: ["RECNOTES_TRANSCRIBER": try vttEngine(cli)]))
        // A directory where the transcript would go: refused before the audio is written.
        try FileManager.default.createDirectory(atPath: out + "/talk.srt", withIntermediateDirectories: true)
        expectFailure(
            try cli.run("export", "talk", out + "/talk.flac", "--transcript"), status: 1,
            message: "recnotes: \(out)/talk.srt: is a directory")
        #expect(files() == ["talk.srt"])
        try FileManager.default.removeItem(atPath: out + "/talk.srt")
        // SRT by default, named after the audio file; what `transcript --format srt` prints.
        expectSuccess(try cli.run("export", "talk", out + "/talk.flac", "--transcript"))
        #expect(files() == ["talk.flac", "talk.srt"])
        let srt = try cli.run("transcript", "talk", "--format", "srt").stdout
        #expect(cli.bytes(out + "/talk.srt").map { String(decoding: $0, as: UTF8.self) } == srt)
        // Several formats; a name without an audio extension keeps it.
        expectSuccess(
            try cli.run(
                "export", "talk", out + "/copy", "--format", "wav", "--transcript",
                "--transcript-format", "vtt", "--transcript-format", "txt"))
        #expect(files() == ["copy", "copy.txt", "copy.vtt", "talk.flac", "talk.srt"])
        #expect(
            cli.bytes(out + "/copy.txt").map { String(decoding: $0, as: UTF8.self) }
                == "hello there\nthe budget numbers\n")

        // Trimmed audio: the transcript is timed from the in point, and what lies before it goes.
        try cli.succeed("trim", "talk", "--in", "1.1", "--out", "2")
        expectSuccess(
            try cli.run("export", "talk", out + "/cut.wav", "--trimmed", "--transcript", "--transcript-format", "vtt"))
        let vtt = try #require(cli.bytes(out + "/cut.vtt").map { String(decoding: $0, as: UTF8.self) })
        #expect(vtt == "WEBVTT\n\n1\n00:00:00.150 --> 00:00:00.800\nthe budget numbers\n", "\(vtt)")
    }

    /// The built-in engine costs nothing to the commands that do not transcribe: the binary
    /// does not link it, and `transcribe` opens it and says so in one line when it cannot.
    @Test func theBuiltInEngineIsOpenedOnlyToTranscribe() throws {
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["-d", Sandbox.binary]
        let pipe = Pipe()
        readelf.standardOutput = pipe
        try readelf.run()
        let dynamic = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        #expect(dynamic.contains("(NEEDED)") && dynamic.contains("libsndfile"), "\(dynamic)")
        #expect(!dynamic.contains("sphinx"), "\(dynamic)")

        let cli = try Sandbox()
        try cli.addWAVRecording("talk", in: "/", frames: 48_000)
        let before = cli.bytes(cli.store + "/store.json")
        let missing = try cli.run(
            ["transcribe", "talk"],
            environment: ["RECNOTES_TRANSCRIBER": nil, "RECNOTES_POCKETSPHINX": cli.root + "/libpocketsphinx.so.3"])
        expectFailure(missing, status: 1, containing: ["cannot load the PocketSphinx library", "libpocketsphinx3"])
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        #expect(cli.bytes(cli.store + "/store.json") == before)
        #expect(transcripts(cli).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    /// What an engine (one that keeps the WAV it was given) hears of a 16 kHz recording that sox
    /// makes from `synth`, enhanced with `enhancement`: as enhanced, then with `--original`.
    private func heardEnhancedAndOriginal(synth: [String], enhancement: String) throws -> (
        enhanced: [Int16], original: [Int16]
    ) {
        let cli = try Sandbox()
        let wav = cli.root + "/made.wav"
        let sox = try Sandbox.execute(
            "/usr/bin/sox", ["-n", "-r", "16000", "-b", "16", wav, "synth"] + synth, environment: [:])
        #expect(sox.status == 0, "\(sox)")
        expectSuccess(try cli.run("import", wav, "--name", "talk", "--format", "wav"))
        expectSuccess(try cli.run("enhance", "talk", enhancement))
        let heard = cli.root + "/heard.wav"
        let copying = try engine(cli, "copying", "cp \"$1\" '\(heard)'; echo some words") + " {wav}"
        expectSuccess(try cli.run("transcribe", "talk", "--engine", copying))
        let enhanced = try AudioCLI.decode(heard)
        expectSuccess(try cli.run("transcribe", "talk", "--force", "--original", "--engine", copying))
        let original = try AudioCLI.decode(heard)
        #expect(enhanced.count == original.count, "frame for frame: times stay the recording's own")
        return (enhanced, original)
    }

    /// A recording enhanced with `level` is transcribed as it plays, levelled; `--original`
    /// gives the engine the audio as it is.
    @Test func anEnhancedRecordingIsTranscribedLevelledAndOriginalAsItIs() throws {
        let (levelled, original) = try heardEnhancedAndOriginal(
            synth: ["2", "sine", "440", "vol", "0.02"], enhancement: "--level")
        func peak(_ samples: [Int16]) -> Int { samples.map { abs(Int($0)) }.max() ?? 0 }
        // About -37 LUFS brought to -16: some 21 dB louder.
        #expect(peak(levelled) > 8 * peak(original), "\(peak(levelled)) vs \(peak(original))")
    }

    /// Denoise on: the engine hears the audio denoised, as it plays.
    @Test func aDenoisedRecordingIsTranscribedDenoised() throws {
        let (denoised, original) = try heardEnhancedAndOriginal(
            synth: ["3", "whitenoise", "vol", "0.05"], enhancement: "--denoise")
        func rms(_ samples: [Int16]) -> Double {
            let tail = samples.dropFirst(16_000)  // after the second the suppressor learns from
            return (tail.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(tail.count, 1))).squareRoot()
        }
        // speexdsp at -20 dB takes a steady noise down by well over 10 dB.
        #expect(rms(denoised) < rms(original) / 3, "\(rms(denoised)) vs \(rms(original))")
    }

    @Test func failuresStoreNothingAndSayWhy() throws {
        let cli = try Sandbox()
        try cli.addWAVRecording("talk", in: "/", frames: 48_000)
        let failing = try engine(cli, "failing", "echo 'model not found' >&2; exit 3")
        let run = try cli.run("transcribe", "talk", "--engine", failing)
        expectFailure(run, status: 1, containing: ["model not found"])
        #expect(transcripts(cli).filter { !$0.hasPrefix(".") }.isEmpty)
        expectFailure(try cli.run("transcript", "talk"), status: 1, containing: ["has no transcript"])
        expectFailure(try cli.run("transcribe"), status: 64)
        expectFailure(try cli.run("transcribe", "--all", "talk"), status: 64)
        expectFailure(try cli.run("transcribe", "--all", "--missing", "--force"), status: 64)
        expectFailure(try cli.run("transcribe", "nothing-here", "--engine", failing), status: 1)
        #expect(try cli.run("fsck").status == 0)
    }

    @Test func fsckReportsAndRepairsTranscripts() throws {
        let cli = try Sandbox()
        let talk = try cli.addWAVRecording("talk", in: "/", frames: 96_000)
        let late = try cli.addWAVRecording("late", in: "/", frames: 48_000)
        let env: [String: String?] = ["RECNOTES_TRANSCRIBER": try vttEngine(cli)]
        expectSuccess(try cli.run(["transcribe", "talk"], environment: env))
        let dir = cli.store + "/transcripts/"
        // An orphan, a transcript past its recording's 1 s end, a lost index, a broken file.
        try cli.write(
            dir + "\(ItemID.random()).json",
            Array(
                "{\"engine\": \"x\", \"model\": \"\", \"created\": \"2026-01-01T00:00:00.000Z\", \"quality\": \"good\", \"segments\": []}\n"
                    .utf8))
        try cli.write(dir + "\(late).json", try #require(cli.bytes(dir + "\(talk).json")))
        try FileManager.default.removeItem(atPath: dir + "\(talk).txt")
        let check = try cli.run("fsck")
        #expect(check.status == 1)
        for fragment in ["belongs to no recording", "past the end of the recording", "search index"] {
            #expect(check.stdout.contains(fragment) || check.stderr.contains(fragment), "\(fragment): \(check)")
        }
        let repair = try cli.run("fsck", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(try cli.run("fsck").status == 0)
        // Cut at the end: the 1.25 s segment of the 1 s recording is gone, and find still works.
        #expect(try cli.run("transcript", "late").stdout == "hello there\n")
        #expect(try cli.run("find", "--text", "budget").lines == ["/talk"])

        try cli.write(dir + "\(talk).json", Array("{\"segments\": [".utf8))
        let broken = try cli.run("fsck")
        #expect(broken.status == 1 && (broken.stdout + broken.stderr).contains("unreadable"), "\(broken)")
        #expect(try cli.run("fsck", "--repair").status == 0)
        #expect(try cli.run("fsck").status == 0)
        expectFailure(try cli.run("transcript", "talk"), status: 1, containing: ["has no transcript"])
    }

    /// `import --transcribe` returns as soon as the import is saved; the detached
    /// transcriber (whose engine here waits for a file the test creates) finishes later.
    @Test func importTranscribesInTheBackgroundWithoutWaiting() throws {
        let cli = try Sandbox()
        try cli.write(cli.root + "/memo.wav", wavBytes(frames: 48_000))
        let gate = cli.root + "/go"
        let waiting = try engine(
            cli, "waiting-engine", "while [ ! -e '\(gate)' ]; do sleep 0.05; done; echo later words")
        let imported = try cli.runBounded(
            ["import", cli.root + "/memo.wav", "--transcribe"], timeout: 60,
            environment: ["RECNOTES_TRANSCRIBER": waiting])
        #expect(imported.status == 0, "\(imported)")
        #expect(try cli.run("ls").lines == ["memo"])
        #expect(transcripts(cli).filter { !$0.hasPrefix(".") }.isEmpty)
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        var waited = 0
        while !transcripts(cli).contains(where: { $0.hasSuffix(".txt") }) && waited < 30_000 {
            usleep(20_000)
            waited += 20
        }
        #expect(try cli.run("find", "--text", "later").lines == ["/memo"])
        expectFailure(try cli.run("record", "--output", cli.root + "/x.wav", "--transcribe"), status: 64)
    }

    /// A run killed (SIGKILL) or stopped (SIGINT) keeps each finished transcript whole,
    /// leaves fsck clean, and `--missing` finishes the job.
    @Test(arguments: [SIGKILL, SIGINT])
    func anInterruptedRunLosesNothing(signal: Int32) throws {
        let cli = try Sandbox()
        for name in ["a", "b", "c", "d"] { try cli.addWAVRecording(name, in: "/", frames: 48_000) }
        let slow = try engine(cli, "slow-engine", "sleep 1; echo said something")
        let run = try cli.spawn(["transcribe", "--all", "--engine", slow])
        // Wait (bounded) for the first transcript, then signal in the middle of the next.
        var waited = 0
        while !transcripts(cli).contains(where: { $0.hasSuffix(".txt") }) && waited < 30_000 {
            usleep(10_000)
            waited += 10
        }
        run.send(signal)
        let (result, signalled, timedOut) = run.finish(timeout: 60)
        #expect(!timedOut)
        if signal == SIGKILL {
            #expect(signalled)
        } else {
            #expect(result.status == 1 && result.stderr.contains("stopped"), "\(result)")
        }
        let saved = transcripts(cli).filter { $0.hasSuffix(".json") }
        #expect(!saved.isEmpty && saved.count < 4, "\(saved)")
        let check = try cli.run("fsck")
        #expect(check.status == 0, "\(check)")
        #expect(try cli.storeItems().filter { $0["type"] as? String == "recording" }.count == 4)
        expectSuccess(
            try cli.run("transcribe", "--all", "--missing", "--engine", try engine(cli, "quick", "echo said something"))
        )
        #expect(transcripts(cli).filter { $0.hasSuffix(".json") }.count == 4)
        #expect(try cli.run("find", "--text", "said").lines.count == 4)
    }

    /// Seconds of silence before the first word (the user thinks before speaking; PulseAudio
    /// delivers zeros at first) do not derail the built-in engine: the same words as the clip
    /// alone, at times moved by the padding, and `find --text` lands there.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: speech), "needs pocketsphinx-testdata"))
    func leadingSilenceGivesTheSameWordsAtTheirTrueTimes() throws {
        let cli = try Sandbox()
        var generator = SystemRandomNumberGenerator()
        let quietRoom = (0..<48_000).map { _ in Int16.random(in: -2...2, using: &generator) }  // about -84 dBFS
        let cases: [(String, [Int16])] = [
            ("clip", []), ("silence", [Int16](repeating: 0, count: 48_000)), ("room", quietRoom),
        ]
        for (name, leading) in cases {
            try writeSpeechWAV(cli, to: cli.root + "/\(name).wav", leading: leading)
            try cli.succeed("import", cli.root + "/\(name).wav", "--format", "flac")
        }
        expectSuccess(try cli.run(["transcribe", "--all"], environment: ["RECNOTES_TRANSCRIBER": nil]))
        func words(_ name: String) throws -> [(text: String, start: Double)] {
            let json = try cli.run("transcript", name, "--format", "json").object()
            let segments = try #require(json["segments"] as? [[String: Any]])
            return segments.flatMap { ($0["words"] as? [[String: Any]]) ?? [] }.map {
                ($0["text"] as? String ?? "", $0["start"] as? Double ?? -1)
            }
        }
        let alone = try words("clip")
        #expect(alone.map(\.text).contains("forward"), "\(alone)")
        for name in ["silence", "room"] {
            let padded = try words(name)
            #expect(padded.map(\.text) == alone.map(\.text), "\(name): \(padded) against \(alone)")
            for (p, a) in zip(padded, alone) { #expect(abs(p.start - (a.start + 3)) <= 0.1, "\(name): \(p) vs \(a)") }
        }
        let hits = try #require(try cli.run("find", "--text", "forward", "--json").json() as? [[String: Any]])
        let hit = try #require(hits.first { $0["path"] as? String == "/silence" }, "\(hits)")
        let time = try #require(hit["time"] as? Double, "\(hit)")
        let forward = try #require(alone.first { $0.text == "forward" })
        #expect(abs(time - (forward.start + 3)) <= 0.1, "\(hits)")
    }

    /// Ctrl-C in the middle of a long recording stops the built-in engine there, not at the
    /// end of the recording: exit 1, and the transcript the recording had stays as it was.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: speech), "needs pocketsphinx-testdata"))
    func ctrlCStopsTheRecordingInProgressAndKeepsItsTranscript() throws {
        let cli = try Sandbox()
        try writeSpeechWAV(cli, to: cli.root + "/long.wav", repeats: 40)  // 2.5 minutes
        try cli.succeed("import", cli.root + "/long.wav", "--name", "talk", "--format", "wav")
        expectSuccess(try cli.run("transcribe", "talk", "--engine", try engine(cli, "old", "echo the old words")))
        let before = try cli.run("transcript", "talk").stdout
        #expect(before.contains("the old words"))
        let run = try cli.spawn(
            ["transcribe", "talk", "--force", "--progress", "json"], environment: ["RECNOTES_TRANSCRIBER": nil])
        // Somewhere in the decoding of 150 s of speech (which takes many seconds here).
        #expect(run.send(SIGINT, after: 2_000_000))
        let (result, _, timedOut) = run.finish(timeout: 120)
        #expect(!timedOut)
        #expect(result.status == 1 && result.stderr.contains("stopped"), "\(result)")
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(!events.contains { $0["event"] as? String == "saved" }, "\(result.stdout)")
        // Progress within the recording: fractions of its audio, rising, never the whole.
        let done = events.filter { $0["event"] as? String == "progress" }.compactMap { $0["done"] as? Double }
        #expect(done == done.sorted() && done.allSatisfy { $0 < 1 }, "\(done)")
        #expect(try cli.run("transcript", "talk").stdout == before)
        #expect(try cli.run("fsck").status == 0)
    }

    /// A transcriber killed outright cannot clean up: its temporary directory stays, and its
    /// engine runs on in a process group of its own. The next run clears both.
    @Test func whatAKilledRunLeftIsClearedByTheNext() throws {
        let cli = try Sandbox()
        for name in ["a", "b"] { try cli.addWAVRecording(name, in: "/", frames: 48_000) }
        let temporary = cli.root + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let hang = cli.root + "/hang"
        // Quick, until the test makes it hang.
        let engine = try engine(cli, "hanging-engine", "if [ -e \(hang) ]; then sleep 300; fi; echo said something")
        try FileManager.default.createDirectory(atPath: hang, withIntermediateDirectories: true)
        func leftovers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).filter {
                $0.hasPrefix("recnotes-transcribe-")
            }
        }
        let run = try cli.spawn(["transcribe", "--all", "--engine", engine], environment: ["TMPDIR": temporary])
        // Bounded wait for the engine to be running (its pid written beside the audio).
        var pidFile: String?
        for _ in 0..<1500 where pidFile == nil {
            pidFile = leftovers().map { temporary + "/" + $0 + "/engine.pid" }.first {
                FileManager.default.fileExists(atPath: $0)
            }
            if pidFile == nil { usleep(20_000) }
        }
        let file = try #require(pidFile, "the engine never started")
        usleep(100_000)
        let written = try #require(cli.bytes(file))
        let enginePID = try #require(Int32(String(decoding: written, as: UTF8.self).split(separator: "\n").first ?? ""))
        run.send(SIGKILL)
        _ = run.finish(timeout: 30)
        #expect(leftovers().count == 1)
        #expect(kill(enginePID, 0) == 0, "the orphaned engine runs on")

        try FileManager.default.removeItem(atPath: hang)
        expectSuccess(
            try cli.run(["transcribe", "--all", "--missing", "--engine", engine], environment: ["TMPDIR": temporary]))
        #expect(leftovers().isEmpty)
        var gone = false
        for _ in 0..<250 where !gone {
            gone = kill(enginePID, 0) != 0
            if !gone { usleep(20_000) }
        }
        #expect(gone, "the next run killed the orphaned engine")
        #expect(try cli.run("fsck").status == 0)
        #expect(transcripts(cli).filter { $0.hasSuffix(".json") }.count == 2)
    }
}

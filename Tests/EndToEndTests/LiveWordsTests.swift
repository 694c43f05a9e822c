import Foundation
import RecCore
import RecSystem
import Testing

/// Live words: `record --transcribe` shows the words while it records and leaves the
/// transcript once saved. Real speech (LibriVox clips from pocketsphinx-testdata) played in
/// real time into a PulseAudio null sink while `record` captures its monitor; the engine is
/// the built-in PocketSphinx, or a slow one of the test's own.
@Suite("Live words while recording", .serialized)
struct LiveWordsTests {
    static let librivox = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-"
    static var pulseInstalled: Bool { AudioPulseLoopbackTests.pulseInstalled }

    /// A store with three clips imported (`long`, 7.1 s; `short`, 3 s; `unheard`, 5.3 s,
    /// "unless to be rather cold hearted and rather selfish …"), a PulseAudio
    /// server, and its devices beside the file devices.
    final class Studio {
        let cli: AudioCLI
        let server: PulseServer

        init() throws {
            cli = try AudioCLI()
            server = try PulseServer(directory: cli.home + "/pa")
            let fileDevices = try String(contentsOfFile: cli.home + "/.asoundrc", encoding: .utf8)
            try (fileDevices + "\n" + server.asoundrc).write(
                toFile: cli.home + "/.asoundrc", atomically: true, encoding: .utf8)
            for (name, clip) in [("long", "0870"), ("short", "0880"), ("unheard", "0890")] {
                let imported = try cli.run("import", LiveWordsTests.librivox + clip + ".wav", "--name", name)
                #expect(imported.status == 0, "\(imported.stderr)")
            }
        }

        deinit { server.stop() }

        /// Runs `record captured --device pulse_monitor --progress json` with `arguments`;
        /// once it has started, `whileRecording` runs (playing speech, killing things), with
        /// each event line read so far available through `events`.
        func record(
            _ arguments: [String], environment: [String: String] = [:],
            whileRecording: (_ pid: pid_t, _ events: () -> [[String: Any]]) throws -> Void
        ) throws -> (status: Int32, events: [[String: Any]], stderr: String) {
            cli.extraEnvironment = environment
            defer { cli.extraEnvironment = [:] }
            let (process, out, err) = cli.process(
                ["record", "captured", "--device", "pulse_monitor", "--format", "wav", "--progress", "json"]
                    + arguments)
            try process.run()
            let errors = DrainedPipe(err)
            let lines = LineCollector(out)
            while !lines.text.contains("\"started\"") && !lines.ended { usleep(10_000) }
            try whileRecording(process.processIdentifier, { lines.events })
            process.waitUntilExit()
            lines.waitForEnd()
            return (process.terminationStatus, lines.events, String(decoding: errors.wait(), as: UTF8.self))
        }

        /// `transcript PATH`'s text, once there is one (the detached finish may take a while).
        func transcript(_ path: String, within seconds: Double = 90) throws -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                let shown = try cli.run("transcript", path)
                if shown.status == 0 && !leftInCache { return shown.stdout }
                usleep(200_000)
            }
            return nil
        }

        /// Whether a transcriber's files are still in the store's cache.
        var leftInCache: Bool {
            !((try? FileManager.default.contentsOfDirectory(atPath: cli.store + "/cache/live")) ?? []).isEmpty
        }

        func play(_ name: String) throws {
            let played = try cli.run("play", name, "--device", "pulse_sink")
            #expect(played.status == 0, "\(played.stderr)")
        }
    }

    /// Reads a child's stdout on a thread of its own, as lines of JSON.
    final class LineCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        private var done = false
        private let finished = DispatchSemaphore(value: 0)

        init(_ pipe: Pipe) {
            let handle = pipe.fileHandleForReading
            DispatchQueue.global().async {
                while case let chunk = handle.availableData, !chunk.isEmpty {
                    self.lock.withLock { self.data.append(chunk) }
                }
                self.lock.withLock { self.done = true }
                self.finished.signal()
            }
        }

        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
        var ended: Bool { lock.withLock { done } }
        var events: [[String: Any]] {
            text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        func waitForEnd() { finished.wait() }
    }

    static func names(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["event"] as? String } }

    static func words(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["event"] as? String == "words" }.compactMap { $0["text"] as? String }
    }

    /// The pids of the live-words transcribers of the store at `store`.
    static func transcribers(of store: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let bytes = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { return nil }
            let words = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return words.contains("--" + LiveWords.workerOption) && words.contains(store) ? pid : nil
        }
    }

    @Test(.enabled(if: pulseInstalled))
    func wordsComeWhileRecordingAndTheTranscriptIsThereOnceSaved() throws {
        let studio = try Studio()
        var statusWords: String?
        let run = try studio.record(["--duration", "14", "--transcribe"]) { _, events in
            try studio.play("long")
            try studio.play("short")
            // Once words have come, `status --json` carries them too.
            let deadline = Date().addingTimeInterval(4)
            while Self.words(events()).isEmpty && Date() < deadline { usleep(50_000) }
            let status = try studio.cli.run("status", "--json")
            let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
            statusWords = (json?["recording"] as? [String: Any])?["words"] as? String
        }
        #expect(run.status == 0, "\(run.stderr)")
        let names = Self.names(run.events)
        let finished = try #require(names.firstIndex(of: "finished"), "\(names)")
        // Heard while recording: words before the end, in the first clip's words.
        let early = Self.words(Array(run.events[..<finished]))
        #expect(!early.isEmpty, "\(names)")
        #expect(early.joined(separator: " ").contains("leisure"), "\(early)")
        let shown = try #require(statusWords)
        #expect(shown.contains("leisure"), "\(shown)")
        // Saved: the whole transcript, found by find --text, and the cache cleared.
        let text = try #require(try studio.transcript("captured"), "no transcript")
        #expect(text.contains("leisure") && text.contains("young man"), "\(text)")
        #expect(try studio.cli.run("find", "--text", "leisure").lines == ["/captured"])
        #expect(!studio.leftInCache)
    }

    /// At a terminal: the words on a line of their own under the live line, redrawn in
    /// place as more come, cut to the terminal's width, dim unless NO_COLOR is set, and kept
    /// when the recording ends.
    @Test(.enabled(if: pulseInstalled), arguments: [true, false])
    func atATerminalTheWordsAreALineUnderTheLiveLine(noColor: Bool) throws {
        let studio = try Studio()
        let width = 50
        var environment = studio.cli.environment
        environment["NO_COLOR"] = noColor ? "1" : nil
        environment["PS1"] = "$ "
        // In a shell, as it is used: the prompt after the recording is the shell's.
        let tmux = try TmuxSession(
            width: width, height: 12, directory: studio.cli.home, environment: environment,
            command: ["/bin/bash", "--norc", "--noprofile", "-i"])
        #expect(tmux.waitUntil { $0.contains("$") }, "\(tmux.screen())")
        try tmux.type(
            "\(AudioCLI.binary) record captured --device pulse_monitor --format wav --duration 14 --transcribe")
        try tmux.send("Enter")
        #expect(tmux.waitFor("●"))
        try studio.play("long")
        try studio.play("short")
        // The live line, then the words' line: "  " and the latest words, within the width.
        func wordsRow(_ lines: [String]) -> Int? {
            guard let live = lines.firstIndex(where: { $0.hasPrefix("●") }), live + 1 < lines.count,
                lines[live + 1].hasPrefix("  "), lines[live + 1].count > 2
            else { return nil }
            return live + 1
        }
        #expect(tmux.waitUntil(timeout: 10) { wordsRow($0) != nil }, "\(tmux.screen())")
        #expect(tmux.waitFor("Saved /captured", timeout: 30))
        let end = tmux.lines()
        let saved = try #require(end.firstIndex { $0.hasPrefix("Saved /captured") })
        #expect(saved >= 2 && wordsRow(end) == saved - 1, "\(end)")
        let words = end[saved - 1]
        #expect(words.count <= width, "\(words)")
        // Long speech: its start was cut, and "…" says so.
        #expect(words.hasPrefix("  …"), "\(end)")
        let dim = "\u{1B}[2m"
        #expect(tmux.lines(styled: true)[saved - 1].contains(dim) == !noColor, "\(tmux.lines(styled: true))")
    }

    @Test(.enabled(if: pulseInstalled))
    func aTranscriberKilledMidRecordingLeavesTheRecordingWholeAndTheTranscriptIsFinishedLater() throws {
        let studio = try Studio()
        let run = try studio.record(["--duration", "9", "--transcribe"]) { _, _ in
            var killed = 0
            let deadline = Date().addingTimeInterval(10)
            while killed == 0 && Date() < deadline {
                for pid in Self.transcribers(of: studio.cli.store) {
                    kill(pid, SIGKILL)
                    killed += 1
                }
                usleep(20_000)
            }
            #expect(killed == 1)
            try studio.play("long")
        }
        #expect(run.status == 0, "\(run.stderr)")
        let finished = try #require(run.events.first { $0["event"] as? String == "finished" })
        #expect(finished["frames"] as? Int == 9 * 48_000)
        let item = try #require(try studio.cli.recordings().first { $0["name"] as? String == "captured" })
        #expect(item["frames"] as? Int == 9 * 48_000)
        let text = try #require(try studio.transcript("captured"), "no transcript")
        #expect(text.contains("leisure"), "\(text)")
    }

    @Test(.enabled(if: pulseInstalled))
    func aSlowTranscriberCostsTheRecordingNothingAndFinishesAfterTheStop() throws {
        let studio = try Studio()
        let slow = studio.cli.home + "/slow-engine"
        try Data("#!/bin/sh\nsleep 3\necho slow words\n".utf8).write(to: URL(fileURLWithPath: slow))
        chmod(slow, 0o755)
        let run = try studio.record(["--duration", "10", "--transcribe"], environment: ["RECNOTES_TRANSCRIBER": slow]) {
            _, _ in
            try studio.play("long")
            try studio.play("short")
        }
        #expect(run.status == 0, "\(run.stderr)")
        let finished = try #require(run.events.first { $0["event"] as? String == "finished" })
        #expect(finished["xruns"] as? Int == 0)
        #expect(finished["overruns"] as? Int == 0)
        let text = try #require(try studio.transcript("captured"), "no transcript")
        #expect(text.contains("slow words"), "\(text)")
    }

    /// Waits until an event named `name` is among `events()`.
    static func waitForEvent(_ name: String, in events: () -> [[String: Any]]) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !names(events()).contains(name) && Date() < deadline { usleep(20_000) }
        return names(events()).contains(name)
    }

    /// The saved transcript's words with their times in the recording, in order.
    func timedWords(_ studio: Studio, _ path: String) throws -> [(word: String, start: Double)] {
        let shown = try studio.cli.run("transcript", path, "--format", "json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let segments = try #require(json["segments"] as? [[String: Any]], "\(shown.stdout)")
        return segments.flatMap { ($0["words"] as? [[String: Any]]) ?? [] }.compactMap { word in
            guard let text = word["text"] as? String, let start = word["start"] as? Double else { return nil }
            return (text.lowercased(), start)
        }
    }

    /// Live words keep to the recording's own time through what shapes it: nothing is
    /// written before the voice, a pause from another shell leaves out what was said
    /// meanwhile, a marker from another shell lands before the words after it, and the
    /// silence at the end stops it.
    @Test(.enabled(if: pulseInstalled))
    func wordsFollowStartOnVoiceAPauseAMarkerAndStopOnSilence() throws {
        let studio = try Studio()
        let run = try studio.record(["--transcribe", "--start-on-voice", "--stop-on-silence", "3"]) { _, events in
            usleep(1_000_000)
            try studio.play("long")
            usleep(300_000)
            #expect(try studio.cli.run("pause").status == 0)
            let paused = Self.waitForEvent("paused", in: events)
            #expect(paused)
            try studio.play("unheard")
            #expect(try studio.cli.run("resume").status == 0)
            let resumed = Self.waitForEvent("resumed", in: events)
            #expect(resumed)
            #expect(try studio.cli.run("mark", "after").status == 0)
            let marked = Self.waitForEvent("marked", in: events)
            #expect(marked)
            try studio.play("short")
        }
        #expect(run.status == 0, "\(run.stderr)")
        let names = Self.names(run.events)
        let finished = try #require(names.firstIndex(of: "finished"), "\(names)")
        #expect(Self.words(Array(run.events[..<finished])).joined(separator: " ").contains("leisure"), "\(names)")
        let text = try #require(try studio.transcript("captured"), "no transcript")
        #expect(text.contains("leisure") && text.contains("young man"), "\(text)")
        #expect(!text.contains("rather"), "said while paused: \(text)")
        let marks = try studio.cli.run("marks", "captured", "--json")
        let marker = try #require(
            (try JSONSerialization.jsonObject(with: Data(marks.stdout.utf8)) as? [[String: Any]])?.first,
            "\(marks.stdout)")
        let markedAt = try #require(marker["seconds"] as? Double)
        let words = try timedWords(studio, "captured")
        let leisure = try #require(words.first { $0.word.contains("leisure") }, "\(words)")
        let young = try #require(words.last { $0.word.contains("young") }, "\(words)")
        // The recording starts with the voice (its pre-roll before it); the first clip's
        // words are before the marker, the last clip's after it.
        #expect(words[0].start < 1.5, "\(words)")
        #expect(leisure.start < markedAt && markedAt < young.start, "marker at \(markedAt): \(words)")
    }

    /// A recording started with --background transcribes live too: `status --json` shows
    /// its words while it runs, and the transcript is saved after it ends.
    @Test(.enabled(if: pulseInstalled))
    func aBackgroundRecordingHasLiveWordsInItsStatus() throws {
        let studio = try Studio()
        let started = try studio.cli.run(
            "record", "captured", "--device", "pulse_monitor", "--format", "wav", "--duration", "12", "--transcribe",
            "--background")
        #expect(started.status == 0, "\(started.stderr)")
        try studio.play("long")
        var shown = ""
        let deadline = Date().addingTimeInterval(8)
        while !shown.contains("leisure") && Date() < deadline {
            let status = try studio.cli.run("status", "--json")
            let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
            shown = (json?["recording"] as? [String: Any])?["words"] as? String ?? ""
            usleep(200_000)
        }
        #expect(shown.contains("leisure"), "\(shown)")
        let text = try #require(try studio.transcript("captured", within: 60), "no transcript")
        #expect(text.contains("leisure"), "\(text)")
    }

    /// `browse` shows another process's recording on its recorder line, and its live words
    /// under it as they come.
    @Test(.enabled(if: pulseInstalled))
    func browseShowsTheWordsOfARecordingInAnotherShell() throws {
        let studio = try Studio()
        let tmux = try TmuxSession(
            width: 80, height: 12, directory: studio.cli.home,
            environment: studio.cli.environment,
            command: [AudioCLI.binary, "browse"])
        #expect(tmux.waitFor("long"), "\(tmux.screen())")
        let started = try studio.cli.run(
            "record", "captured", "--device", "pulse_monitor", "--format", "wav", "--duration", "12", "--transcribe",
            "--background")
        #expect(started.status == 0, "\(started.stderr)")
        #expect(tmux.waitFor("recording in pid"), "\(tmux.screen())")
        try studio.play("long")
        // The latest words: the end of the clip's sentence.
        #expect(tmux.waitFor("in his power", timeout: 8), "\(tmux.screen())")
        let text = try #require(try studio.transcript("captured", within: 60), "no transcript")
        #expect(text.contains("leisure"), "\(text)")
    }

    @Test(.enabled(if: pulseInstalled))
    func aKilledRecorderKeepsTheWordsHeardWithTheRecoveredRecording() throws {
        let studio = try Studio()
        var heard: [String] = []
        let run = try studio.record(["--transcribe"]) { pid, events in
            try studio.play("long")
            try studio.play("short")
            let deadline = Date().addingTimeInterval(10)
            while Self.words(events()).isEmpty && Date() < deadline { usleep(50_000) }
            heard = Self.words(events())
            kill(pid, SIGKILL)
        }
        #expect(run.status != 0)
        let first = try #require(heard.first, "no words before the kill")
        // The next command recovers the recording; the transcriber then saves its words.
        #expect(try studio.cli.run("ls").status == 0)
        let item = try #require(
            try studio.cli.recordings().first { ($0["name"] as? String)?.hasPrefix("captured") == true })
        let path = try #require(item["path"] as? String)
        let text = try #require(try studio.transcript(path), "no transcript")
        #expect(text.contains(first), "\(first) not in \(text)")
    }
}

/// What needs no real time: the default, the option that turns it off, and a recording
/// faster than real time whose words all come after the stop.
@Suite("Live words: switched on and off")
struct LiveWordsSwitchTests {
    static let clip = LiveWordsTests.librivox + "0880.wav"

    /// The clip as the capture device's input, at 48 kHz (each sample three times).
    static func speechInput(_ cli: AudioCLI) throws {
        let data = try #require(FileManager.default.contents(atPath: clip))
        let samples = data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        try cli.writeInput(samples.flatMap { [$0, $0, $0] } + [Int16](repeating: 0, count: 48_000))
    }

    @Test func withoutAnEngineOrWithNoTranscribeARecordingIsMadeAsBefore() throws {
        let cli = try AudioCLI()
        try Self.speechInput(cli)
        for arguments in [["plain"], ["off", "--no-transcribe"], ["both", "--transcribe", "--no-transcribe"]] {
            let made = try cli.run(["record"] + arguments + ["--duration", "2", "--format", "wav"])
            #expect(made.status == 0, "\(made.stderr)")
            #expect(made.stderr.isEmpty, "\(made.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.store + "/cache/live"))
        usleep(500_000)
        #expect(!FileManager.default.fileExists(atPath: cli.store + "/transcripts"))
    }

    /// With Whisper, the transcript saved from the live pieces is made again from the whole
    /// recording once saved, in its place: the last audio the worker decodes is the whole
    /// recording, the transcript is what `transcribe` makes of it, and it is the same act
    /// of transcription (one `undo` takes it back).
    @Test(.enabled(if: WhisperTests.available, "needs the wheels (scripts/install-deps.sh)"))
    func withWhisperTheLiveTranscriptIsMadeAgainFromTheWholeRecording() throws {
        let cli = try AudioCLI()
        try WhisperTests.install(into: cli.store)
        var samples: [Int16] = []
        for clip in ["0870", "0880"] {
            let data = try #require(FileManager.default.contents(atPath: LiveWordsTests.librivox + clip + ".wav"))
            samples += data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            samples += [Int16](repeating: 0, count: 16_000)
        }
        try cli.writeInput(samples.flatMap { [$0, $0, $0] })
        let log = cli.home + "/whisper.log"
        cli.extraEnvironment = ["RECNOTES_TRANSCRIBER": "", "RECNOTES_WHISPER_LOG": log]
        let made = try cli.run("record", "memo", "--duration", "12", "--format", "wav", "--transcribe")
        #expect(made.status == 0, "\(made.stderr)")
        let deadline = Date().addingTimeInterval(120)
        func leftInCache() -> Bool {
            !((try? FileManager.default.contentsOfDirectory(atPath: cli.store + "/cache/live")) ?? []).isEmpty
        }
        while leftInCache() && Date() < deadline { usleep(200_000) }
        #expect(!leftInCache())
        let decoded = (try String(contentsOfFile: log, encoding: .utf8)).split(separator: "\n")
            .compactMap { $0.hasPrefix("decode ") ? Double($0.dropFirst(7)) : nil }
        #expect(decoded.count >= 3, "live pieces, then the whole: \(decoded)")
        #expect(abs((decoded.last ?? 0) - 12) < 0.1, "\(decoded)")
        let remade = try cli.run("transcript", "memo")
        #expect(remade.stdout.contains("dashwood") || remade.stdout.contains("Dashwood"), "\(remade.stdout)")
        #expect(try cli.run("undo").status == 0)
        #expect(try cli.run("transcript", "memo").status != 0, "one undo takes the transcript back")
        #expect(try cli.run("transcribe", "memo", "-q").status == 0)
        #expect(try cli.run("transcript", "memo").stdout == remade.stdout)
    }

    @Test func aRecordingFasterThanRealTimeIsTranscribedOnceSaved() throws {
        let cli = try AudioCLI()
        try Self.speechInput(cli)
        let made = try cli.run("record", "memo", "--duration", "4", "--format", "wav", "--transcribe")
        #expect(made.status == 0, "\(made.stderr)")
        var found: [String] = []
        let deadline = Date().addingTimeInterval(60)
        while found.isEmpty && Date() < deadline {
            found = try cli.run("find", "--text", "young").lines
            if found.isEmpty { usleep(200_000) }
        }
        #expect(found == ["/memo"])
        let shown = try cli.run("transcript", "memo", "--format", "json")
        #expect(shown.stdout.contains("\"words\""), "word times are kept: \(shown.stdout)")
    }
}

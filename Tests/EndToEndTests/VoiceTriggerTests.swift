import Foundation
import RecAudio
import RecCore
import Testing

/// `record --start-on-voice` and `--stop-on-silence` on the file device, with real speech
/// nobody on this project recorded: a pocketsphinx-testdata clip (16 kHz; "something"
/// starts on a fricative, the sound other detectors clip) padded with noise at -50 dBFS.
/// The file device runs faster than real time and delivers silence once its input is
/// over (CaptureExhaustedInputTests), so every run here ends by --duration or by the
/// silence, and everything is measured in frames of the file.
@Suite("record: start on voice, stop on silence")
struct VoiceTriggerTests {
    static let rate = 16_000

    static func clip(_ name: String = "something") throws -> [Int16] {
        let path = "/usr/share/pocketsphinx/test/data/\(name).raw"
        let data = try #require(
            FileManager.default.contents(atPath: path), "\(path) is missing: run scripts/install-deps.sh")
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// `before` and `after` seconds of noise at about -50 dBFS around the clip, and under it.
    static func padded(_ clip: [Int16], before: Double, after: Double) -> (samples: [Int16], clip: Range<Int>) {
        let head = Int(before * Double(rate))
        let tail = Int(after * Double(rate))
        let noise = AudioCLI.noise(frames: head + clip.count + tail, seed: 99).map { $0 / 92 }
        var samples = noise
        for (i, s) in clip.enumerated() { samples[head + i] = Int16(clamping: Int(s) + Int(noise[head + i])) }
        return (samples, head..<(head + clip.count))
    }

    func recorded(_ cli: AudioCLI) throws -> (item: [String: Any], samples: [Int16]) {
        let item = try #require(try cli.recordings().first)
        let file = try #require(item["file"] as? String)
        return (item, try AudioCLI.decode(cli.store + "/audio/" + file))
    }

    @Test("--start-on-voice keeps the first word: the file is the source from the onset less the pre-roll")
    func startOnVoice() throws {
        let cli = try AudioCLI()
        let (input, clip) = Self.padded(try Self.clip(), before: 2, after: 2)
        try cli.writeInput(input)
        let run = try cli.run(
            "record", "v", "--rate", "16000", "--format", "wav", "--start-on-voice", "--duration", "3",
            "--progress", "json")
        #expect(run.status == 0, "\(run.stderr)")
        // The detector on the same frames says where the speech starts (its 250 ms lead-in included).
        let onset = try #require(VoiceActivity.speechRegions(samples: input, sampleRate: Self.rate).first?.lowerBound)
        let start = Int(onset) - Self.rate / 2
        #expect(
            start <= clip.lowerBound, "the file starts at \(start), after the clip's first sample \(clip.lowerBound)")
        #expect(
            start >= clip.lowerBound - Self.rate,
            "the file starts \(clip.lowerBound - start) frames before the clip: not waiting")
        let (_, samples) = try recorded(cli)
        #expect(samples.count == 3 * Self.rate)
        #expect(Bool(samples == Array(input[start..<(start + 3 * Self.rate)])))
        // The NDJSON says it waited, at position 0.
        let waiting = run.lines.filter { $0.contains("\"voice\": \"waiting\"") }
        #expect(!waiting.isEmpty && waiting.allSatisfy { $0.contains("\"frames\": 0,") }, "\(run.stdout.prefix(600))")
        #expect(run.lines.contains { $0.contains("\"voice\": \"listening\"") })
    }

    @Test("--pre-roll 0 starts the file at the detector's onset")
    func preRollZero() throws {
        let cli = try AudioCLI()
        let (input, _) = Self.padded(try Self.clip("goforward"), before: 1.5, after: 1)
        try cli.writeInput(input)
        let run = try cli.run(
            "record", "v", "--rate", "16000", "--format", "wav", "--start-on-voice", "--pre-roll", "0", "--duration",
            "1")
        #expect(run.status == 0, "\(run.stderr)")
        let onset = Int(
            try #require(VoiceActivity.speechRegions(samples: input, sampleRate: Self.rate).first?.lowerBound))
        #expect(Bool(try recorded(cli).samples == Array(input[onset..<(onset + Self.rate)])))
    }

    @Test(
        "--stop-on-silence 2s stops within 2 s + 100 ms of the end of speech; the silence is kept, trimmed by an out point"
    )
    func stopOnSilence() throws {
        let cli = try AudioCLI()
        let (input, clip) = Self.padded(try Self.clip("goforward"), before: 1, after: 6)
        try cli.writeInput(input)
        let run = try cli.run(
            "record", "s", "--rate", "16000", "--format", "wav", "--stop-on-silence", "2s", "--progress", "json")
        #expect(run.status == 0, "\(run.stderr)")
        let (item, samples) = try recorded(cli)
        // Nothing is thrown away: the file is the input from its start.
        #expect(Bool(samples == Array(input.prefix(samples.count))))
        // The end of speech: the detector's last region less its 150 ms post-roll, which is
        // never before the clip's last word (it is inside the clip).
        let region = try #require(VoiceActivity.speechRegions(samples: input, sampleRate: Self.rate).last)
        let speechEnd = Int(region.upperBound) - Self.rate * 15 / 100
        #expect(speechEnd <= clip.upperBound + Self.rate / 10)
        #expect(samples.count >= speechEnd + 2 * Self.rate, "\(samples.count) frames, speech ended at \(speechEnd)")
        #expect(
            samples.count <= speechEnd + 2 * Self.rate + Self.rate / 10,
            "\(samples.count) frames, speech ended at \(speechEnd)")
        // The out point: 0.3 s after the region.
        let trim = try #require(item["trim"] as? [String: Any])
        #expect(trim["inFrame"] as? Int == 0)
        #expect(trim["outFrame"] as? Int == Int(region.upperBound) + Self.rate * 3 / 10)
        #expect(
            run.lines.contains { $0.contains("\"silenceLimitSeconds\": 2") && $0.contains("\"voice\": \"listening\"") })
    }

    /// A LibriVox sentence at 48 kHz with white noise at -63 dBFS (a quiet room)
    /// before (1 s) and after it, not under it; the clip's own pauses are quieter than the room.
    /// Returns the input and where its last word ends (the last 10 ms block of the clip
    /// within 40 dB of its loudest).
    static func quietRoom(after: Double) throws -> (samples: [Int16], lastWord: Int) {
        let path = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"
        let clip16 = try AudioCLI.decode(path)
        var resampler = Resampler(from: 16_000, to: 48_000, channels: 1)
        let floats = clip16.map(Float.init)
        let clip = (floats.withUnsafeBufferPointer { resampler.process($0) } + resampler.finish())
            .map { Int16(max(-32768, min(32767, $0.rounded()))) }
        let blocks = stride(from: 0, to: clip.count - 480, by: 480).map { start in
            clip[start..<(start + 480)].reduce(0.0) { $0 + Double($1) * Double($1) }
        }
        let loudest = blocks.max() ?? 0
        let last = try #require(blocks.lastIndex { $0 >= loudest / 10_000 })
        // AudioCLI.noise is uniform over +-16383 (-10.8 dBFS RMS); / 407 is -63 dBFS.
        let room = { (seconds: Double, seed: UInt64) in
            AudioCLI.noise(frames: Int(seconds * 48_000), seed: seed).map { $0 / 407 }
        }
        // 1 s before: --stop-on-silence counts from the start until someone speaks.
        return (room(1, 5) + clip + room(after, 6), 48_000 + (last + 1) * 480)
    }

    @Test("in a quiet room --stop-on-silence 1.5s stops 1.5 s after the last word, and trim --auto cuts the tail")
    func quietRoom() throws {
        let cli = try AudioCLI()
        let (input, lastWord) = try Self.quietRoom(after: 6)
        try cli.writeInput(input)
        let run = try cli.run("record", "s", "--rate", "48000", "--format", "wav", "--stop-on-silence", "1.5s")
        #expect(run.status == 0, "\(run.stderr)")
        let (item, samples) = try recorded(cli)
        // Stopped 1.5 s after the detector's last active block, which is within 0.2 s of the word's end
        // (on main, 1.5 s after the room's level had been learnt: 2.4 s later).
        // (This "last word" is any block within 40 dB of the loudest: its faint tail, 0.2 s after the
        // detector's last active block here.)
        #expect(samples.count >= lastWord + 72_000 - 14_400, "\(samples.count) frames, last word at \(lastWord)")
        #expect(samples.count <= lastWord + 72_000 + 9_600, "\(samples.count) frames, last word at \(lastWord)")
        // The out point the stop set, and the one trim --auto sets: 0.3 s after the region,
        // which ends within 0.35 s of the last word.
        let stopped = try #require(item["trim"] as? [String: Any])
        let out = try #require(stopped["outFrame"] as? Int)
        #expect(out >= lastWord && out <= lastWord + 16_800 + 14_400, "out point \(out), last word at \(lastWord)")
        let trim = try cli.run("trim", "s", "--auto")
        #expect(trim.status == 0, "\(trim.stderr)")
        let auto = try #require(try cli.recordings().first?["trim"] as? [String: Any])
        let autoOut = try #require(auto["outFrame"] as? Int)
        #expect(
            autoOut >= lastWord && autoOut <= lastWord + 16_800 + 14_400,
            "out point \(autoOut), last word at \(lastWord)")
    }

    @Test(
        "at a terminal the line says 'waiting for voice', then 'silence 00:01 / 00:03'",
        .enabled(if: TerminalKeysTests.scriptInstalled), .timeLimit(.minutes(1)))
    func liveLine() throws {
        let cli = try AudioCLI()
        let quiet = [Int16](repeating: 0, count: 96_000)
        try cli.writeInput(quiet + AudioCLI.tone(frames: 48_000) + quiet)
        let screen = try TerminalKeysTests.Screen(
            cli, ["record", "v", "--format", "wav", "--start-on-voice", "--stop-on-silence", "3"],
            columns: 120)
        #expect(screen.waitFor("waiting for voice"))
        #expect(screen.waitFor("silence 00:01 / 00:03"))
        #expect(screen.waitFor("silence 00:02 / 00:03"))
        #expect(screen.waitFor("Saved /v"))
        let (status, text) = screen.finish()
        #expect(status == 0, "\(text)")
    }

    @Test("--start-on-voice stopped before anyone spoke: nothing is saved, and it says so", .timeLimit(.minutes(1)))
    func noSpeech() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 48_000).map { $0 / 92 })
        // Nothing but quiet noise, then the silence the file device gives after its input:
        // --duration counts the file's frames, so only a signal ends this.
        let stopped = try cli.runUntil(
            "\"waiting\"", thenSend: SIGTERM,
            ["record", "q", "--format", "wav", "--start-on-voice", "--progress", "json"])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr == "recnotes: record: no speech was heard, so nothing was recorded\n")
        #expect(try cli.recordings().isEmpty)
        #expect(cli.audioFiles().isEmpty)
    }

    @Test("bad voice options: one line, exit 64, nothing recorded")
    func badOptions() throws {
        let cli = try AudioCLI()
        try cli.writeInput([Int16](repeating: 0, count: 16_000))
        for arguments in [
            ["--pre-roll", "1"], ["--stop-on-silence", "0"], ["--stop-on-silence", "x"],
            ["--start-on-voice", "--pre-roll", "-1"], ["--start-on-voice", "--silence-threshold", "loud"],
            ["--start-on-voice", "--silence-threshold", "10"], ["--silence-threshold", "-40"],
            ["--output", "-", "--start-on-voice"],
        ] {
            let run = try cli.run(["record", "r", "--duration", "1"] + arguments)
            #expect(run.status == 64, "\(arguments): \(run)")
            #expect(
                run.stderr.hasPrefix("recnotes: ") && run.stderr.split(separator: "\n").count == 1,
                "\(arguments): \(run.stderr)")
        }
        #expect(cli.audioFiles().isEmpty)
    }
}

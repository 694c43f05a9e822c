import Foundation
import RecAudio
import RecCore
import RecValues
import Testing

/// `import`, `export` and `devices` through the built binary, with audio going through real
/// pipes: into recnotes' stdin, out of its stdout, and from one recnotes into another.
@Suite("Pipelines: import, export, devices")
struct PipelineTests {
    // MARK: Helpers (processes come from AudioCLI)

    /// Runs recnotes with `input` written to its stdin through a pipe; stdout is collected
    /// from a pipe as bytes.
    static func run(_ cli: AudioCLI, _ arguments: [String], stdin input: Data? = nil) throws -> (
        status: Int32, stdout: Data, stderr: String
    ) {
        // A recnotes that refuses its input closes the pipe early: a write error, not a SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let (process, out, err) = cli.process(arguments)
        let inPipe = Pipe()
        if input != nil { process.standardInput = inPipe }
        try process.run()
        let errors = DrainedPipe(err)
        if let input {
            let writer = inPipe.fileHandleForWriting
            DispatchQueue.global().async {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data, String(decoding: errors.wait(), as: UTF8.self))
    }

    /// `recnotes A... | recnotes B...`: the first one's stdout is the second one's stdin.
    static func pipeline(_ cli: AudioCLI, _ first: [String], _ second: [String]) throws -> (Int32, Int32, Data, String)
    {
        let (a, _, aErr) = cli.process(first)
        let (b, bOut, bErr) = cli.process(second)
        let pipe = Pipe()
        a.standardOutput = pipe
        b.standardInput = pipe
        try a.run()
        try b.run()
        // Our copies of the pipe's ends must go, or b never sees the end of its input.
        try pipe.fileHandleForWriting.close()
        try pipe.fileHandleForReading.close()
        let aErrors = DrainedPipe(aErr)
        let bErrors = DrainedPipe(bErr)
        let data = bOut.fileHandleForReading.readDataToEndOfFile()
        a.waitUntilExit()
        b.waitUntilExit()
        return (
            a.terminationStatus, b.terminationStatus, data,
            String(decoding: aErrors.wait() + bErrors.wait(), as: UTF8.self)
        )
    }

    /// A file in the test's home directory, written through libsndfile.
    static func writeFile(
        _ cli: AudioCLI, _ name: String, sndfileFormat: Int32, samples: [Int16], rate: Int = 48000, channels: Int = 1
    ) throws -> String {
        let path = cli.home + "/" + name
        let file = try SoundFile.create(path: path, sndfileFormat: sndfileFormat, rate: rate, channels: channels)
        try samples.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: samples.count / channels) }
        try file.close()
        return path
    }

    static func wav(_ cli: AudioCLI, _ name: String, _ samples: [Int16], rate: Int = 48000, channels: Int = 1) throws
        -> String
    {
        try writeFile(
            cli, name, sndfileFormat: AudioFormat.wav.sndfileFormat, samples: samples, rate: rate, channels: channels)
    }

    /// The samples of a 16-bit PCM WAV held in memory (what export writes to a pipe),
    /// checking that its header declares exactly the data that follows.
    static func wavSamples(_ data: Data) throws -> [Int16] {
        let bytes = [UInt8](data)
        try #require(bytes.count >= 44)
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[8..<12]) == Array("WAVE".utf8))
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        #expect(Array(bytes[36..<40]) == Array("data".utf8))
        #expect(u32(40) == bytes.count - 44, "the header declares the data that follows")
        #expect(u32(4) == bytes.count - 8)
        return bytes[44...].withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    static func storeBytes(_ cli: AudioCLI) -> Data? { FileManager.default.contents(atPath: cli.store + "/store.json") }

    static func allAudioFiles(_ cli: AudioCLI) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cli.store + "/audio")) ?? []).sorted()
    }

    // MARK: Round trips

    /// stdin → import (stored as FORMAT) → export to stdout as WAV → samples; and export in
    /// FORMAT itself through a pipe into a second recnotes that keeps the bytes.
    @Test(arguments: AudioFormat.allCases)
    func roundTripThroughPipes(format: AudioFormat) throws {
        let cli = try AudioCLI()
        let frames = 72_000
        let source = format.isLossless ? AudioCLI.noise(frames: frames) : AudioCLI.tone(frames: frames)
        let input = try Data(contentsOf: URL(fileURLWithPath: try Self.wav(cli, "in.wav", source)))
        let imported = try Self.run(
            cli, ["import", "-", "--name", "piped", "--format", format.rawValue, "--json"], stdin: input)
        #expect(imported.status == 0, "\(imported.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: imported.stdout) as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?["format"] as? String == format.rawValue)
        #expect(items.first?["path"] as? String == "/piped")
        #expect(Self.allAudioFiles(cli).count == 1, "the spooled stdin is gone")

        let exported = try Self.run(cli, ["export", "piped", "-"])
        #expect(exported.status == 0, "\(exported.stderr)")
        let decoded = try Self.wavSamples(exported.stdout)
        if format.isLossless {
            #expect(Bool(decoded == source), "\(format) is bit-exact")
        } else {
            #expect(abs(decoded.count - frames) < 4800)
            let snr = AudioComparison.snr(reference: source, decoded: decoded)
            #expect(snr >= 20, "\(format): \(snr) dB")
        }

        // recnotes export --format F - | recnotes import - --keep: the same frames again.
        let (a, b, _, errors) = try Self.pipeline(
            cli, ["export", "piped", "-", "--format", format.rawValue],
            ["import", "-", "--keep", "--name", "again", "--json"])
        #expect(a == 0 && b == 0, "\(errors)")
        let again = try cli.recordings().first { $0["name"] as? String == "again" }
        #expect(again?["format"] as? String == format.rawValue)
        let storedFile = try #require(again?["file"] as? String)
        let redecoded = try AudioCLI.decode(cli.store + "/audio/" + storedFile)
        if format.isLossless {
            #expect(Bool(redecoded == source))
        } else {
            #expect(AudioComparison.snr(reference: source, decoded: redecoded) >= 20)
        }
    }

    @Test func twentyFourBitFLACStaysTwentyFourBit() throws {
        let cli = try AudioCLI()
        // 24-bit samples with all low bits in use.
        var state: UInt64 = 99
        let samples: [Int32] = (0..<48_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int32(truncatingIfNeeded: state >> 32) & ~0xFF
        }
        let path = cli.home + "/hi.flac"
        let file = try SoundFile.create(
            path: path, sndfileFormat: AudioFormat.flac.sndfileFormat(highResolution: true), rate: 96000, channels: 1)
        try samples.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: samples.count) }
        try file.close()
        func decode32(_ path: String) throws -> [Int32] {
            let file = try SoundFile.open(path: path)
            var buffer = [Int32](repeating: 0, count: 100_000)
            let n = try buffer.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, frames: 100_000) }
            return Array(buffer.prefix(n))
        }
        #expect(try cli.run("import", path, "--keep").status == 0)
        #expect(try cli.run("import", path, "--name", "hi-wav", "--format", "wav").status == 0)
        #expect(try cli.run("export", "hi", cli.home + "/out.wav").status == 0)
        #expect(try cli.run("export", "hi-wav", cli.home + "/out.flac").status == 0)
        #expect(Bool(try decode32(cli.home + "/out.wav") == samples))
        #expect(Bool(try decode32(cli.home + "/out.flac") == samples))
        let kept = try #require(try cli.recordings().first { $0["name"] as? String == "hi" })
        #expect(kept["sampleRate"] as? Int == 96000)
        #expect(
            FileManager.default.contents(atPath: cli.store + "/audio/" + (kept["file"] as! String))
                == FileManager.default.contents(atPath: path))
    }

    @Test(arguments: [("s16", 2), ("s32", 4), ("f32", 4)])
    func rawStdinImport(encoding: String, width: Int) throws {
        let cli = try AudioCLI()
        let source = AudioCLI.noise(frames: 24_000, channels: 2)
        var raw = Data()
        for s in source {
            switch encoding {
            case "s16": withUnsafeBytes(of: s.littleEndian) { raw.append(contentsOf: $0) }
            case "s32": withUnsafeBytes(of: (Int32(s) << 16).littleEndian) { raw.append(contentsOf: $0) }
            default: withUnsafeBytes(of: (Float(s) / 32768).bitPattern.littleEndian) { raw.append(contentsOf: $0) }
            }
        }
        #expect(raw.count == source.count * width)
        let result = try Self.run(
            cli,
            [
                "import", "-", "--name", "raw", "--format", "flac", "--rate", "24000", "--channels", "2", "--encoding",
                encoding,
            ], stdin: raw)
        #expect(result.status == 0, "\(result.stderr)")
        let item = try #require(try cli.recordings().first)
        #expect(
            item["sampleRate"] as? Int == 24000 && item["channels"] as? Int == 2 && item["frames"] as? Int == 24_000)
        #expect(Bool(try AudioCLI.decode(cli.store + "/audio/" + (item["file"] as! String)) == source))
        // Raw needs all three options.
        let partial = try Self.run(cli, ["import", "-", "--name", "r2", "--encoding", encoding], stdin: raw)
        #expect(partial.status == 64)
    }

    @Test func opusTargetsResampleAndNamesComeFromFiles() throws {
        let cli = try AudioCLI()
        let stereo = AudioCLI.tone(rate: 44100, frames: 44_100).flatMap { [$0, $0] }
        let aiff = try Self.writeFile(
            cli, "Team Standup.aiff", sndfileFormat: Int32(0x020000 | 0x0002), samples: stereo, rate: 44100, channels: 2
        )
        let result = try cli.run("import", aiff, "--progress", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let events = result.lines.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(events.allSatisfy { $0?["event"] is String }, "every line is an event: \(result.stdout)")
        #expect(events.first??["event"] as? String == "started")
        #expect(events.last??["event"] as? String == "imported")
        #expect(events.contains { $0?["event"] as? String == "finished" })
        let item = try #require(try cli.recordings().first)
        #expect(item["name"] as? String == "Team Standup")
        #expect(item["format"] as? String == "opus")
        #expect(item["sampleRate"] as? Int == 48000 && item["channels"] as? Int == 2)
        #expect(item["frames"] as? Int == 48_000)
        // --keep refuses a container recnotes does not store, before writing anything.
        let before = Self.storeBytes(cli)
        let kept = try cli.run("import", aiff, "--keep", "--name", "k")
        #expect(kept.status == 1)
        #expect(kept.stderr.hasPrefix("recnotes: \(aiff): --keep stores only"))
        #expect(Self.storeBytes(cli) == before)
    }

    // MARK: Failures change nothing

    @Test func unreadableFilesChangeNothing() throws {
        let cli = try AudioCLI()
        let good = try Self.wav(cli, "good.wav", AudioCLI.noise(frames: 48_000))
        let goodFLAC = try Self.writeFile(
            cli, "good.flac", sndfileFormat: AudioFormat.flac.sndfileFormat, samples: AudioCLI.noise(frames: 48_000))
        #expect(try cli.run("import", good, "--name", "existing", "--format", "wav").status == 0)
        let garbage = cli.home + "/garbage.wav"
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: garbage))
        let empty = cli.home + "/empty.flac"
        try Data().write(to: URL(fileURLWithPath: empty))
        func cut(_ path: String, _ name: String) throws -> String {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cli.home + "/" + name))
            return cli.home + "/" + name
        }
        let halfWAV = try cut(good, "half.wav")
        let halfFLAC = try cut(goodFLAC, "half.flac")
        let before = try #require(Self.storeBytes(cli))
        let files = Self.allAudioFiles(cli)
        let cases: [([String], String)] = [
            ([garbage], "recnotes: \(garbage): not an audio format recnotes can read"),
            ([empty], "recnotes: \(empty): "),
            ([halfWAV], "recnotes: \(halfWAV): the file is truncated"),
            ([halfFLAC, "--keep"], "recnotes: \(halfFLAC): "),
            ([cli.home + "/missing.wav"], "recnotes: \(cli.home)/missing.wav: No such file or directory"),
            // All or nothing: a good file before a bad one is not imported either.
            ([good, halfWAV, "--format", "flac"], "recnotes: \(halfWAV): the file is truncated"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(["import"] + arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(Self.storeBytes(cli) == before, "\(arguments) left store.json as it was")
            #expect(Self.allAudioFiles(cli) == files, "\(arguments) left no file in audio/")
        }
        // Garbage on stdin: the spooled copy goes too.
        let piped = try Self.run(cli, ["import", "-", "--name", "x"], stdin: Data(repeating: 0x41, count: 10_000))
        #expect(piped.status == 1)
        #expect(piped.stderr == "recnotes: stdin: not an audio format recnotes can read\n")
        #expect(Self.storeBytes(cli) == before && Self.allAudioFiles(cli) == files)
        // A taken name is refused before any audio is read.
        let taken = try cli.run("import", good, "--name", "existing")
        #expect(taken.status == 1)
        #expect(taken.stderr == "recnotes: /existing: already exists\n")
        #expect(Self.storeBytes(cli) == before && Self.allAudioFiles(cli) == files)
        // Usage errors: --keep with --format, --name with two files.
        #expect(try cli.run("import", good, "--keep", "--format", "flac").status == 64)
        #expect(try cli.run("import", good, goodFLAC, "--name", "n").status == 64)
        #expect(Self.storeBytes(cli) == before)
    }

    // MARK: Export

    @Test func exportToFilesFollowsTheExtensionAndIsAtomic() throws {
        let cli = try AudioCLI()
        let source = AudioCLI.noise(frames: 48_000)
        #expect(try cli.run("import", try Self.wav(cli, "n.wav", source), "--format", "flac").status == 0)
        #expect(try cli.run("export", "n", cli.home + "/copy.wav").status == 0)
        #expect(Bool(try AudioCLI.decode(cli.home + "/copy.wav") == source))
        #expect(try SoundFile.open(path: cli.home + "/copy.wav").audioFormat == .wav)
        #expect(try cli.run("export", "n", cli.home + "/copy.ogg").status == 0)
        #expect(try SoundFile.open(path: cli.home + "/copy.ogg").audioFormat == .vorbis)
        #expect(try cli.run("export", "n", cli.home + "/forced.wav", "--format", "flac").status == 0)
        #expect(try SoundFile.open(path: cli.home + "/forced.wav").audioFormat == .flac)
        let unknown = try cli.run("export", "n", cli.home + "/copy.xyz")
        #expect(unknown.status == 64)
        #expect(!FileManager.default.fileExists(atPath: cli.home + "/copy.xyz"))
        let folder = try cli.run("export", "/", cli.home + "/root.wav")
        #expect(folder.status == 1)
        #expect(folder.stderr == "recnotes: /: is a folder, not a recording\n")
        // Nothing but the finished files: no temporary file is left beside them.
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.home).filter {
            $0.hasPrefix(".") && $0 != ".asoundrc"
        }
        #expect(names.isEmpty, "\(names)")
    }

    @Test func exportProgressGoesToStderrWhenStdoutCarriesAudio() throws {
        let cli = try AudioCLI()
        #expect(
            try cli.run("import", try Self.wav(cli, "t.wav", AudioCLI.tone(frames: 96_000)), "--name", "t").status == 0)
        let result = try Self.run(cli, ["export", "t", "-", "--progress", "json"])
        #expect(result.status == 0)
        #expect(try Self.wavSamples(result.stdout).count == 96_000)
        let lines = result.stderr.split(separator: "\n")
        let events = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(events.map { $0["event"] as? String }.first == "started")
        #expect(events.map { $0["event"] as? String }.last == "finished")
        #expect(events.last?["frames"] as? Int == 96_000)
        // To a file, the events are on stdout.
        let toFile = try cli.run("export", "t", cli.home + "/t.flac", "--progress", "json")
        #expect(toFile.lines.last?.contains("\"event\": \"finished\"") == true, "\(toFile.stdout)")
        #expect(toFile.stderr.isEmpty)
    }

    @Test func exportRefusesATerminal() throws {
        let cli = try AudioCLI()
        #expect(
            try cli.run("import", try Self.wav(cli, "t.wav", AudioCLI.tone(frames: 4800)), "--name", "t").status == 0)
        // script(1) gives the command a pseudo-terminal as stdout; its exit status is the command's.
        for arguments in ["export t -", "export t"] {
            let (process, out, err) = cli.process(["-qec", "\(AudioCLI.binary) \(arguments)", "/dev/null"])
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            try process.run()
            let errors = DrainedPipe(err)
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            _ = errors.wait()
            #expect(process.terminationStatus == 1, "\(arguments): \(text)")
            #expect(text.contains("recnotes: stdout: is a terminal; refusing to write binary audio to it"), "\(text)")
            #expect(!text.contains("RIFF"))
        }
    }

    // MARK: Devices

    @Test func recordWithJSONPrintsTheSavedRecordingLikeEveryMutatingCommand() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 48_000, amplitude: 0.5))
        _ = try cli.run("mkdir", "Memos")
        let result = try cli.run("record", "Memos/standup", "--format", "wav", "--duration", "1", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item["path"] as? String == "/Memos/standup")
        #expect(item["type"] as? String == "recording")
        #expect(item["duration"] as? Double == 1)
        #expect(item["frames"] as? Int == 48_000)
        #expect(item["format"] as? String == "wav")
        #expect(try cli.recordings().first?["uuid"] as? String == item["uuid"] as? String)
        // play has nothing to report; --json there still means the background job only.
        let play = try cli.run("play", "Memos/standup", "--json")
        #expect(play.status == 64)
        #expect(play.stderr == "recnotes: --json: is only for --background; for events use --progress json\n")
    }

    @Test func devicesListsTheTestConfiguration() throws {
        let cli = try AudioCLI(
            asoundrc: """
                pcm.!default {
                  type asym
                  playback.pcm { type file slave.pcm null file "/dev/null" format "raw" }
                  capture.pcm { type file slave.pcm null file "/dev/null" infile "/dev/null" format "raw" }
                }
                pcm.recnotes_test_mic {
                  type file slave.pcm null file "/dev/null" infile "/dev/null" format "raw"
                  hint { show on description "recnotes test microphone" }
                }
                """)
        let result = try cli.run("devices", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        for device in devices {
            #expect(Set(device.keys) == ["name", "description", "capture", "playback", "default"])
            #expect(device["capture"] is Bool && device["playback"] is Bool)
        }
        let byName = Dictionary(devices.map { ($0["name"] as! String, $0) }, uniquingKeysWith: { a, _ in a })
        let defaultDevice = try #require(byName["default"])
        #expect(defaultDevice["capture"] as? Bool == true && defaultDevice["playback"] as? Bool == true)
        let mic = try #require(byName["recnotes_test_mic"])
        #expect(mic["description"] as? String == "recnotes test microphone")
        let text = try cli.run("devices")
        #expect(text.lines.contains { $0.hasPrefix("recnotes_test_mic ") && $0.hasSuffix("recnotes test microphone") })
    }
}

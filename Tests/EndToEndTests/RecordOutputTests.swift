import Foundation
import RecCore
import Testing

/// `record --output`: a recording streamed to another program instead of the store.
@Suite("record --output")
struct RecordOutputTests {
    /// Runs recnotes and returns its stdout as bytes, its stderr as text, and its status.
    func capture(_ cli: AudioCLI, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
        let (process, out, err) = cli.process(arguments)
        try process.run()
        let errors = DrainedPipe(err)
        let bytes = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, bytes, String(decoding: errors.wait(), as: UTF8.self))
    }

    func samples(_ data: Data) -> [Int16] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    @Test("WAV on stdout: a header declaring the length, then the input bit for bit; the store is untouched")
    func wav() throws {
        let cli = try AudioCLI()
        let tone = AudioCLI.tone(frames: 48_000, amplitude: 0.5)
        try cli.writeInput(tone)
        let run = try capture(cli, ["record", "--output", "-", "--duration", "0.5"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.count == 44 + 24_000 * 2)
        #expect(run.stdout.prefix(4) == Data("RIFF".utf8))
        let dataSize = run.stdout[40..<44].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        #expect(UInt32(littleEndian: dataSize) == 48_000)
        #expect(samples(run.stdout.dropFirst(44)) == Array(tone.prefix(24_000)))
        #expect(!FileManager.default.fileExists(atPath: cli.store + "/store.json"))
    }

    @Test("FLAC on stdout decodes to the input bit for bit, with no trailing header rewrite")
    func flac() throws {
        let cli = try AudioCLI()
        let tone = AudioCLI.tone(frames: 48_000, amplitude: 0.5)
        try cli.writeInput(tone)
        let run = try capture(
            cli, ["record", "--output", "-", "--format", "flac", "--duration", "1", "--progress", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let path = cli.home + "/piped.flac"
        try run.stdout.write(to: URL(fileURLWithPath: path))
        #expect(try AudioCLI.decode(path) == tone)
        // Progress moved to stderr, because stdout carries audio.
        let events = run.stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.first?["event"] as? String == "started")
        #expect(events.last?["event"] as? String == "finished")
        #expect(events.last?["frames"] as? Int == 48_000)
    }

    @Test("raw samples with --encoding s16, s32 and f32")
    func raw() throws {
        let cli = try AudioCLI()
        let tone = AudioCLI.tone(frames: 4800, amplitude: 0.5)
        try cli.writeInput(tone)
        let s16 = try capture(cli, ["record", "--output", "-", "--encoding", "s16", "--duration", "0.1"])
        #expect(samples(s16.stdout) == tone)
        let s32 = try capture(cli, ["record", "--output", "-", "--encoding", "s32", "--duration", "0.1"])
        let ints = s32.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        #expect(ints == tone.map { Int32($0) << 16 })
        let f32 = try capture(cli, ["record", "--output", "-", "--encoding", "f32", "--duration", "0.1"])
        let floats = f32.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(floats == tone.map { Float($0) / 32768 })
    }

    @Test(
        "into a real pipe: sox reads the stream",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sox"), "needs sox (make deps installs it)"))
    func pipeIntoSox() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 48_000, amplitude: 0.5))
        let sox = "/usr/bin/sox"
        let script = "'\(AudioCLI.binary)' record --output - --duration 1 | \(sox) -t wav - -n stat 2>&1"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = cli.environment
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("Samples read:             48000"), "\(text)")
    }

    @Test(
        "bad combinations are usage errors that write nothing",
        arguments: [
            (
                ["record", "--output", "-", "--format", "opus", "--duration", "1"],
                "recnotes: --format opus: standard output takes wav, flac, or raw samples with --encoding s16|s32|f32"
            ),
            (["record", "--encoding", "s16", "--duration", "1"], "recnotes: --encoding: goes with --output -"),
            (
                ["record", "--output", "-", "--encoding", "s16", "--format", "wav", "--duration", "1"],
                "recnotes: --encoding s16: raw output has no format; drop --format wav"
            ),
            (
                ["record", "--output", "-", "--background", "--duration", "1"],
                "recnotes: --output: cannot be combined with --background, --log or --json"
            ),
        ])
    func usage(arguments: [String], message: String) throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 4800, amplitude: 0.5))
        let run = try capture(cli, arguments)
        #expect(run.status == 64)
        #expect(run.stderr == message + "\n")
        #expect(run.stdout.isEmpty)
        #expect(cli.audioFiles().isEmpty)
    }
}

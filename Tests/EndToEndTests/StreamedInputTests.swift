import Foundation
import RecAudio
import RecCore
import Testing

/// `import -` with what streaming writers (sox, espeak-ng, ffmpeg) put on a pipe: a header
/// whose length is a placeholder, because they cannot seek back to fix it.
@Suite("Import: streams of unknown length on stdin")
struct StreamedInputTests {
    /// What `program arguments…` writes to its stdout, a pipe (so it cannot seek).
    static func output(of program: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(program) \(arguments)")
        return data
    }

    static func installed(_ program: String) -> Bool {
        ["/usr/bin/", "/usr/local/bin/", "/bin/"].contains {
            FileManager.default.isExecutableFile(atPath: $0 + program)
        }
    }

    /// A 16-bit mono 48 kHz WAV whose RIFF and data sizes are `placeholder`, as a streaming
    /// writer leaves them (ffmpeg: 0xFFFFFFFF; others 0).
    static func streamedWAV(frames: Int, placeholder: UInt32) -> Data {
        var bytes: [UInt8] = []
        func le(_ value: UInt32, _ count: Int) {
            for i in 0..<count { bytes.append(UInt8((value >> (8 * UInt32(i))) & 0xFF)) }
        }
        bytes += Array("RIFF".utf8)
        le(placeholder, 4)
        bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8)
        le(16, 4)
        le(1, 2)
        le(1, 2)
        le(48000, 4)
        le(96000, 4)
        le(2, 2)
        le(16, 2)
        bytes += Array("data".utf8)
        le(placeholder, 4)
        for s in AudioCLI.tone(frames: frames) { le(UInt32(UInt16(bitPattern: s)), 2) }
        return Data(bytes)
    }

    func importStdin(_ cli: AudioCLI, _ data: Data, _ arguments: [String]) throws -> (
        status: Int32, stdout: Data, stderr: String
    ) {
        try PipelineTests.run(cli, ["import", "-"] + arguments, stdin: data)
    }

    @Test func soxStreamsOfUnknownLengthAreReadToTheEnd() throws {
        let cli = try AudioCLI()
        let streams: [(String, [String], Int)] = [
            ("sox-wav16", ["-n", "-b", "16", "-t", "wav", "-", "synth", "3", "sine", "440"], 3 * 48000),
            ("sox-wav-float", ["-n", "-t", "wav", "-", "synth", "3", "sine", "440"], 3 * 48000),
            ("sox-wav24", ["-n", "-b", "24", "-t", "wav", "-", "synth", "1", "sine", "440"], 48000),
            ("sox-flac", ["-n", "-t", "flac", "-", "synth", "2", "sine", "440"], 2 * 48000),
            ("sox-ogg", ["-n", "-t", "ogg", "-", "synth", "2", "sine", "440"], 2 * 48000),
        ]
        for (name, arguments, frames) in streams {
            let data = try Self.output(of: "sox", ["-r", "48000", "-c", "1"] + arguments.dropFirst(0))
            let result = try importStdin(cli, data, ["--name", name, "--format", "flac", "--json"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let item = try #require(try cli.recordings().first { $0["name"] as? String == name }, "\(name)")
            #expect(item["frames"] as? Int == frames, "\(name)")
        }
        #expect(PipelineTests.allAudioFiles(cli).count == streams.count, "no spooled stdin left behind")
    }

    @Test(arguments: [UInt32(0xFFFF_FFFF), 0, 0x7FFF_F000])
    func placeholderLengthsInAWAVHeader(placeholder: UInt32) throws {
        let cli = try AudioCLI()
        let result = try importStdin(
            cli, Self.streamedWAV(frames: 48_000, placeholder: placeholder), ["--name", "s", "--format", "wav"])
        #expect(result.status == 0, "\(result.stderr)")
        let item = try #require(try cli.recordings().first)
        #expect(item["frames"] as? Int == 48_000)
        #expect(
            Bool(
                try AudioCLI.decode(cli.store + "/audio/" + (item["file"] as! String)) == AudioCLI.tone(frames: 48_000))
        )
        // --keep stores the bytes with the length filled in, so the file reads on its own.
        let kept = try importStdin(
            cli, Self.streamedWAV(frames: 48_000, placeholder: placeholder), ["--name", "k", "--keep"])
        #expect(kept.status == 0, "\(kept.stderr)")
        let keptItem = try #require(try cli.recordings().first { $0["name"] as? String == "k" })
        #expect(keptItem["frames"] as? Int == 48_000)
        #expect(try SoundFile.open(path: cli.store + "/audio/" + (keptItem["file"] as! String)).frames == 48_000)
    }

    @Test(.enabled(if: installed("espeak-ng")))
    func espeakOnStdin() throws {
        let cli = try AudioCLI()
        let data = try Self.output(of: "espeak-ng", ["--stdout", "hello"])
        let result = try importStdin(cli, data, ["--name", "esp"])
        #expect(result.status == 0, "\(result.stderr)")
        let item = try #require(try cli.recordings().first)
        #expect((item["duration"] as? Double ?? 0) > 0.3)
    }

    /// The same placeholder in a file (`espeak-ng --stdout > x.wav`): read to its end as on
    /// stdin, and the file itself left as it was.
    @Test(arguments: [UInt32(0xFFFF_FFFF), 0, 0x7FFF_F000])
    func placeholderLengthsInAWAVFile(placeholder: UInt32) throws {
        let cli = try AudioCLI()
        let path = cli.home + "/streamed.wav"
        let bytes = Self.streamedWAV(frames: 48_000, placeholder: placeholder)
        try bytes.write(to: URL(fileURLWithPath: path))
        let result = try cli.run("import", path, "--name", "s", "--format", "wav")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "no salvage said: \(result.stderr)")
        let item = try #require(try cli.recordings().first)
        #expect(item["frames"] as? Int == 48_000)
        #expect(
            Bool(
                try AudioCLI.decode(cli.store + "/audio/" + (item["file"] as! String)) == AudioCLI.tone(frames: 48_000))
        )
        let kept = try cli.run("import", path, "--name", "k", "--keep")
        #expect(kept.status == 0, "\(kept.stderr)")
        let keptItem = try #require(try cli.recordings().first { $0["name"] as? String == "k" })
        #expect(keptItem["frames"] as? Int == 48_000)
        #expect(try SoundFile.open(path: cli.store + "/audio/" + (keptItem["file"] as! String)).frames == 48_000)
        #expect(FileManager.default.contents(atPath: path) == bytes, "the input is not written")
        #expect(PipelineTests.allAudioFiles(cli).count == 2, "no copy left behind")
    }

    @Test(.enabled(if: installed("espeak-ng")))
    func espeakToAFile() throws {
        let cli = try AudioCLI()
        let path = cli.home + "/x.wav"
        let written = try Sandbox.execute(
            "/bin/sh", ["-c", "espeak-ng --stdout 'words of a note' > '\(path)'"],
            environment: ["PATH": "/usr/bin:/bin"])
        try #require(written.status == 0, "\(written)")
        let result = try cli.run("import", path, "--name", "esp", "--format", "wav")
        #expect(result.status == 0, "\(result.stderr)")
        let item = try #require(try cli.recordings().first)
        let data = try #require(FileManager.default.contents(atPath: path))
        // 16-bit mono after a 44-byte header: every byte of the file is audio that came in.
        #expect(item["frames"] as? Int == (data.count - 44) / 2)
        #expect((item["duration"] as? Double ?? 0) > 0.5)
    }

    @Test func aWAVHeaderOnStdinRefusesTheRawOptions() throws {
        let cli = try AudioCLI()
        let data = Self.streamedWAV(frames: 4800, placeholder: 0xFFFF_FFFF)
        let result = try importStdin(
            cli, data, ["--name", "r", "--rate", "48000", "--channels", "1", "--encoding", "s16"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("recnotes: --encoding: stdin starts with a WAV header"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(PipelineTests.allAudioFiles(cli).isEmpty)
        #expect(try cli.recordings().isEmpty)
    }

    @Test func keepAcceptsSoxTwentyFourBitWAVEX() throws {
        let cli = try AudioCLI()
        let path = cli.home + "/hi.wav"
        let data = try Self.output(
            of: "sox", ["-n", "-r", "48000", "-c", "2", "-b", "24", "-t", "wav", "-", "synth", "1", "sine", "440"])
        // Through a file this time: sox writes WAVE_FORMAT_EXTENSIBLE for 24 bits.
        let file = try Self.output(
            of: "sox", ["-n", "-r", "48000", "-c", "2", "-b", "24", path, "synth", "1", "sine", "440"])
        #expect(file.isEmpty)
        let fromFile = try cli.run("import", path, "--keep", "--name", "file")
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let piped = try importStdin(cli, data, ["--keep", "--name", "piped"])
        #expect(piped.status == 0, "\(piped.stderr)")
        let items = try cli.recordings()
        #expect(items.count == 2)
        for item in items {
            #expect(item["format"] as? String == "wav")
            #expect(item["frames"] as? Int == 48_000)
        }
        let kept = try #require(items.first { $0["name"] as? String == "file" })
        #expect(
            FileManager.default.contents(atPath: cli.store + "/audio/" + (kept["file"] as! String))
                == FileManager.default.contents(atPath: path))
    }
}

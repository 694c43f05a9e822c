import Foundation
import RecAudio
import RecCore
import Testing

/// `record`'s arguments: what cannot be recorded is refused before any device or file is
/// opened, and a recording that fails leaves no file behind.
@Suite("Record: impossible combinations are refused up front")
struct RecordArgumentTests {
    func expectRefused(
        _ cli: AudioCLI, _ arguments: [String], _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try cli.run(["record"] + arguments + ["--duration", "1"])
        #expect(result.status == 64, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("recnotes: "), sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(result.stderr.contains(fragment), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        }
        #expect(cli.audioFiles().isEmpty, "\(arguments) left \(cli.audioFiles())", sourceLocation: sourceLocation)
    }

    @Test func ratesAndChannelsTheFormatCannotTakeAreUsageErrors() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 96_000))
        #expect(try cli.run("mkdir", "X").status == 0)
        try expectRefused(
            cli, ["X/c", "--rate", "12345"], ["--rate 12345", "opus takes 8000, 12000, 16000, 24000 or 48000 Hz"])
        try expectRefused(
            cli, ["X/j", "--format", "mp3", "--rate", "96000"],
            ["--rate 96000", "mp3 takes 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100 or 48000 Hz"])
        try expectRefused(
            cli, ["X/k", "--format", "mp3", "--channels", "3"], ["--channels 3", "mp3 takes 1 or 2 channels"])
        try expectRefused(cli, ["X/o", "--format", "opus", "--channels", "9"], ["--channels 9", "between 1 and 8"])
        // The same through --output: no file appears.
        let target = cli.home + "/out.opus"
        let output = try cli.run("record", "--output", target, "--rate", "12345", "--duration", "1")
        #expect(output.status == 64, "\(output.stderr)")
        #expect(output.stderr.contains("opus takes 8000, 12000, 16000, 24000 or 48000 Hz"), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        // What is allowed still records.
        let fine = try cli.run("record", "X/ok", "--format", "mp3", "--rate", "44100", "--duration", "0.5")
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(cli.audioFiles().count == 1)
    }

    @Test func aFileLibsndfileCannotCreateIsRemoved() throws {
        // Straight through the library: whatever sf_open leaves behind on failure goes.
        let directory = NSTemporaryDirectory() + "recnotes-create-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/x.opus"
        #expect(throws: (any Error).self) { try SoundFile.create(path: path, format: .opus, rate: 12345, channels: 1) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func parentsAreCreatedWithDashPAndTheMessageSaysSo() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 96_000))
        let fresh = try cli.run("record", "Ideas/standup", "--duration", "0.2")
        #expect(fresh.status == 1)
        #expect(
            fresh.stderr == "recnotes: Ideas/standup: no such folder: /Ideas (use -p to create it)\n", "\(fresh.stderr)"
        )
        #expect(cli.audioFiles().isEmpty)
        let made = try cli.run("record", "-p", "Ideas/standup", "--duration", "0.2")
        #expect(made.status == 0, "\(made.stderr)")
        let deep = try cli.run("record", "--parents", "Work/2026/", "--duration", "0.2")
        #expect(deep.status == 0, "\(deep.stderr)")
        let found = try cli.run("find", "/", "--type", "recording")
        #expect(found.stdout.contains("/Ideas/standup"), "\(found.stdout)")
        #expect(found.stdout.contains("/Work/2026/Recording "), "\(found.stdout)")

        // import --to: the same, and a failed import creates no folder.
        let wav = try PipelineTests.wav(cli, "n.wav", AudioCLI.tone(frames: 4800))
        let missing = try cli.run("import", wav, "--to", "Inbox/new")
        #expect(missing.status == 1)
        #expect(
            missing.stderr == "recnotes: Inbox/new: no such folder: /Inbox (use -p to create it)\n", "\(missing.stderr)"
        )
        let bad = try cli.run("import", cli.home + "/absent.wav", "--to", "Inbox/new", "-p")
        #expect(bad.status == 1)
        #expect(try cli.run("ls", "/Inbox").status == 1, "a failed import made no folder")
        let imported = try cli.run("import", wav, "--to", "Inbox/new", "-p")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try cli.run("ls", "/Inbox/new/n").status == 0)
    }

    @Test func aStorePathWithOutputIsAUsageError() throws {
        let cli = try AudioCLI()
        let target = cli.home + "/x.wav"
        let result = try cli.run("record", "Ideas/x", "--output", target, "--duration", "0.2")
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "recnotes: Ideas/x: a store PATH cannot go with --output, which writes outside the store\n",
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}

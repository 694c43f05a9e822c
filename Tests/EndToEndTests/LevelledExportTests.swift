import Foundation
import RecTestSupport
import Testing

/// `export --level` and `play --level`: real speech (pocketsphinx-testdata's LibriVox sentences) at two
/// levels, exported at two targets, measured on the written file by ffmpeg's `ebur128` filter
/// (another implementation than the one that levelled it): integrated loudness within 1 LU of
/// the target, true peak at most -1 dBTP, and every frame there. The figures go to the log.
@Suite("export and play --level: loudness target and true-peak limit, measured on the output")
struct LevelledExportTests {
    static let librivox = "/usr/share/pocketsphinx/test/data/librivox"
    static var ready: Bool { FileManager.default.fileExists(atPath: librivox) && FFmpegLoudness.ffmpeg != nil }

    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let finished = try FinishedProgram.run(program, arguments, environment: ProcessInfo.processInfo.environment)
        return (finished.status, String(decoding: finished.stderr, as: UTF8.self))
    }

    /// Three sentences in a row at 48 kHz, scaled by `gain` dB (sox).
    static func speech(_ cli: AudioCLI, gain: Double) throws -> String {
        let files = try FileManager.default.contentsOfDirectory(atPath: librivox).filter { $0.hasSuffix(".wav") }
            .sorted().prefix(3).map { librivox + "/" + $0 }
        let path = cli.home + "/speech\(Int(gain)).wav"
        let sox = try run("/usr/bin/sox", files + ["-r", "48000", path, "gain", "\(gain)"])
        #expect(sox.status == 0, "\(sox.stderr)")
        return path
    }

    @Test(
        .enabled(if: ready, "needs pocketsphinx-testdata and ffmpeg"),
        arguments: [(-12.0, -16.0, "wav"), (6.0, -16.0, "flac"), (-12.0, -23.0, "wav"), (6.0, -23.0, "wav")])
    func reachesTheTarget(gain: Double, target: Double, format: String) throws {
        let cli = try AudioCLI()
        let input = try Self.speech(cli, gain: gain)
        #expect(try cli.run("import", input, "--name", "talk", "--format", "flac").status == 0)
        let before = try FFmpegLoudness.measure(input)
        let out = cli.home + "/out.\(format)"
        let export = try cli.run("export", "talk", out, "--level", "\(target)")
        #expect(export.status == 0, "\(export.stderr)")
        let after = try FFmpegLoudness.measure(out)
        print(
            "export --level \(target), speech at \(before.integrated) LUFS, \(before.truePeak) dBTP → \(format): \(after.integrated) LUFS, \(after.truePeak) dBTP"
        )
        #expect(abs(after.integrated - target) <= 1, "integrated \(after.integrated)")
        #expect(after.truePeak <= -1, "true peak \(after.truePeak)")
        #expect(try AudioCLI.decode(out).count == (try AudioCLI.decode(input)).count, "every frame, no more")
    }

    @Test(.enabled(if: ready, "needs pocketsphinx-testdata and ffmpeg"))
    func trimmedIsMeasuredAsWritten() throws {
        let cli = try AudioCLI()
        let input = try Self.speech(cli, gain: -20)
        #expect(try cli.run("import", input, "--name", "talk", "--format", "flac").status == 0)
        #expect(try cli.run("trim", "talk", "--in", "1", "--out", "6").status == 0)
        let out = cli.home + "/trimmed.wav"
        #expect(try cli.run("export", "talk", out, "--trimmed", "--level", "-16").status == 0)
        let after = try FFmpegLoudness.measure(out)
        print("export --trimmed --level -16: \(after.integrated) LUFS, \(after.truePeak) dBTP")
        #expect(abs(after.integrated - -16) <= 1 && after.truePeak <= -1, "\(after)")
    }

    /// `play --level` on the file device: what was played, measured by ffmpeg as raw samples.
    @Test(
        .enabled(if: ready, "needs pocketsphinx-testdata and ffmpeg"),
        arguments: [(-12.0, nil as Double?), (6.0, nil), (-12.0, -23.0)])
    func playsAtTheTarget(gain: Double, target: Double?) throws {
        let cli = try AudioCLI()
        let input = try Self.speech(cli, gain: gain)
        #expect(try cli.run("import", input, "--name", "talk", "--format", "flac").status == 0)
        // `--level` alone is -16 LUFS.
        let play = try cli.run(["play", "talk", "--level"] + (target.map { ["\($0)"] } ?? []))
        #expect(play.status == 0, "\(play.stderr)")
        let played = cli.output + ".wav"
        let sox = try Self.run(
            "/usr/bin/sox", ["-t", "raw", "-e", "signed", "-b", "16", "-r", "48000", "-c", "1", cli.output, played])
        #expect(sox.status == 0, "\(sox.stderr)")
        let after = try FFmpegLoudness.measure(played)
        let expected = target ?? -16
        print(
            "play --level \(target.map { "\($0)" } ?? "(-16)"), speech at \(gain) dB: \(after.integrated) LUFS, \(after.truePeak) dBTP"
        )
        #expect(abs(after.integrated - expected) <= 1, "integrated \(after.integrated)")
        #expect(after.truePeak <= -1, "true peak \(after.truePeak)")
        #expect(cli.outputSamples().count == (try AudioCLI.decode(input)).count, "every frame, no more")
    }

    /// With a speed, the leveller comes after the stretcher: the stretched audio is levelled,
    /// and its length is the recording's over the speed.
    @Test(.enabled(if: ready, "needs pocketsphinx-testdata and ffmpeg"))
    func levelledAtASpeed() throws {
        let cli = try AudioCLI()
        let input = try Self.speech(cli, gain: -12)
        #expect(try cli.run("import", input, "--name", "talk", "--format", "flac").status == 0)
        let play = try cli.run("play", "talk", "--level", "--speed", "1.5")
        #expect(play.status == 0, "\(play.stderr)")
        let played = cli.output + ".wav"
        _ = try Self.run(
            "/usr/bin/sox", ["-t", "raw", "-e", "signed", "-b", "16", "-r", "48000", "-c", "1", cli.output, played])
        let after = try FFmpegLoudness.measure(played)
        print("play --level --speed 1.5: \(after.integrated) LUFS, \(after.truePeak) dBTP")
        #expect(abs(after.integrated - -16) <= 1 && after.truePeak <= -1, "\(after)")
        let frames = Double(try AudioCLI.decode(input).count)
        #expect(abs(Double(cli.outputSamples().count) - frames / 1.5) <= 2, "\(cli.outputSamples().count)")
    }

    @Test func outOfRangeIsAUsageError() throws {
        let cli = try AudioCLI()
        let run = try cli.run("export", "talk", cli.home + "/x.wav", "--level", "3")
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr == "recnotes: --level: 3.0 LUFS is outside -60 to -5\n", "\(run.stderr)")
    }
}

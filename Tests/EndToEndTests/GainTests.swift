import Foundation
import RecTestSupport
import Testing

/// `export --gain` and `play --gain`: real speech (pocketsphinx-testdata's LibriVox sentences)
/// through the chain, measured on what was written or played: peak and RMS move by the gain,
/// what would pass full scale is clipped (never wrapped), and with `--level` the limiter
/// still holds the true peaks.
@Suite("export and play --gain: the level moves by the gain, clipped at full scale")
struct GainTests {
    static var ready: Bool { LevelledExportTests.ready }

    /// Peak and RMS of 16-bit samples, dBFS.
    static func levels(_ samples: [Int16]) -> (peak: Double, rms: Double) {
        let peak = samples.map { abs(Double($0)) }.max() ?? 0
        let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))
        return (20 * log10(peak / 32768), 10 * log10(power / (32768 * 32768)))
    }

    @Test(.enabled(if: ready, "needs pocketsphinx-testdata and ffmpeg"), arguments: [6.0, -6.0])
    func exportMovesTheLevel(gain: Double) throws {
        let cli = try AudioCLI()
        let input = try LevelledExportTests.speech(cli, gain: -12)
        #expect(try cli.run("import", input, "--name", "talk", "--format", "flac").status == 0)
        let out = cli.home + "/out.wav"
        let export = try cli.run("export", "talk", out, "--gain", "\(gain)")
        #expect(export.status == 0, "\(export.stderr)")
        let source = try AudioCLI.decode(input)
        let written = try AudioCLI.decode(out)
        #expect(written.count == source.count, "every frame, no more")
        let before = Self.levels(source)
        let after = Self.levels(written)
        print("export --gain \(gain): peak \(before.peak) → \(after.peak) dBFS, RMS \(before.rms) → \(after.rms) dBFS")
        #expect(abs(after.peak - before.peak - gain) < 0.05, "peak \(before.peak) → \(after.peak)")
        #expect(abs(after.rms - before.rms - gain) < 0.05, "RMS \(before.rms) → \(after.rms)")
    }

    /// Played on the file device: what the device got, sample for sample the louder input.
    @Test(.enabled(if: ready, "needs pocketsphinx-testdata and ffmpeg"))
    func playMovesTheLevel() throws {
        let cli = try AudioCLI()
        let input = try LevelledExportTests.speech(cli, gain: -12)
        #expect(try cli.run("import", input, "--name", "talk", "--format", "flac").status == 0)
        let play = try cli.run("play", "talk", "--gain", "6")
        #expect(play.status == 0, "\(play.stderr)")
        let source = try AudioCLI.decode(input)
        let played = cli.outputSamples()
        #expect(played.count == source.count, "every frame, no more")
        let before = Self.levels(source)
        let after = Self.levels(played)
        print("play --gain 6: peak \(before.peak) → \(after.peak) dBFS, RMS \(before.rms) → \(after.rms) dBFS")
        #expect(abs(after.peak - before.peak - 6) < 0.05 && abs(after.rms - before.rms - 6) < 0.05, "\(after)")
    }

    /// Alone, a gain that takes speech past full scale clips it there: no sample wraps round
    /// to the other sign, and the loudest are at full scale.
    @Test(.enabled(if: ready, "needs pocketsphinx-testdata and ffmpeg"))
    func pastFullScaleIsClipped() throws {
        let cli = try AudioCLI()
        let input = try LevelledExportTests.speech(cli, gain: 0)
        #expect(try cli.run("import", input, "--name", "talk", "--format", "flac").status == 0)
        let out = cli.home + "/loud.wav"
        #expect(try cli.run("export", "talk", out, "--gain", "20").status == 0)
        let source = try AudioCLI.decode(input)
        let written = try AudioCLI.decode(out)
        #expect(written.count == source.count)
        let wrapped = zip(source, written).filter { ($0 > 0 && $1 < 0) || ($0 < 0 && $1 > 0) }.count
        #expect(wrapped == 0, "\(wrapped) samples changed sign")
        #expect(written.contains(32767) && written.contains(-32768), "the loudest are at full scale")
    }

    /// With `--level`, the gain comes before the limiter: the loudness lands the gain above
    /// the target and the true peaks stay at -1 dBTP (ffmpeg's `ebur128` measures).
    @Test(.enabled(if: ready, "needs pocketsphinx-testdata and ffmpeg"))
    func beforeTheLimiter() throws {
        let cli = try AudioCLI()
        let input = try LevelledExportTests.speech(cli, gain: -12)
        #expect(try cli.run("import", input, "--name", "talk", "--format", "flac").status == 0)
        let out = cli.home + "/levelled.wav"
        let export = try cli.run("export", "talk", out, "--level", "-23", "--gain", "6")
        #expect(export.status == 0, "\(export.stderr)")
        let after = try FFmpegLoudness.measure(out)
        print("export --level -23 --gain 6: \(after.integrated) LUFS, \(after.truePeak) dBTP")
        #expect(abs(after.integrated - -17) <= 1, "integrated \(after.integrated)")
        #expect(after.truePeak <= -1, "true peak \(after.truePeak)")
    }

    @Test func outOfRangeIsAUsageError() throws {
        let cli = try AudioCLI()
        let run = try cli.run("play", "talk", "--gain", "41")
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr == "recnotes: --gain: 41.0 dB is outside -40 to 40\n", "\(run.stderr)")
    }
}

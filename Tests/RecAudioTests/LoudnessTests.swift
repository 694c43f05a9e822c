import Foundation
import RecTestSupport
import Testing

@testable import RecAudio

/// The loudness in every analysis (libebur128) against ffmpeg's `ebur128` filter, an
/// independent implementation of the same standard, on real speech (pocketsphinx-testdata's
/// clips, one after another, with a room's noise and hum under them) at several levels, rates
/// and channel counts. The figures go to the test log.
@Suite("Loudness (EBU R128) against ffmpeg's ebur128")
struct LoudnessTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let gain: Double
        let rate: Int
        let channels: Int
        var testDescription: String { "speech at \(gain) dB, \(rate) Hz, \(channels) channel(s)" }
    }

    /// The three clips in a row, padded with room noise, scaled by `gain` dB, at `rate`, on
    /// `channels` identical channels.
    static func speech(gain: Double, rate: Int, channels: Int) throws -> [Int16] {
        var mono: [Int16] = []
        for name in SpeechClips.names { mono += SpeechClips.padded(try SpeechClips.clip(name), pad: 1).samples }
        let scale = pow(10, gain / 20)
        let scaled = mono.map { Int16(max(-32768, min(32767, (Double($0) * scale).rounded()))) }
        let resampled = SpeechClips.resampled(scaled, to: rate)
        return resampled.flatMap { Array(repeating: $0, count: channels) }
    }

    @Test(
        .enabled(if: FFmpegLoudness.ffmpeg != nil, "needs ffmpeg"),
        .enabled(if: FileManager.default.fileExists(atPath: SpeechClips.directory), "needs pocketsphinx-testdata"),
        arguments: [
            Case(gain: 0, rate: 16000, channels: 1), Case(gain: -12, rate: 16000, channels: 1),
            Case(gain: -24, rate: 48000, channels: 1), Case(gain: -6, rate: 48000, channels: 2),
            Case(gain: 6, rate: 44100, channels: 2),
        ])
    func agreesWithFFmpeg(_ test: Case) throws {
        let scratch = try AudioScratch()
        let path = scratch.path + "/speech.wav"
        let samples = try Self.speech(gain: test.gain, rate: test.rate, channels: test.channels)
        let file = try SoundFile.create(path: path, format: .wav, rate: test.rate, channels: test.channels)
        try samples.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: samples.count / test.channels) }
        try file.close()

        let ours = try #require(try AudioAnalysis.analyze(path: path).loudness)
        let theirs = try FFmpegLoudness.measure(path)
        print(
            "loudness \(test.testDescription): recnotes I \(ours.integrated) LUFS, LRA \(ours.range) LU, TP \(ours.truePeak) dBTP;"
                + " ffmpeg I \(theirs.integrated), LRA \(theirs.range), TP \(theirs.truePeak)")
        // ffmpeg prints one decimal: 0.05 of the tolerance is its rounding.
        #expect(abs(ours.integrated - theirs.integrated) <= 0.5, "integrated")
        #expect(abs(ours.range - theirs.range) <= 0.5, "range")
        #expect(abs(ours.truePeak - theirs.truePeak) <= 0.5, "true peak")
    }

    @Test("silence is below the gate: the figures are finite, for JSON")
    func silence() throws {
        let scratch = try AudioScratch()
        let path = scratch.path + "/silence.wav"
        let file = try SoundFile.create(path: path, format: .wav, rate: 48000, channels: 1)
        let zeros = [Int16](repeating: 0, count: 48000 * 2)
        try zeros.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: zeros.count) }
        try file.close()
        let loudness = try #require(try AudioAnalysis.analyze(path: path).loudness)
        #expect(loudness == Loudness(integrated: Loudness.gate, range: 0, truePeak: Level.floor))
    }
}

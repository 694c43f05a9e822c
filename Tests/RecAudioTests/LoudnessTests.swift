import Foundation
import RecTestSupport
import RecValues
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

    /// A tone at a quarter of the rate, its samples 45° off its crests: every sample is 3 dB
    /// under the peak between them. After a quieter second (which sets a peak to beat), the
    /// stretches that could raise it are interpolated, fed in blocks of any size.
    @Test("the true peak between samples, however the audio is cut into blocks", arguments: [1, 7, 64, 4096])
    func truePeakBetweenSamples(block: Int) {
        let rate = 48000
        let quiet = (0..<rate).map { Int16((9830 * sin(Double($0) * 2 * .pi * 440 / Double(rate))).rounded()) }
        let loud = (0..<rate).map { Int16((0.9 * 32768 * sin(Double($0) * .pi / 2 + .pi / 4)).rounded()) }
        let samples = quiet + loud
        var meter = TruePeakMeter(channels: 1)
        var at = 0
        while at < samples.count {
            let n = min(block, samples.count - at)
            samples.withUnsafeBufferPointer { meter.add($0.baseAddress! + at, frames: n) }
            at += n
        }
        let samplePeak = 20 * log10(Double(loud.map { abs(Int($0)) }.max()!) / 32768)
        let truePeak = 20 * log10(Double(meter.peak))
        print("true peak, blocks of \(block): \(truePeak) dBTP, sample peak \(samplePeak) dBFS")
        #expect(abs(truePeak - 20 * log10(0.9)) <= 0.2, "true peak \(truePeak)")
        #expect(truePeak > samplePeak + 2.5)
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

    /// Every point of a signal, 4× oversampled by the leveller's interpolator, with silence
    /// before and after it: what `TruePeakMeter` must find however it skips.
    static func bruteTruePeak(_ samples: [Int16], channels: Int) -> Float {
        let half = Leveller.half
        let frames = samples.count / channels
        let padded =
            [Float](repeating: 0, count: half * channels) + samples.map { Float($0) * (1 / 32768) }
            + [Float](repeating: 0, count: half * channels)
        var largest = samples.map { abs(Float($0) * (1 / 32768)) }.max() ?? 0
        for p in 0..<frames {
            for c in 0..<channels {
                for taps in Leveller.taps {
                    var sum: Float = 0
                    for (k, w) in taps.enumerated() { sum += w * padded[(p + k) * channels + c] }
                    largest = max(largest, abs(sum))
                }
            }
        }
        return largest
    }

    @Test("the true peak skips only points that cannot raise it: random bursts in random blocks")
    func truePeakSkipsNothingThatCounts() {
        let seed = SeededRandom.seed(20_261_204)
        var rng = SeededRandom(seed: seed)
        print("true peak against every point: seed \(seed) (RECNOTES_TEST_SEED)")
        for round in 0..<60 {
            let channels = Int.random(in: 1...2, using: &rng)
            var samples: [Int16] = []
            // Bursts of tones and noise at levels from silence to full scale, quiet after loud
            // and loud after quiet, with edges where a point can pass both samples beside it.
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let amplitude = [0, 0.01, 0.2, 0.5, 0.9, 1][Int.random(in: 0..<6, using: &rng)]
                let step = Double.random(in: 0.05...3.1, using: &rng)
                let noisy = Bool.random(using: &rng)
                let phase = Double.random(in: 0...6.3, using: &rng)
                for n in 0..<Int.random(in: 1...700, using: &rng) * channels {
                    let x = noisy ? Double.random(in: -1...1, using: &rng) : sin(phase + Double(n / channels) * step)
                    samples.append(Int16(max(-32768, min(32767, (x * amplitude * 32767).rounded()))))
                }
            }
            var meter = TruePeakMeter(channels: channels)
            var at = 0
            let frames = samples.count / channels
            while at < frames {
                let n = min(Int.random(in: 1...300, using: &rng), frames - at)
                samples.withUnsafeBufferPointer { meter.add($0.baseAddress! + at * channels, frames: n) }
                at += n
            }
            let expected = Self.bruteTruePeak(samples, channels: channels)
            #expect(meter.peak == expected, "round \(round): \(meter.peak) against \(expected)")
        }
    }
}

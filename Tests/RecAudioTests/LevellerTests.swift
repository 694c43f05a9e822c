import Foundation
import RecValues
import Testing

@testable import RecAudio

/// The leveller of `export --level`: its gain, and a limiter that holds the gain back only
/// around a peak, measured with the loudness meter (true peak, 4× oversampled).
@Suite("Leveller: gain and look-ahead true-peak limiter")
struct LevellerTests {
    static let rate = 48000

    /// Through the leveller in blocks of 1000 frames, as the exporter feeds it.
    static func levelled(_ input: [Float], gain: Double, channels: Int = 1) -> [Float] {
        let leveller = Leveller(gain: gain, channels: channels, rate: rate)
        var output: [Float] = []
        stride(from: 0, to: input.count, by: 1000 * channels).forEach { start in
            let end = min(start + 1000 * channels, input.count)
            input[start..<end].withUnsafeBufferPointer { leveller.process($0, into: &output) }
        }
        leveller.finish(into: &output)
        return output
    }

    static func truePeak(_ samples: [Float], channels: Int = 1) throws -> Double {
        let meter = try LoudnessMeter(channels: channels, rate: rate)
        let ints = samples.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
        ints.withUnsafeBufferPointer { meter.add($0.baseAddress!, frames: ints.count / channels) }
        return meter.loudness.truePeak
    }

    static func rms(_ samples: ArraySlice<Float>) -> Double {
        10 * log10(samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1)))
    }

    @Test("a quiet tone is raised by the gain, exactly, frame for frame, and nothing is added or lost")
    func gainAlone() {
        let input = (0..<Self.rate).map { Float(0.01 * sin(2 * .pi * 440 * Double($0) / Double(Self.rate))) }
        let output = Self.levelled(input, gain: 20)
        #expect(output.count == input.count)
        for i in stride(from: 0, to: input.count, by: 97) { #expect(abs(output[i] - input[i] * 10) < 1e-5) }
    }

    @Test("a click in a quiet tone is limited to -1 dBTP; the tone around it keeps the full gain", arguments: [1, 2])
    func oneClick(channels: Int) throws {
        // 2 s of a 1 kHz tone at -40 dBFS peak, and a full-scale click at 1 s, +30 dB: the click
        // would reach +30 dBFS, the tone -10 dBFS.
        var input = [Float](repeating: 0, count: 2 * Self.rate * channels)
        for i in 0..<(2 * Self.rate) {
            for c in 0..<channels { input[i * channels + c] = Float(0.01 * sin(2 * .pi * 1000 * Double(i) / 48000)) }
        }
        for c in 0..<channels { input[Self.rate * channels + c] = 1 }
        let output = Self.levelled(input, gain: 30, channels: channels)
        #expect(output.count == input.count)
        let peak = try Self.truePeak(output, channels: channels)
        print("leveller, \(channels) channel(s): click limited to \(peak) dBTP")
        #expect(peak <= -1.0, "true peak \(peak) dBTP")
        // 0.4 s after the click (five times the release) the gain is back within 0.1 dB of
        // the full 30 dB, and 20 ms before it (four times the look-ahead) it has not started
        // coming down: the click costs the tone half a second at most, not the recording.
        let after = (Self.rate + Self.rate * 2 / 5) * channels
        let before = (Self.rate - Self.rate / 50) * channels
        for range in [after..<(after + 4800 * channels), (before - 4800 * channels)..<before] {
            let gained = Self.rms(output[range]) - Self.rms(input[range])
            #expect(abs(gained - 30) < 0.1, "gain \(gained) dB at \(range)")
        }
    }

    @Test("a gain to a target: none for silence")
    func gainToTarget() {
        #expect(Leveller.gain(to: -16, from: Loudness(integrated: -25.5, range: 5, truePeak: -6)) == 9.5)
        #expect(Leveller.gain(to: -16, from: Loudness(integrated: Loudness.gate, range: 0, truePeak: Level.floor)) == 0)
    }
}

import Foundation
import Testing

@testable import RecAudio

@Suite("Transcoding: resampler, stream WAV header, truncation checks")
struct TranscodeTests {
    /// A float tone, interleaved.
    static func tone(_ frequency: Double, rate: Int, frames: Int, channels: Int = 1) -> [Float] {
        (0..<frames * channels).map { Float(0.5 * sin(2 * .pi * frequency * Double($0 / channels) / Double(rate))) }
    }

    static func int16(_ samples: [Float]) -> [Int16] { samples.map { Int16(($0 * 32767).rounded()) } }

    @Test(arguments: [(44100, 48000), (48000, 16000), (22050, 48000), (96000, 48000)])
    func resamplingKeepsLengthAndTone(from: Int, to: Int) throws {
        let channels = 2
        let input = Self.tone(440, rate: from, frames: from, channels: channels)
        var resampler = Resampler(from: from, to: to, channels: channels)
        var output: [Float] = []
        // Uneven chunks, as a decoder hands them over.
        var offset = 0
        for size in [1000, 4096, 17, 8192].cycled(until: input.count / channels) {
            let end = min(offset + size * channels, input.count)
            output += input[offset..<end].withUnsafeBufferPointer { resampler.process($0) }
            offset = end
        }
        output += resampler.finish()
        #expect(output.count == to * channels, "one second in, one second out")
        let expected = Self.tone(440, rate: to, frames: to, channels: channels)
        let left = stride(from: 0, to: output.count, by: channels).map { output[$0] }
        let reference = stride(from: 0, to: expected.count, by: channels).map { expected[$0] }
        // No delay: the best lag is 0 and the match is close.
        let snr = TestSignal.snr(reference: Self.int16(reference), decoded: Self.int16(left), maxLag: 0, skip: to / 20)
        #expect(snr >= 40, "\(from) → \(to): \(snr) dB")
    }

    @Test func streamHeaderDeclaresTheData() {
        let header = WAVStream.header(frames: 1000, rate: 44100, channels: 2, bits: 24)
        #expect(header.count == 44)
        #expect(Array(header[0..<4]) == Array("RIFF".utf8))
        func u32(_ at: Int) -> Int {
            Int(header[at]) | Int(header[at + 1]) << 8 | Int(header[at + 2]) << 16 | Int(header[at + 3]) << 24
        }
        #expect(u32(40) == 1000 * 6)
        #expect(u32(4) == 36 + 6000)
        #expect(u32(24) == 44100 && u32(28) == 44100 * 6)
    }
}

extension Array where Element == Int {
    /// Repeats the sizes until they add up to at least `total`.
    fileprivate func cycled(until total: Int) -> [Int] {
        var result: [Int] = []
        var sum = 0
        while sum < total {
            for size in self where sum < total {
                result.append(size)
                sum += size
            }
        }
        return result
    }
}

import Foundation
import RecTestSupport

@testable import RecAudio

/// Known signals and the file-plugin devices the engine tests run against: the real ALSA
/// API, with devices defined in a local configuration (no sound card, no mocks). The file
/// devices run faster than real time, so everything is counted in frames.
enum TestSignal {
    /// A sine tone as interleaved s16 (the same value on every channel).
    static func tone(
        frequency: Double = 440, rate: Int = 48000, channels: Int = 1, frames: Int,
        amplitude: Double = 0.5
    ) -> [Int16] {
        var samples = [Int16](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let value = Int16((sin(2 * .pi * frequency * Double(i) / Double(rate)) * amplitude * 32767).rounded())
            for c in 0..<channels { samples[i * channels + c] = value }
        }
        return samples
    }

    /// A deterministic pseudo-random signal: every sample differs, so an off-by-one shows.
    static func noise(frames: Int, channels: Int = 1, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [Int16] {
        var state = seed
        return (0..<frames * channels).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int16(truncatingIfNeeded: state >> 48) / 2
        }
    }

    static func bytes(_ samples: [Int16]) -> Data {
        samples.withUnsafeBufferPointer { Data(buffer: $0) }
    }

    static func samples(_ data: Data) -> [Int16] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The codec-delay-aligned SNR, as RecCore measures it for benchmarks too.
    static func snr(reference: [Int16], decoded: [Int16], maxLag: Int = 4000, skip: Int = 4800) -> Double {
        AudioComparison.snr(reference: reference, decoded: decoded, maxLag: maxLag, skip: skip)
    }
}

/// A temporary directory with an input signal and ALSA devices reading from / writing to
/// files in it, defined as local configuration text for `PCM(configuration:)`.
final class AudioScratch {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "recnotes-audio-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var input: String { path + "/in.raw" }
    var output: String { path + "/out.raw" }

    func writeInput(_ samples: [Int16]) throws {
        try TestSignal.bytes(samples).write(to: URL(fileURLWithPath: input))
    }

    func outputSamples() -> [Int16] {
        (FileManager.default.contents(atPath: output)).map(TestSignal.samples) ?? []
    }

    /// `capture` reads `in.raw`; `playback` writes `out.raw`.
    var configuration: String {
        """
        pcm.capture { type file slave.pcm { type null } file "/dev/null" infile "\(input)" format "raw" }
        pcm.playback { type file slave.pcm { type null } file "\(output)" format "raw" }
        """
    }
}

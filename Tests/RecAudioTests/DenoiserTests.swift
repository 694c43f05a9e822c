import RecTestSupport
import Testing

@testable import RecAudio

/// The suppressor's framing (speexdsp itself is measured end to end in DenoiseTests): frame
/// sizes at any rate, every frame given back whatever the blocks fed, channels kept apart.
@Suite("Denoiser: framing, lengths and channels")
struct DenoiserTests {
    @Test(arguments: [(48_000, 960), (44_100, 864), (16_000, 320), (22_050, 432), (8_000, 160), (96_000, 1920)])
    func frameSizes(rate: Int, frame: Int) {
        #expect(Denoiser.frameSize(rate: rate) == frame)
    }

    static func noise(_ count: Int, seed: UInt64) -> [Int16] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { _ in Int16.random(in: -3000...3000, using: &rng) }
    }

    /// Fed in blocks of any size, the output is the same samples as fed at once, and as many.
    @Test func blocksOfAnySizeGiveTheSameFrames() throws {
        let seed = SeededRandom.seed(7)
        let input = Self.noise(48_000 + 123, seed: seed)
        var whole: [Int16] = []
        let once = try Denoiser(rate: 48_000, channels: 1)
        input.withUnsafeBufferPointer { once.process($0, finishing: true, into: &whole) }
        var rng = SeededRandom(seed: seed)
        let denoiser = try Denoiser(rate: 48_000, channels: 1)
        var pieces: [Int16] = []
        var at = 0
        while at < input.count {
            let n = min(Int.random(in: 1...3000, using: &rng), input.count - at)
            input[at..<(at + n)].withUnsafeBufferPointer { denoiser.process($0, into: &pieces) }
            at += n
        }
        denoiser.finish(into: &pieces)
        #expect(whole.count == input.count, "seed \(seed)")
        #expect(pieces == whole, "seed \(seed)")
    }

    /// Stereo: a silent channel stays silent beside a noisy one; frames stay whole.
    @Test func channelsAreApart() throws {
        let noise = Self.noise(20_000, seed: SeededRandom.seed(8))
        let stereo: [Int16] = noise.flatMap { [$0, 0] }
        var out: [Int16] = []
        let denoiser = try Denoiser(rate: 16_000, channels: 2)
        stereo.withUnsafeBufferPointer { denoiser.process($0, finishing: true, into: &out) }
        #expect(out.count == stereo.count)
        #expect(stride(from: 1, to: out.count, by: 2).allSatisfy { out[$0] == 0 })
        #expect(stride(from: 0, to: out.count, by: 2).contains { out[$0] != 0 })
    }
}

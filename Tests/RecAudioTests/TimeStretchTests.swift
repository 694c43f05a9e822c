import Foundation
import RecValues
import Testing

@testable import RecAudio

/// The stretcher alone, through the real SoundTouch library: lengths, where the
/// output starts, and a speed changed while it runs.
@Suite("TimeStretch: SoundTouch's tempo, exact lengths, speed changes without a click")
struct TimeStretchTests {
    static let rate = 48_000
    static let installed = FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libSoundTouchDll.so.1")

    /// Two tones together (not one: a lone sine lines up with itself too easily), interleaved.
    static func chord(frames: Int, channels: Int = 1, from start: Int = 0) -> [Float] {
        (0..<frames * channels).map {
            let t = Double(start + $0 / channels) / Double(rate)
            return Float(0.3 * sin(2 * .pi * 440 * t) + 0.2 * sin(2 * .pi * 587 * t))
        }
    }

    /// The largest step between neighbouring samples of one channel.
    static func largestJump(_ samples: [Float], channels: Int = 1, channel: Int = 0) -> Float {
        var largest: Float = 0
        var i = channel + channels
        while i < samples.count {
            largest = max(largest, abs(samples[i] - samples[i - channels]))
            i += channels
        }
        return largest
    }

    @Test(.enabled(if: installed), arguments: [0.5, 1.5, 2, 3.5])
    func nFramesInMakeNOverSpeedOut(speed: Double) throws {
        let stretch = try TimeStretch(rate: Self.rate, channels: 2, speed: PlaybackSpeed(factor: speed)!)
        let input = Self.chord(frames: Self.rate, channels: 2)
        var output: [Float] = []
        // Uneven pieces, as a decoder hands them over.
        var offset = 0
        for size in [1000, 4096, 17, 9000] where offset < input.count {
            let end = min(offset + size * 2, input.count)
            input[offset..<end].withUnsafeBufferPointer {
                stretch.process($0.baseAddress!, frames: $0.count / 2, into: &output)
            }
            offset = end
        }
        input[offset...].withUnsafeBufferPointer {
            stretch.process($0.baseAddress!, frames: $0.count / 2, final: true, into: &output)
        }
        #expect(output.count == Int((Double(Self.rate) / speed).rounded()) * 2)
    }

    /// Output starts where the input does: a tone after half a second of silence begins
    /// half a second / speed into the output (SoundTouch's start latency is not in it: about
    /// 100 ms), to within what WSOLA moves a sound: inside one of its sequences time runs at
    /// 1×, so at 0.5× an onset late in a 90 ms sequence comes out up to ~45 ms early.
    @Test(.enabled(if: installed), arguments: [0.5, 1.5, 2])
    func theOutputStartsWhereTheInputDoes(speed: Double) throws {
        let stretch = try TimeStretch(rate: Self.rate, channels: 1, speed: PlaybackSpeed(factor: speed)!)
        let silence = Self.rate / 2
        let input: [Int16] =
            Array(repeating: 0, count: silence) + Self.chord(frames: Self.rate, from: silence).map { Int16($0 * 32767) }
        var output: [Int16] = []
        input.withUnsafeBufferPointer { stretch.process($0.baseAddress!, frames: $0.count, final: true, into: &output) }
        let onset = try #require(output.firstIndex { abs($0) > 1000 })
        let expected = Double(silence) / speed
        #expect(abs(Double(onset) - expected) <= Double(Self.rate) * 0.06, "onset at \(onset), not \(expected)")
        #expect(output.count == Int((Double(input.count) / speed).rounded()))
    }

    /// A speed changed in the middle of playback (`change(to:)`, as the player's keys will)
    /// has no click and no gap: the largest step between neighbouring samples stays within
    /// the input's own, and every 10 ms of the output keeps the input's loudness.
    @Test(.enabled(if: installed))
    func aSpeedChangeMidStreamHasNoClickAndNoGap() throws {
        let period = 1024  // a playback period, as the player feeds them
        let stretch = try TimeStretch(rate: Self.rate, channels: 2, speed: PlaybackSpeed(factor: 1.5)!)
        let input = Self.chord(frames: 7 * Self.rate, channels: 2)
        let speeds = [1.5, 2, 0.75, 0.5, 1, 1.25, 3]
        var output: [Float] = []
        var changes: [Int] = []
        var fed = 0
        while fed * 2 < input.count {
            let second = fed / Self.rate
            let speed = PlaybackSpeed(factor: speeds[min(second, speeds.count - 1)])!
            if speed != stretch.speed {
                stretch.change(to: speed)
                changes.append(output.count / 2)
            }
            let n = min(period, input.count / 2 - fed)
            input[(fed * 2)..<((fed + n) * 2)].withUnsafeBufferPointer {
                stretch.process($0.baseAddress!, frames: n, into: &output)
            }
            fed += n
        }
        stretch.finish(into: &output)
        #expect(changes.count == 6)
        let own = Self.largestJump(input, channels: 2)
        for channel in 0..<2 {
            let jump = Self.largestJump(output, channels: 2, channel: channel)
            #expect(jump <= own * 1.05, "channel \(channel): a step of \(jump) against the input's \(own)")
        }
        // Loudness, 10 ms at a time, leaving out the last 10 ms (where the silence fed behind
        // the input begins: at slow speeds WSOLA runs up to half a sequence ahead).
        let window = Self.rate / 100
        let rms = { (samples: ArraySlice<Float>) in
            (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
        }
        let inputLevel = rms(input[...])
        var quietest = Float.infinity
        var at = 0
        while (at + 2 * window) * 2 <= output.count {
            quietest = min(quietest, rms(output[(at * 2)..<((at + window) * 2)]))
            at += window
        }
        #expect(quietest >= inputLevel * 0.5, "a 10 ms window at \(quietest) against the input's \(inputLevel)")
    }
}

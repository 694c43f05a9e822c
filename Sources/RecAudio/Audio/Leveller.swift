import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Brings audio to a loudness target (`export --level`, `play --level`): one gain for the whole
/// recording (target LUFS minus its integrated loudness, so the dynamics are kept), and a
/// look-ahead true-peak limiter that keeps every peak, between the samples too, at or below
/// `ceiling` dBTP. The limiter's gain comes down smoothly over the look-ahead before a peak
/// and goes back up over the release after it: a loud peak lowers the gain only around itself,
/// not for the rest of the recording.
///
/// Fed interleaved float frames (full scale ±1), it gives back the same number of frames,
/// `latency` frames late: `finish` gives the last ones.
///
/// The true peak is estimated as BS.1770 measures it: 4× oversampled, each sample and the three
/// points between it and the one before (a 12-tap windowed-sinc interpolator). The limiter
/// aims `margin` dB below the ceiling, for what the estimate misses and for a later encoder.
package final class Leveller {
    package let channels: Int
    /// The fixed gain, linear.
    package let gain: Float
    /// The ceiling the limiter aims at, linear (ceiling less the margin).
    let aim: Float
    /// Look-ahead (and the gain's attack), frames.
    let lookAhead: Int
    /// How fast the gain goes back up after a peak (one-pole, per frame).
    let release: Float
    /// Frames in (the input's, and all with `finish`'s silence), frames out so far.
    private var fed = 0
    private var pushed = 0
    private var given = 0

    /// Taps either side of the interpolated point.
    static let half = 6
    /// The interpolator's coefficients for the points 1/4, 2/4 and 3/4 of the way from one
    /// sample to the next: `taps[phase][k]` weighs the frame `k - half + 1` after the first.
    static let taps: [[Float]] = (1...3).map { phase in
        let f = Double(phase) / 4
        return (0..<(2 * half)).map { k in
            let d = f - Double(k - half + 1)
            let sinc = d == 0 ? 1 : sin(.pi * d) / (.pi * d)
            let window = 0.5 * (1 + cos(.pi * d / Double(half)))
            return Float(sinc * window)
        }
    }

    /// The most an interpolated point can be for samples at most 1: no point between frames
    /// whose samples are all below aim / this can reach the aim, and the interpolator is skipped.
    static let tapBound: Float = taps.map { $0.reduce(0) { $0 + abs($1) } }.max()!

    /// The gained input, frame by frame (a ring: the interpolator's and the delay's frames),
    /// and each frame's largest sample.
    private var ring: [Float]
    private var frameMax: [Float]
    private let mask: Int
    /// The gain each frame needs (aim / its peak, at most 1) over the look-ahead, as a
    /// sliding minimum (a deque of (frame, value) with values increasing).
    private var minima: [(frame: Int, value: Float)] = []
    private var minimaStart = 0
    /// The last `lookAhead` sliding minima and their sum (a Double: kept by adding and taking
    /// away over hours of frames, it must not drift): their mean is a frame's gain.
    private var window: [Float]
    private var windowSum: Double
    private var windowNext = 0
    private var smoothed: Float = 1

    /// `gain` in dB; `ceiling` in dBTP.
    package init(
        gain: Double, channels: Int, rate: Int, ceiling: Double = -1, margin: Double = 0.5,
        lookAhead seconds: Double = 0.005, release releaseSeconds: Double = 0.08
    ) {
        self.channels = max(channels, 1)
        self.gain = Float(pow(10, gain / 20))
        aim = Float(pow(10, (ceiling - margin) / 20))
        lookAhead = max(Int(seconds * Double(rate)), 1)
        release = Float(1 - exp(-1 / (releaseSeconds * Double(max(rate, 1)))))
        var size = 1
        while size < lookAhead + 2 * Self.half + 4 { size <<= 1 }
        ring = [Float](repeating: 0, count: size * self.channels)
        frameMax = [Float](repeating: 0, count: size)
        mask = size - 1
        // The minima before the first frame are 1: nothing to hold back.
        window = [Float](repeating: 1, count: lookAhead)
        windowSum = Double(lookAhead)
    }

    /// The gain of `target` LUFS for audio of `loudness`, dB: none for audio with nothing
    /// above R128's gate (silence is not brought up to speech).
    package static func gain(to target: Double, from loudness: Loudness) -> Double {
        loudness.integrated <= Loudness.gate ? 0 : target - loudness.integrated
    }

    /// Forgets everything fed (a seek or pause of the player): the next frame starts afresh.
    package func reset() {
        fed = 0
        pushed = 0
        given = 0
        minima.removeAll(keepingCapacity: true)
        minimaStart = 0
        for i in window.indices { window[i] = 1 }
        windowSum = Double(lookAhead)
        windowNext = 0
        smoothed = 1
        for i in ring.indices { ring[i] = 0 }
        for i in frameMax.indices { frameMax[i] = 0 }
    }

    /// Frames between a frame fed and the same frame given back.
    package var latency: Int { Self.half + lookAhead - 2 }

    /// Feeds `frames` interleaved frames; what is ready is appended to `output`.
    package func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        let frames = input.count / channels
        output.reserveCapacity(output.count + input.count)
        for i in 0..<frames { push(input.baseAddress! + i * channels, into: &output) }
    }

    /// The last `latency` frames.
    package func finish(into output: inout [Float]) {
        let zeros = [Float](repeating: 0, count: channels)
        while given < fed { zeros.withUnsafeBufferPointer { push($0.baseAddress!, into: &output, counted: false) } }
    }

    private func push(_ frame: UnsafePointer<Float>, into output: inout [Float], counted: Bool = true) {
        let t = pushed
        pushed += 1
        if counted { fed += 1 }
        let slot = (t & mask) * channels
        var largest: Float = 0
        for c in 0..<channels {
            let x = frame[c] * gain
            ring[slot + c] = x
            largest = max(largest, abs(x))
        }
        frameMax[t & mask] = largest
        // The interpolator needs `half - 1` frames after a point: frame p = t - half + 1 is
        // measured now, with the three points between it and the frame before.
        let p = t - Self.half + 1
        guard p >= 0 else { return }
        // Most frames are far below the aim: then no point near them can reach it.
        var local: Float = 0
        for k in (p - Self.half)..<(p + Self.half) where k >= 0 { local = max(local, frameMax[k & mask]) }
        var peak: Float = frameMax[p & mask]
        for c in 0..<channels where local * Self.tapBound > aim {
            for taps in Self.taps {
                var sum: Float = 0
                // The points between p - 1 and p: frames p - half ... p + half - 1.
                for (k, w) in taps.enumerated() { sum += w * sample(p - Self.half + k, c) }
                peak = max(peak, abs(sum))
            }
        }
        let need = peak > aim ? aim / peak : 1
        // Sliding minimum of `need` over frames p - lookAhead + 1 ... p.
        while minima.count > minimaStart, minima.last!.value >= need { minima.removeLast() }
        minima.append((p, need))
        if minima[minimaStart].frame <= p - lookAhead { minimaStart += 1 }
        if minimaStart > 4096 {
            minima.removeFirst(minimaStart)
            minimaStart = 0
        }
        let minimum = minima[minimaStart].value
        windowSum += Double(minimum) - Double(window[windowNext])
        window[windowNext] = minimum
        windowNext = windowNext + 1 == lookAhead ? 0 : windowNext + 1
        // The mean of the minima of frames o ... o + lookAhead - 1 is at most what frame o
        // needs (each of those windows holds frame o): frame o = p - lookAhead + 1.
        let o = p - lookAhead + 1
        guard o >= 0, given < fed else { return }
        let target = min(Float(windowSum / Double(lookAhead)), 1)
        // Down at once (the mean already ramps down over the look-ahead), up over the release.
        smoothed = target < smoothed ? target : smoothed + (target - smoothed) * release
        let at = (o & mask) * channels
        for c in 0..<channels { output.append(ring[at + c] * smoothed) }
        given += 1
    }

    private func sample(_ frame: Int, _ channel: Int) -> Float {
        frame < 0 || frame >= pushed ? 0 : ring[(frame & mask) * channels + channel]
    }
}

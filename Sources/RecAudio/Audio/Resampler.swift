#if canImport(Glibc)
    import Glibc
#endif

/// Changes the sample rate of interleaved float audio, for targets that cannot take the
/// source's rate (Opus only encodes 8, 12, 16, 24 and 48 kHz). A windowed-sinc filter
/// (Blackman-Harris window, 32 taps at the lower rate, table of 512 phases with linear
/// interpolation between them) with its cutoff just below the lower Nyquist frequency.
/// Streaming: feed any number of frames, then `finish()` for the tail. The output has
/// `ceil(input × outRate / inRate)` frames, aligned with the input (no added delay).
package struct Resampler {
    package let inputRate: Int
    package let outputRate: Int
    package let channels: Int
    private let halfTaps: Int
    private let phases = 512
    private let table: [Float]
    /// Pending input, interleaved, starting `halfTaps` frames before `base` (zeros at first).
    private var pending: [Float]
    /// Output frame n sits at input time n × inRate / outRate; `base` + `numerator`/outRate.
    private var base = 0
    private var numerator = 0
    private var consumedFrames = 0
    private var inputFrames = 0
    private var producedFrames = 0

    package init(from inputRate: Int, to outputRate: Int, channels: Int, halfTaps: Int = 16) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        let scale = min(1, Double(outputRate) / Double(inputRate))
        // Taps widen with the ratio when going down, so the filter stays as sharp.
        self.halfTaps = Int((Double(halfTaps) / scale).rounded(.up))
        let cutoff = 0.94 * scale
        let span = self.halfTaps
        var table = [Float](repeating: 0, count: (2 * span) * phases + 1)
        for i in 0..<table.count {
            let x = Double(i) / Double(phases) - Double(span)
            let sinc = x == 0 ? 1 : sin(.pi * cutoff * x) / (.pi * cutoff * x)
            let w = (x + Double(span)) / Double(2 * span)
            let window = 0.35875 - 0.48829 * cos(2 * .pi * w) + 0.14128 * cos(4 * .pi * w) - 0.01168 * cos(6 * .pi * w)
            table[i] = Float(cutoff * sinc * window)
        }
        self.table = table
        pending = [Float](repeating: 0, count: self.halfTaps * channels)
    }

    /// Adds input frames; returns the output frames that can be computed so far.
    package mutating func process(_ input: UnsafeBufferPointer<Float>) -> [Float] {
        pending.append(contentsOf: input)
        inputFrames += input.count / channels
        return produce(until: inputFrames - halfTaps)
    }

    /// The rest of the output, with silence after the end of the input.
    package mutating func finish() -> [Float] {
        pending.append(contentsOf: [Float](repeating: 0, count: (halfTaps + 1) * channels))
        let total = Int((Int64(inputFrames) * Int64(outputRate) + Int64(inputRate) - 1) / Int64(inputRate))
        var out: [Float] = []
        while producedFrames < total {
            let chunk = produce(until: inputFrames, limit: total - producedFrames)
            if chunk.isEmpty { break }
            out += chunk
        }
        return out
    }

    /// Computes output frames whose input time is before `end` (in absolute input frames).
    private mutating func produce(until end: Int, limit: Int = .max) -> [Float] {
        var out: [Float] = []
        let span = halfTaps
        var sums = [Float](repeating: 0, count: channels)
        pending.withUnsafeBufferPointer { p in
            table.withUnsafeBufferPointer { t in
                var made = 0
                while base < end && made < limit {
                    // Input frame `base` is at index span of `pending` relative to consumedFrames.
                    let center = base - consumedFrames + span
                    let fraction = Double(numerator) / Double(outputRate)
                    for c in 0..<channels { sums[c] = 0 }
                    for k in (1 - span)...span {
                        let index = center + k
                        guard index >= 0, (index + 1) * channels <= p.count else { continue }
                        // Distance from the output time to input frame base + k, in input frames.
                        let distance = Double(k) - fraction
                        let position = (distance + Double(span)) * Double(phases)
                        guard position >= 0 else { continue }
                        let lower = Int(position)
                        guard lower + 1 < t.count else { continue }
                        let frac = Float(position - Double(lower))
                        let weight = t[lower] + (t[lower + 1] - t[lower]) * frac
                        let offset = index * channels
                        for c in 0..<channels { sums[c] += p[offset + c] * weight }
                    }
                    out.append(contentsOf: sums)
                    made += 1
                    numerator += inputRate
                    base += numerator / outputRate
                    numerator %= outputRate
                }
            }
        }
        producedFrames += out.count / channels
        // Keep `span` frames of history before `base`.
        let drop = max(0, base - span - consumedFrames)
        if drop > 0 {
            pending.removeFirst(min(drop * channels, pending.count))
            consumedFrames += drop
        }
        return out
    }
}

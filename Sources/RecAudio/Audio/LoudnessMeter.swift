import CEbur128
import RecSystem
import RecValues

/// EBU R128 loudness of interleaved 16-bit audio, fed as it is decoded: libebur128 (through
/// CEbur128, opened on first use) for the integrated loudness and the range, `TruePeakMeter`
/// for the true peak. `AudioAnalysis.analyze` feeds it the same blocks as the level meter and
/// the voice detector, so loudness costs no second decode.
package final class LoudnessMeter {
    private let state: OpaquePointer
    private var truePeak: TruePeakMeter

    /// The shared object to open: `RECNOTES_EBUR128` names another (a build of its own, or
    /// one that is not there, to see recnotes without it); by default the system's.
    package static var libraryPath: String? { Environment.value("RECNOTES_EBUR128") }

    /// Opens libebur128 on first use; `subject` names what needed it, for the message.
    package static func load(for subject: String) throws(RecError) {
        var why = [CChar](repeating: 0, count: 512)
        guard ceb_load(libraryPath, &why, why.count) == 0 else {
            let reason = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .failure(subject, "cannot load the loudness meter (install libebur128-1): \(reason)")
        }
    }

    package init(channels: Int, rate: Int, subject: String = "loudness") throws(RecError) {
        try Self.load(for: subject)
        guard channels > 0, rate > 0, let state = ceb_new(UInt32(channels), UInt(rate)) else {
            throw .failure(subject, "libebur128 cannot measure \(channels) channels at \(rate) Hz")
        }
        self.state = state
        truePeak = TruePeakMeter(channels: channels)
    }

    deinit { ceb_delete(state) }

    /// The loudness of `frames` of the file at `path` from `start` (all of it when nil),
    /// decoded once: what `export --level` levels when the stored loudness is not of what it
    /// writes (trimmed, or a store from before version 5).
    package static func measure(path: String, from start: Int64 = 0, frames: Int64? = nil) throws -> Loudness {
        let file = try SoundFile.open(path: path)
        let meter = try LoudnessMeter(channels: file.channels, rate: file.sampleRate, subject: path)
        if start > 0 { try file.seek(to: start) }
        let chunk = 8192
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * file.channels)
        defer { buffer.deallocate() }
        var remaining = frames ?? .max
        while remaining > 0 {
            let n = try file.read(into: buffer, frames: Int(min(Int64(chunk), remaining)))
            if n == 0 { break }
            meter.add(buffer, frames: n)
            remaining -= Int64(n)
        }
        return meter.loudness
    }

    /// Feeds `frames` interleaved frames.
    package func add(_ samples: UnsafePointer<Int16>, frames: Int) {
        _ = ceb_add_short(state, samples, frames)
        truePeak.add(samples, frames: frames)
    }

    /// The loudness of everything fed so far, as the store keeps it.
    package var loudness: Loudness {
        var integrated = -Double.infinity
        var range = 0.0
        _ = ceb_integrated(state, &integrated)
        _ = ceb_range(state, &range)
        return .measured(integrated: integrated, range: range, truePeakLinear: Double(truePeak.peak))
    }
}

/// The true peak of interleaved 16-bit audio, linear (1 is full scale): the largest sample,
/// and the points between samples as BS.1770 estimates them, 4× oversampled with the
/// leveller's interpolator (`Leveller.taps`).
///
/// libebur128 measures it too, but oversampling every sample took seven times the CPU of the
/// rest of its measure, the most of what a recording's analysis pass costs. Here a stretch of
/// `stretch` frames is interpolated only when it could raise the peak found so far: none of
/// its points can pass `Leveller.tapBound` times the largest sample near it. Past the first
/// loud moment, quiet speech and silence cost a comparison per sample.
struct TruePeakMeter {
    let channels: Int
    /// The largest sample or point so far.
    private(set) var largest: Float = 0
    /// Frames from `first` on, as floats, interleaved: those whose points are not all measured
    /// yet, and the `half` before them that the interpolator reads. Frames before 0 are silence.
    private var frames: [Float]
    private var first = -Leveller.half
    /// The next frame whose points (between it and the frame before) are to be measured.
    private var next = 0
    static let stretch = 64

    init(channels: Int) {
        self.channels = max(channels, 1)
        frames = [Float](repeating: 0, count: Leveller.half * self.channels)
    }

    mutating func add(_ samples: UnsafePointer<Int16>, frames count: Int) {
        var block: Int32 = 0
        for i in 0..<(count * channels) {
            let s = Int32(samples[i])
            block = max(block, s < 0 ? -s : s)
        }
        largest = max(largest, Float(block) / 32768)
        // Every point that can be measured now reads frames from `next - half` on: what is
        // held of them and this block. When none of those could raise the peak (silence, and
        // most of speech once its loudest syllable is past), the block is not converted at
        // all; only its last frames are kept, for the points still to come.
        let held = frames[((next - Leveller.half - first) * channels)...].reduce(0) { max($0, abs($1)) }
        let keep = 2 * Leveller.half - 1
        let skipped = max(held, Float(block) / 32768) * Leveller.tapBound <= largest && count >= keep
        // Frame p's points read frames p - half ... p + half - 1.
        let fed = first + frames.count / channels + count
        if skipped {
            // Its points count as measured: what is left to measure below is none of them.
            frames.removeAll(keepingCapacity: true)
            first = fed - keep
            next = fed - Leveller.half + 1
        }
        let from = skipped ? count - keep : 0
        frames.reserveCapacity(frames.count + (count - from) * channels)
        for i in (from * channels)..<(count * channels) { frames.append(Float(samples[i]) * (1 / 32768)) }
        measure(upTo: fed - Leveller.half + 1, in: frames)
        let drop = next - Leveller.half - first
        if drop > 0 {
            frames.removeFirst(drop * channels)
            first += drop
        }
    }

    /// With the points of the last frames too, silence after them.
    var peak: Float {
        var copy = self
        let fed = first + frames.count / channels
        var padded = frames
        padded += [Float](repeating: 0, count: Leveller.half * channels)
        copy.measure(upTo: fed, in: padded)
        return copy.largest
    }

    /// Measures the points of frames `next ..< end`, `buffer` holding frames from `first`.
    private mutating func measure(upTo end: Int, in buffer: [Float]) {
        let half = Leveller.half
        let phases = Leveller.taps
        let bound = Leveller.tapBound
        buffer.withUnsafeBufferPointer { b in
            while next < end {
                let stop = min(next + Self.stretch, end)
                var near: Float = 0
                for i in ((next - half - first) * channels)..<((stop + half - 1 - first) * channels) {
                    near = max(near, abs(b[i]))
                }
                if near * bound > largest {
                    for p in next..<stop {
                        let base = (p - half - first) * channels
                        for c in 0..<channels {
                            for taps in phases {
                                var sum: Float = 0
                                for (k, w) in taps.enumerated() { sum += w * b[base + k * channels + c] }
                                largest = max(largest, abs(sum))
                            }
                        }
                    }
                }
                next = stop
            }
        }
    }
}

import RecValues

#if canImport(Glibc)
    import Glibc
#endif

extension AudioAnalysis {
    /// Decodes `path` once, start to end, into an `AnalysisMeter`: the reference analysis of
    /// a file (recovery, `fsck --repair`, an older store's recording), and what the analysis
    /// measured while the audio was written (`BackgroundAnalysis`) is held to.
    package static func analyze(
        path: String, buckets: Int = waveformPoints,
        voice: VoiceActivityConfiguration = .init()
    ) throws -> AudioAnalysis {
        let file = try SoundFile.open(path: path)
        let meter = AnalysisMeter(
            sampleRate: file.sampleRate, channels: file.channels, buckets: buckets, voice: voice, length: file.frames)
        let chunk = 8192
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * file.channels)
        defer { buffer.deallocate() }
        while true {
            let n = try file.read(into: buffer, frames: chunk)
            if n == 0 { break }
            meter.add(buffer, frames: n)
        }
        if meter.frames == 0 && file.frames > 0 {
            throw AudioError(.file(path), "cannot decode", reason: "no audio could be read")
        }
        return meter.finish()
    }
}

/// Every measure of an `AudioAnalysis` (levels, waveform, speech, loudness), fed interleaved
/// 16-bit blocks in order, each block to every meter in turn. Whoever has the samples feeds
/// it: a decode of the file (`AudioAnalysis.analyze`), or the writer of the file itself (the
/// recorder's, or `BackgroundAnalysis` beside an encoder), so that saving needs no second
/// pass. Every meter is blind to how the samples are cut into blocks, so both give the same
/// analysis of the same samples.
/// Without libebur128 the rest is measured all the same and `loudness` is nil: a recording
/// is never refused for want of its loudness.
package final class AnalysisMeter {
    package let sampleRate: Int
    package let channels: Int
    package let buckets: Int
    /// Frames fed so far.
    package private(set) var frames: Int64 = 0
    private var total = LevelMeter()
    private var waveform = WaveformBlocks()
    /// With the length known in advance: each frame's bucket, exact (the peaks of
    /// `waveform` are for when the length turns out otherwise).
    private let length: Int64?
    private var exactPeaks: [Int32]
    private var detector: VoiceActivityDetector
    private var speech = SpeechRegions()
    private let loudness: LoudnessMeter?

    package init(
        sampleRate: Int, channels: Int, buckets: Int = AudioAnalysis.waveformPoints,
        voice: VoiceActivityConfiguration = .init(), length: Int64? = nil
    ) {
        // An unfinished header can declare anything: a length past what frame × buckets can
        // hold is none.
        self.length = length.flatMap { $0 > 0 && $0 <= Int64(Int32.max) ? $0 : nil }
        exactPeaks = [Int32](repeating: 0, count: self.length == nil ? 0 : max(buckets, 1))
        self.sampleRate = sampleRate
        self.channels = max(channels, 1)
        self.buckets = max(buckets, 1)
        detector = VoiceActivityDetector(sampleRate: sampleRate, channels: self.channels, configuration: voice)
        loudness = try? LoudnessMeter(channels: self.channels, rate: sampleRate)
    }

    /// Feeds `count` interleaved frames.
    package func add(_ samples: UnsafePointer<Int16>, frames count: Int) {
        guard count > 0 else { return }
        total.add(samples, count: count * channels)
        loudness?.add(samples, frames: count)
        speech.add(detector.feed(samples, frames: count))
        waveform.add(samples, frames: count, channels: channels)
        if let length { addExact(samples, frames: count, length: length) }
        frames += Int64(count)
    }

    /// Frame i's bucket is i × buckets / length: the block is cut at the buckets' first frames.
    private func addExact(_ samples: UnsafePointer<Int16>, frames count: Int, length: Int64) {
        let buckets = Int64(self.buckets)
        var frame = frames
        let end = frames + Int64(count)
        while frame < end {
            let bucket = min(frame * buckets / length, buckets - 1)
            // The first frame of the next bucket (the last bucket takes the rest).
            let next = bucket == buckets - 1 ? end : min(((bucket + 1) * length + buckets - 1) / buckets, end)
            let start = samples + Int(frame - frames) * channels
            var peak = exactPeaks[Int(bucket)]
            for i in 0..<(Int(next - frame) * channels) {
                let s = Int32(start[i])
                peak = max(peak, s < 0 ? -s : s)
            }
            exactPeaks[Int(bucket)] = peak
            frame = max(next, frame + 1)
        }
    }

    /// The analysis of everything fed, as the store keeps it. Call once, at the end.
    package func finish() -> AudioAnalysis {
        speech.add(detector.finish())
        let peaks =
            frames == length
            ? exactPeaks.map { Double($0) / 32768 } : waveform.peaks(buckets: buckets, frames: frames)
        return AudioAnalysis(
            frames: frames, sampleRate: sampleRate, level: total.level,
            peaks: peaks,
            speech: speech.regions, loudness: loudness?.loudness
        ).compacted()
    }
}

/// The waveform's peaks when the length is not known in advance (a recording stopped by
/// hand, a resampled import, a file whose header was never finished): the peak of each block of `blockFrames`, and when there are
/// `capacity` of them, neighbours merged and the blocks twice as long, so the memory stays
/// bounded (32 KB) however long the audio. At the end each block goes to the bucket its
/// first frame falls in. Up to `capacity` frames a block is a frame, so the peaks are
/// exact; beyond, a bucket's edge may move by less than one block, which is under 1/136
/// of a bucket (a bucket is `capacity / 2 / buckets` blocks at the least).
struct WaveformBlocks {
    static let capacity = 1 << 14
    private var blocks: [UInt16] = []
    private var blockFrames = 1
    private var current: Int32 = 0
    private var fill = 0

    init() { blocks.reserveCapacity(Self.capacity) }

    mutating func add(_ samples: UnsafePointer<Int16>, frames: Int, channels: Int) {
        var offset = 0
        while offset < frames {
            let take = min(blockFrames - fill, frames - offset)
            let start = samples + offset * channels
            var peak = current
            for i in 0..<(take * channels) {
                let s = Int32(start[i])
                peak = max(peak, s < 0 ? -s : s)
            }
            current = peak
            fill += take
            offset += take
            if fill == blockFrames { closeBlock() }
        }
    }

    private mutating func closeBlock() {
        blocks.append(UInt16(current))
        current = 0
        fill = 0
        guard blocks.count == Self.capacity else { return }
        let half = Self.capacity / 2
        for i in 0..<half { blocks[i] = max(blocks[2 * i], blocks[2 * i + 1]) }
        blocks.removeLast(half)
        blockFrames *= 2
    }

    /// Linear peaks, 0...1, of `buckets` equal stretches of `frames`.
    func peaks(buckets: Int, frames: Int64) -> [Double] {
        var peaks = [Double](repeating: 0, count: buckets)
        let length = max(frames, 1)
        func put(_ index: Int, _ peak: Int32) {
            let bucket = min(Int(Int64(index) * Int64(blockFrames) * Int64(buckets) / length), buckets - 1)
            peaks[bucket] = max(peaks[bucket], Double(peak) / 32768)
        }
        for (index, peak) in blocks.enumerated() { put(index, Int32(peak)) }
        if fill > 0 { put(blocks.count, current) }
        return peaks
    }
}

import RecSystem
import RecValues
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The analysis of audio as it is written, for a writer whose encoder keeps its core busy
/// (analysis must not slow an import): the writer (`Transcode`) hands over each block it
/// writes, and an `AnalysisMeter` on a thread of its own measures it while the encoder goes
/// on, so saving neither decodes the file again nor waits for the meters on the encoder's
/// core. Blocks go through a `SampleRing` (single producer, single consumer); when the
/// meter falls a ring behind, the writer waits for it, so the memory stays bounded.
///
/// What is measured is what was written: the samples handed to the encoder, not those a
/// lossy codec gives back on decoding (for Opus they differ by less than the store's
/// rounding of loudness and levels; see `AnalysisPassTests`).
package final class BackgroundAnalysis {
    package let channels: Int
    private let shared: Shared
    private var thread: JoinableThread?
    /// For conversions from what a writer holds (floats, 32-bit) to what the meters take.
    private let scratch: UnsafeMutablePointer<Int16>
    private let scratchSamples: Int
    private var result: AudioAnalysis?

    /// What the writer and the meter's thread share; the thread holds this, not the
    /// `BackgroundAnalysis`, so that dropping the latter stops the thread.
    // @unchecked Sendable: the ring is single-producer (the writer's `add`) single-consumer (the
    // meter's thread); `meter` is touched only by that thread until `finish` has joined it.
    private final class Shared: @unchecked Sendable {
        let meter: AnalysisMeter
        let ring = SampleRing(minimumCapacity: 1 << 18)  // about 5 s of 48 kHz mono
        /// Signalled after each push (for the meter) and after each take (for a waiting writer).
        let pushed = Semaphore(), taken = Semaphore()
        let ended = Atomic<Bool>(false)
        let abandoned = Atomic<Bool>(false)
        /// Called on the meter's thread as it ends (the tests' view of that end).
        let ends: (@Sendable () -> Void)?

        init(meter: AnalysisMeter, ends: (@Sendable () -> Void)?) {
            self.meter = meter
            self.ends = ends
        }

        func measure() {
            defer { ends?() }
            let channels = meter.channels
            let chunk = 8192 * channels
            let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: chunk)
            defer { buffer.deallocate() }
            while !abandoned.load(ordering: .acquiring) {
                let end = ended.load(ordering: .acquiring)
                let n = ring.read(into: buffer, count: chunk, multiple: channels)
                if n > 0 {
                    taken.signal()
                    meter.add(buffer, frames: n / channels)
                } else if end {
                    return
                } else {
                    pushed.wait(milliseconds: 1000)
                }
            }
        }
    }

    /// `length`: the frames that will be written, when known in advance (the waveform is then
    /// bucketed frame by frame, exactly as a decode of the file buckets it).
    package convenience init(sampleRate: Int, channels: Int, length: Int64? = nil) throws {
        try self.init(sampleRate: sampleRate, channels: channels, length: length, threadEnds: nil)
    }

    /// `threadEnds`: called on the meter's thread as it ends.
    init(sampleRate: Int, channels: Int, length: Int64?, threadEnds: (@Sendable () -> Void)?) throws {
        self.channels = max(channels, 1)
        let shared = Shared(
            meter: AnalysisMeter(sampleRate: sampleRate, channels: self.channels, length: length), ends: threadEnds)
        self.shared = shared
        scratchSamples = 8192 * self.channels
        scratch = .allocate(capacity: scratchSamples)
        do {
            thread = try JoinableThread { shared.measure() }
        } catch {
            scratch.deallocate()
            throw error
        }
    }

    deinit {
        // Given up (a failed import, a discarded recording): the thread stops unfed.
        shared.abandoned.store(true, ordering: .releasing)
        stopThread()
        scratch.deallocate()
    }

    private func stopThread() {
        shared.ended.store(true, ordering: .releasing)
        shared.pushed.signal()
        thread?.join()
        thread = nil
    }

    /// Hands over `frames` interleaved frames, as written; waits only while the ring is full.
    package func add(_ samples: UnsafePointer<Int16>, frames: Int) {
        let count = frames * channels
        var done = 0
        while done < count {
            let n = shared.ring.write(samples + done, count: count - done)
            done += n
            if n > 0 { shared.pushed.signal() } else { shared.taken.wait(milliseconds: 100) }
        }
    }

    /// Floats as libsndfile reads 16-bit audio (a sample over 32768), back to those samples.
    package func add(_ samples: UnsafePointer<Float>, frames: Int) {
        convert(samples, frames: frames) { sample in
            let scaled = (sample * 32768).rounded()
            // Clipped as the encoder clips it (`clipFloats`); nothing a resampler overshoots by
            // or a damaged float file holds (NaN) can trap here.
            return scaled.isNaN ? 0 : Int16(max(-32768, min(32767, scaled)))
        }
    }

    /// 32-bit integers as libsndfile reads any integer audio: the top 16 bits, as it reads
    /// the same file into 16-bit samples.
    package func add(_ samples: UnsafePointer<Int32>, frames: Int) {
        convert(samples, frames: frames) { Int16(truncatingIfNeeded: $0 >> 16) }
    }

    private func convert<T>(_ samples: UnsafePointer<T>, frames: Int, _ sample: (T) -> Int16) {
        let per = scratchSamples / channels
        var offset = 0
        while offset < frames {
            let take = min(per, frames - offset)
            let source = samples + offset * channels
            for i in 0..<(take * channels) { scratch[i] = sample(source[i]) }
            add(scratch, frames: take)
            offset += take
        }
    }

    /// Frames handed over so far are all measured once this returns: the analysis, as the
    /// store keeps it. Further calls return the same.
    package func finish() -> AudioAnalysis {
        if let result { return result }
        stopThread()
        let analysis = shared.meter.finish()
        result = analysis
        return analysis
    }
}

/// What measures audio as a writer writes it: `AnalysisMeter` on the writer's own thread, or
/// `BackgroundAnalysis` beside it.
package protocol WrittenAudioAnalysis: AnyObject {
    /// `frames` interleaved frames, as written.
    func add(_ samples: UnsafePointer<Int16>, frames: Int)
    /// The analysis of everything added, as the store keeps it.
    func finish() -> AudioAnalysis
}

extension AnalysisMeter: WrittenAudioAnalysis {}
extension BackgroundAnalysis: WrittenAudioAnalysis {}

/// A sink that hands every block written to it to an analysis as well: how the recorder's
/// writer, which already has each sample, measures the recording as it captures.
package final class AnalysingSink: AudioSink {
    package let sink: AudioSink
    package let analysis: any WrittenAudioAnalysis
    /// Frames written to `sink` and measured; a write that failed is measured not at all.
    package private(set) var frames: Int64 = 0

    package init(_ sink: AudioSink, analysis: any WrittenAudioAnalysis) {
        self.sink = sink
        self.analysis = analysis
    }

    package var path: String { sink.path }

    package func write(_ samples: UnsafePointer<Int16>, frames count: Int) throws {
        try sink.write(samples, frames: count)
        analysis.add(samples, frames: count)
        frames += Int64(count)
    }

    package func sync() { sink.sync() }
    package func close() throws { try sink.close() }
}

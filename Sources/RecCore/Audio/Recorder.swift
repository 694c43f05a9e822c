import Atomics

#if canImport(Glibc)
import Glibc
#endif

/// Captures from an ALSA PCM into a sound file.
///
/// Two threads: a capture thread that only reads the device and pushes frames into a
/// lock-free ring (sized for several seconds), and the caller's thread, which encodes and
/// writes, measures levels and emits events. The writer never holds anything the capture
/// thread waits for. When the ring is full (the writer fell behind by the ring's length,
/// or the device delivers faster than real time), the capture thread counts an overrun and
/// retries a moment later, so the device's own buffer absorbs the delay.
public final class Recorder: @unchecked Sendable {
    public let pcm: PCM
    public let ring: SampleRing
    /// Stop after this many frames (`--duration`), counted exactly.
    public let frameLimit: Int64?

    private let stopRequested = ManagedAtomic<Bool>(false)
    private let pauseRequested = ManagedAtomic<Bool>(false)
    private let captureEnded = ManagedAtomic<Bool>(false)
    private let overrunCount = AtomicCounter()
    private var captureError: Error?
    /// Frames written to the file by `run` so far (also after it threw).
    public private(set) var framesWritten: Int64 = 0

    /// Opens the device now, so a bad device fails before any file exists.
    public init(device: String, rate: Int, channels: Int, frameLimit: Int64? = nil,
                ringSeconds: Double = 4, configuration: String? = nil) throws {
        pcm = try PCM(name: device, direction: .capture, rate: rate, channels: channels, configuration: configuration)
        ring = SampleRing(minimumCapacity: Int(Double(rate * channels) * max(ringSeconds, 2)))
        self.frameLimit = frameLimit
    }

    /// Asks the recording to stop; safe from any thread (a signal watcher, a key reader).
    public func stop() { stopRequested.store(true, ordering: .relaxed) }

    public func togglePause() {
        var current = pauseRequested.load(ordering: .relaxed)
        while !pauseRequested.compareExchange(expected: current, desired: !current, ordering: .relaxed).exchanged {
            current = pauseRequested.load(ordering: .relaxed)
        }
    }

    public var isPaused: Bool { pauseRequested.load(ordering: .relaxed) }

    public var overruns: Int { overrunCount.load() }

    private func captureLoop() {
        let channels = pcm.channels
        let period = pcm.periodFrames
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: period * channels)
        defer { buffer.deallocate() }
        var captured: Int64 = 0
        do {
            while !stopRequested.load(ordering: .relaxed) {
                var want = period
                if let limit = frameLimit {
                    if captured >= limit { break }
                    want = Int(min(Int64(period), limit - captured))
                }
                let frames = try pcm.read(into: buffer, frames: want)
                if frames == 0 || pauseRequested.load(ordering: .relaxed) { continue }
                let samples = frames * channels
                var pushed = ring.write(buffer, count: samples)
                if pushed < samples {
                    overrunCount.increment()
                    while pushed < samples {
                        usleep(1000)
                        pushed += ring.write(buffer + pushed, count: samples - pushed)
                    }
                }
                captured += Int64(frames)
            }
        } catch {
            captureError = error
        }
        captureEnded.store(true, ordering: .releasing)
    }

    /// Records into `file` until stopped, the frame limit is reached, or the device fails.
    /// Events go to `onEvent` on the calling thread. The file is synced at least once per
    /// second of audio. Returns the frames written; the caller closes the file. On a device
    /// failure after some audio was written, the `failed` event is sent and the error
    /// thrown; what was written stays in the file.
    @discardableResult
    public func run(into file: SoundFile, onEvent: (AudioEvent) -> Void) throws -> Int64 {
        let rate = pcm.rate, channels = pcm.channels
        let chunkSamples = max(pcm.periodFrames, rate / 100) * channels
        let chunk = UnsafeMutablePointer<Int16>.allocate(capacity: chunkSamples)
        defer { chunk.deallocate() }
        var written: Int64 = 0
        defer { framesWritten = written }
        var lastSync: Int64 = 0
        let eventEvery = Int64(max(rate / 10, 1))
        var nextEvent = eventEvery
        var meter = LevelMeter(), total = LevelMeter()
        var paused = false
        var reportedXruns = 0
        func position() -> AudioPosition { AudioPosition(frames: written, sampleRate: rate) }

        onEvent(.started(.init(device: pcm.name, file: file.path, sampleRate: rate, channels: channels,
                               position: position(), total: nil)))
        let thread = try AudioThread { [self] in captureLoop() }
        var writeError: Error?
        while true {
            let ended = captureEnded.load(ordering: .acquiring)
            if isPaused != paused {
                paused.toggle()
                onEvent(paused ? .paused(position()) : .resumed(position()))
            }
            let n = ring.read(into: chunk, count: chunkSamples, multiple: channels)
            if n == 0 {
                if ended { break }
                usleep(2000)
                continue
            }
            if writeError != nil { continue }  // keep draining so capture can finish
            let frames = n / channels
            do {
                try file.write(chunk, frames: frames)
            } catch {
                writeError = error
                stop()
                continue
            }
            // Levels per tenth of a second of audio: split the chunk at event boundaries.
            var offset = 0
            while offset < frames {
                let take = Int(min(Int64(frames - offset), nextEvent - written))
                meter.add(chunk + offset * channels, count: take * channels)
                total.add(chunk + offset * channels, count: take * channels)
                written += Int64(take)
                offset += take
                if written == nextEvent {
                    nextEvent += eventEvery
                    onEvent(.progress(.init(position: position(), level: meter.level,
                                            bytes: FileSystem.size(file.path), total: nil)))
                    meter.reset()
                }
            }
            if written - lastSync >= Int64(rate) {
                file.sync()
                lastSync = written
            }
            let xruns = pcm.recoveries
            if xruns != reportedXruns {
                reportedXruns = xruns
                onEvent(.xrun(position(), count: xruns))
            }
        }
        thread.join()
        if let error = writeError ?? captureError {
            onEvent(.failed(position(), message: (error as? AudioError)?.description ?? "\(error)"))
            pcm.close()
            throw error
        }
        pcm.close()
        onEvent(.finished(.init(position: position(), xruns: pcm.recoveries, overruns: overruns, level: total.level)))
        return written
    }
}

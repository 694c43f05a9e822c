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
    /// Posted by the capture thread after each period it pushes, so the writer sleeps until
    /// there is audio instead of polling the ring on a timer.
    private var dataReady = sem_t()
    private var captureError: Error?
    /// Frames written to the file by `run` so far (also after it threw).
    public private(set) var framesWritten: Int64 = 0
    /// Commands from other processes (through the view state); taken by the writer loop,
    /// which turns them into the flags the capture thread reads.
    public let controls = ControlMailbox()

    /// Opens the device now, so a bad device fails before any file exists.
    public init(device: String, rate: Int, channels: Int, frameLimit: Int64? = nil,
                ringSeconds: Double = 4, configuration: String? = nil) throws {
        pcm = try PCM(name: device, direction: .capture, rate: rate, channels: channels, configuration: configuration)
        ring = SampleRing(minimumCapacity: Int(Double(rate * channels) * max(ringSeconds, 2)))
        self.frameLimit = frameLimit
        sem_init(&dataReady, 0, 0)
        // A command must not wait out the writer's tenth-of-a-second sleep (longer while
        // paused, when no audio arrives to wake it).
        controls.onSubmit = { [unowned self] in sem_post(&dataReady) }
    }

    deinit { sem_destroy(&dataReady) }

    /// Waits until the capture thread has pushed more audio, or a tenth of a second passed.
    private func waitForData() {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_nsec += 100_000_000
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        _ = sem_timedwait(&dataReady, &deadline)
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
        let most = max(pcm.bufferFrames, period)
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: most * channels)
        defer { buffer.deallocate() }
        var captured: Int64 = 0
        do {
            while !stopRequested.load(ordering: .relaxed) {
                // A period at a time on a real-time device; whatever is there when more is (a
                // device faster than real time, or a writer that was late), in one call.
                var want = min(max(period, pcm.available()), most)
                if let limit = frameLimit {
                    if captured >= limit { break }
                    want = Int(min(Int64(want), limit - captured))
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
                sem_post(&dataReady)
            }
        } catch {
            captureError = error
        }
        captureEnded.store(true, ordering: .releasing)
        sem_post(&dataReady)
    }

    /// Records into `file` until stopped, the frame limit is reached, or the device fails.
    /// Events go to `onEvent` on the calling thread. The file is synced at least once per
    /// second of audio. Returns the frames written; the caller closes the file. On a device
    /// failure after some audio was written, the `failed` event is sent and the error
    /// thrown; what was written stays in the file.
    @discardableResult
    public func run(into file: AudioSink, onEvent: (AudioEvent) -> Void) throws -> Int64 {
        let rate = pcm.rate, channels = pcm.channels
        // Up to half a second per write: fewer, larger writes to the file; events are still
        // cut at every tenth of a second of audio below.
        let chunkSamples = max(pcm.periodFrames, rate / 2) * channels
        let chunk = UnsafeMutablePointer<Int16>.allocate(capacity: chunkSamples)
        defer { chunk.deallocate() }
        var written: Int64 = 0
        defer { framesWritten = written }
        var lastSync = monotonicSeconds()
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
            var applied = 0
            // Each command is applied and reported on its own: two toggles taken together
            // are a pause and a resume, not nothing.
            for command in controls.take() {
                var pause = paused
                switch command.action {
                case .pause: pause = true
                case .resume: pause = false
                case .toggle: pause = !paused
                case .stop: stop()
                case .seek, .skip: break  // nothing to seek in a recording; refused before it is sent
                }
                if pause != paused {
                    paused = pause
                    pauseRequested.store(pause, ordering: .relaxed)
                    onEvent(paused ? .paused(position()) : .resumed(position()))
                }
                applied = max(applied, command.sequence)
            }
            // A key (space) flips the flag directly.
            if isPaused != paused {
                paused.toggle()
                onEvent(paused ? .paused(position()) : .resumed(position()))
            }
            controls.publish(paused: paused, frames: written, applied: applied)
            let n = ring.read(into: chunk, count: chunkSamples, multiple: channels)
            if n == 0 {
                if ended { break }
                waitForData()
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
            // The file's size is asked once per chunk, not once per event.
            var bytes: Int64?? = nil
            var offset = 0
            while offset < frames {
                let take = Int(min(Int64(frames - offset), nextEvent - written))
                meter.add(chunk + offset * channels, count: take * channels)
                written += Int64(take)
                offset += take
                if written == nextEvent {
                    nextEvent += eventEvery
                    if bytes == nil { bytes = .some(FileSystem.size(file.path)) }
                    onEvent(.progress(.init(position: position(), level: meter.level, bytes: bytes!, total: nil)))
                    total.merge(meter)
                    meter.reset()
                }
            }
            // Durability is a matter of time, not of audio: at least once a second a power cut
            // could lose no more than the last second. On a real-time device that is a second
            // of audio; a faster-than-real-time device is not held to 600 fsyncs a minute.
            let now = monotonicSeconds()
            if now - lastSync >= 1 {
                file.sync()
                lastSync = now
            }
            let xruns = pcm.recoveries
            if xruns != reportedXruns {
                reportedXruns = xruns
                onEvent(.xrun(position(), count: xruns))
            }
        }
        thread.join()
        total.merge(meter)
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

/// Seconds on the monotonic clock, for pacing that must not follow wall-clock jumps.
func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

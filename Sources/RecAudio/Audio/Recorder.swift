import RecSystem
import Synchronization

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
// @unchecked Sendable: `stop`, `togglePause`, `mark` and `controls` are the only members used from
// other threads, and they are atomics and the mailbox. Between the capture thread and the
// writer: the ring is single-producer single-consumer; `captureError` is written by the
// capture thread before it ends and read only after `join`.
package final class Recorder: @unchecked Sendable {
    package let pcm: PCM
    package let ring: SampleRing
    /// Stop after this many frames (`--duration`), counted exactly.
    package let frameLimit: Int64?
    /// `--start-on-voice` / `--stop-on-silence`: a `VoiceGate` between the ring and the
    /// file. The frame limit then counts the frames written, not those captured.
    package let voice: VoiceTrigger?
    /// After `run`, with `voice`: whether the silence stopped it, and where the last speech
    /// region ended (frames of the file; nil if none).
    package private(set) var stoppedOnSilence = false
    package private(set) var speechEnd: Int64?

    private let stopRequested = Atomic<Bool>(false)
    fileprivate let pauseRequested = Atomic<Bool>(false)
    /// Ctrl-Z: set before the process stops, cleared once it is continued (see `suspending`).
    private let suspended = Atomic<Bool>(false)
    private let resumedFromSuspension = Atomic<Bool>(false)
    private let captureEnded = Atomic<Bool>(false)
    private let overrunCount = AtomicCounter()
    /// Signalled by the capture thread after each period it pushes, so the writer sleeps
    /// until there is audio instead of polling the ring on a timer.
    private let dataReady = Semaphore()
    private var captureError: Error?
    /// Frames written to the file by `run` so far (also after it threw).
    package private(set) var framesWritten: Int64 = 0
    /// Commands from other processes (through the view state); taken by the writer loop,
    /// which turns them into the flags the capture thread reads.
    package let controls = ControlMailbox()

    /// Opens the device now, so a bad device fails before any file exists.
    package init(
        device: String, rate: Int, channels: Int, frameLimit: Int64? = nil,
        ringSeconds: Double = 4, configuration: String? = nil, voice: VoiceTrigger? = nil
    ) throws {
        // Periods of an eighth of a second (arecord's choice for a half-second buffer): each
        // one wakes the capture thread and the writer, and a round trip to a sound server.
        // Commands do not wait for a period: they wake the writer themselves.
        pcm = try PCM(
            name: device, direction: .capture, rate: rate, channels: channels,
            periodMicroseconds: 125_000, configuration: configuration)
        ring = SampleRing(minimumCapacity: Int(Double(rate * channels) * max(ringSeconds, 2)))
        self.frameLimit = frameLimit
        self.voice = voice
        // A command must not wait out the writer's tenth-of-a-second sleep (longer while
        // paused, when no audio arrives to wake it).
        controls.onSubmit = { [dataReady] in dataReady.signal() }
    }

    /// Waits until the capture thread has pushed more audio, a command or key arrived, or
    /// half a second passed (nothing needs the writer on a timer: each of those signals).
    private func waitForData() { dataReady.wait(milliseconds: 500) }

    /// Asks the recording to stop; safe from any thread (a signal watcher, a key reader).
    package func stop() {
        stopRequested.store(true, ordering: .relaxed)
        dataReady.signal()
    }

    package func togglePause() {
        var current = pauseRequested.load(ordering: .relaxed)
        while !pauseRequested.compareExchange(expected: current, desired: !current, ordering: .relaxed).exchanged {
            current = pauseRequested.load(ordering: .relaxed)
        }
        dataReady.signal()  // the writer reports the pause at once
    }

    package var isPaused: Bool { pauseRequested.load(ordering: .relaxed) }

    /// Called before the process stops (Ctrl-Z): the recording keeps nothing of the time it
    /// is stopped, as it keeps nothing of a pause. While stopped the device (or the sound
    /// server: PulseAudio held ~4 s of a 5 s stop) goes on buffering; what the capture thread
    /// reads from now until `resumed()` is dropped, and then so is all the device holds.
    package func suspending() { suspended.store(true, ordering: .relaxed) }

    /// Called once the process is continued (`fg`).
    package func resumed() { resumedFromSuspension.store(true, ordering: .relaxed) }

    /// A marker at what has been captured so far (a key: `m`, `M`).
    package func mark(label: String = "") { controls.submit(.mark(label: label)) }

    /// A marker at `frame` (`M`: taken when the key was pressed, labelled later).
    package func mark(label: String, at frame: Int64) { controls.submit(.markAt(label: label, frame: frame)) }

    package var overruns: Int { overrunCount.load() }

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
                if let limit = frameLimit, voice == nil {
                    if captured >= limit { break }
                    want = Int(min(Int64(want), limit - captured))
                }
                let frames = try pcm.read(into: buffer, frames: want)
                if suspended.load(ordering: .relaxed) {
                    // Audio of (or buffered during) the stopped time: dropped, and once
                    // continued, what the device still holds of it too.
                    if resumedFromSuspension.exchange(false, ordering: .relaxed) {
                        suspended.store(false, ordering: .relaxed)
                        try pcm.restart()
                    }
                    continue
                }
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
                dataReady.signal()
            }
        } catch {
            captureError = error
        }
        captureEnded.store(true, ordering: .releasing)
        dataReady.signal()
    }

    /// Records into `file` until stopped, the frame limit is reached, or the device fails.
    /// Events go to `onEvent` on the calling thread. The file is synced at least once per
    /// second of audio. Returns the frames written; the caller closes the file. On a device
    /// failure after some audio was written, the `failed` event is sent and the error
    /// thrown; what was written stays in the file.
    @discardableResult
    package func run(into file: AudioSink, onEvent: (AudioEvent) -> Void) throws -> Int64 {
        var loop = WriterLoop(recorder: self, file: file)
        defer {
            framesWritten = loop.written
            stoppedOnSilence = loop.gate?.isStopped ?? false
            speechEnd = loop.gate?.speechEndInFile.map { min($0, loop.written) }
        }
        onEvent(
            .started(
                .init(
                    device: pcm.name, file: file.path, sampleRate: pcm.rate, channels: pcm.channels,
                    position: loop.position, total: nil)))
        let thread = try JoinableThread { [self] in captureLoop() }
        while true {
            let ended = captureEnded.load(ordering: .acquiring)
            loop.applyCommands(onEvent)
            let frames = loop.takeFromRing()
            if frames == 0 {
                if ended { break }
                waitForData()
                continue
            }
            if loop.gate != nil {
                loop.passThroughGate(frames, onEvent)
                continue
            }
            guard loop.writeChunk(frames) else { continue }  // after a write error: keep draining
            loop.measureAndReport(frames, onEvent)
            loop.syncIfDue()
            loop.reportXruns(onEvent)
        }
        thread.join()
        loop.total.merge(loop.meter)
        if let error = loop.writeError ?? captureError {
            onEvent(.failed(loop.position, message: (error as? AudioError)?.eventMessage ?? "\(error)"))
            pcm.close()
            throw error
        }
        pcm.close()
        onEvent(
            .finished(
                .init(position: loop.position, xruns: pcm.recoveries, overruns: overruns, level: loop.total.level)))
        return loop.written
    }

    /// The writer's side of `run`, one named step at a time: it owns everything that lives
    /// across turns of the loop.
    private struct WriterLoop: ~Copyable {
        let recorder: Recorder
        let file: AudioSink
        let rate: Int, channels: Int
        let chunk: UnsafeMutablePointer<Int16>
        let chunkSamples: Int
        let eventEvery: Int64
        var written: Int64 = 0
        var nextEvent: Int64
        var meter = LevelMeter(), total = LevelMeter()
        var paused = false
        var reportedXruns = 0
        var lastSync = MonotonicClock.now()
        var writeError: Error?
        var gate: VoiceGate?
        /// While waiting for voice: the next captured frame that gets a progress event.
        var nextWaitingEvent: Int64

        init(recorder: Recorder, file: AudioSink) {
            self.recorder = recorder
            self.file = file
            rate = recorder.pcm.rate
            channels = recorder.pcm.channels
            // Up to half a second per write: fewer, larger writes to the file; events are
            // still cut at every tenth of a second of audio.
            chunkSamples = max(recorder.pcm.periodFrames, rate / 2) * channels
            chunk = .allocate(capacity: chunkSamples)
            eventEvery = Int64(max(rate / 10, 1))
            nextEvent = eventEvery
            nextWaitingEvent = eventEvery
            gate = recorder.voice.map { VoiceGate(trigger: $0, rate: rate, channels: channels) }
        }

        deinit { chunk.deallocate() }

        var position: AudioPosition { AudioPosition(frames: written, sampleRate: rate) }

        /// The pause key and remote commands, each applied and reported on its own (two
        /// toggles taken together are a pause and a resume, not nothing); then the state
        /// reached is published for the follower. The capture thread is told only the state
        /// the turn ends in: a pause and a resume taken together drop no audio.
        mutating func applyCommands(_ onEvent: (AudioEvent) -> Void) {
            // A key (space) flips the flag directly.
            if recorder.isPaused != paused {
                paused.toggle()
                onEvent(paused ? .paused(position) : .resumed(position))
            }
            let told = paused
            var applied = 0
            for entry in recorder.controls.take() {
                var pause = paused
                switch entry.command {
                case .pause: pause = true
                case .resume: pause = false
                case .toggle: pause = !paused
                case .stop: recorder.stop()
                // Nothing to seek or speed up in a recording; refused before it is sent.
                case .seek, .skip, .seekMark, .speed, .speedBy: break
                case .mark(let label):
                    // At what has been captured, not only written: the moment the user
                    // means is now, and the ring may still hold what came before it.
                    let frames = written + Int64(recorder.ring.count / channels)
                    onEvent(.marked(AudioPosition(frames: frames, sampleRate: rate), label: label))
                case .markAt(let label, let frame):
                    onEvent(.marked(AudioPosition(frames: frame, sampleRate: rate), label: label))
                }
                if pause != paused {
                    paused = pause
                    onEvent(paused ? .paused(position) : .resumed(position))
                }
                applied = max(applied, entry.sequence)
            }
            // Exchanged, not stored: each key pressed since the flag was read flips it once
            // more, and is taken on the next turn.
            if paused != told {
                var seen = told
                var wanted = paused
                while case let swap = recorder.pauseRequested.compareExchange(
                    expected: seen, desired: wanted, ordering: .relaxed), !swap.exchanged
                {
                    seen = swap.original
                    wanted.toggle()
                }
            }
            recorder.controls.publish(paused: paused, frames: written, applied: applied)
        }

        /// Whole frames from the ring into `chunk`; 0 when it is empty.
        func takeFromRing() -> Int {
            recorder.ring.read(into: chunk, count: chunkSamples, multiple: channels) / channels
        }

        /// Appends the chunk (or `samples`) to the file; false (and the recording stopping)
        /// if that failed now or before.
        mutating func writeChunk(_ frames: Int, from samples: UnsafePointer<Int16>? = nil) -> Bool {
            guard writeError == nil else { return false }
            do {
                try file.write(samples ?? UnsafePointer(chunk), frames: frames)
                return true
            } catch {
                writeError = error
                recorder.stop()
                return false
            }
        }

        /// Levels per tenth of a second of audio: the chunk is split at event boundaries.
        /// The file's size is asked once per chunk, not once per event.
        mutating func measureAndReport(
            _ frames: Int, _ onEvent: (AudioEvent) -> Void, from samples: UnsafePointer<Int16>? = nil
        ) {
            let samples = samples ?? UnsafePointer(chunk)
            var bytes: Int64?? = nil
            var offset = 0
            while offset < frames {
                let take = Int(min(Int64(frames - offset), nextEvent - written))
                meter.add(samples + offset * channels, count: take * channels)
                written += Int64(take)
                offset += take
                if written == nextEvent {
                    nextEvent += eventEvery
                    if bytes == nil { bytes = .some(FileSystem.size(file.path)) }
                    onEvent(
                        .progress(
                            .init(position: position, level: meter.level, bytes: bytes!, total: nil, voice: gate?.state)
                        ))
                    total.merge(meter)
                    meter.reset()
                }
            }
        }

        /// With a `VoiceGate`: what of the chunk the gate lets through is written (up to the
        /// frame limit, which here counts written frames); while waiting for voice, progress
        /// events at position 0 say so. The gate's end, or the limit's, stops the recorder.
        mutating func passThroughGate(_ frames: Int, _ onEvent: (AudioEvent) -> Void) {
            let remaining = recorder.frameLimit.map { max($0 - written, 0) } ?? .max
            switch gate!.pass(chunk, frames: frames) {
            case .nothing:
                if gate!.isWaiting { reportWaiting(frames, onEvent) }
            case .frames(let n):
                let n = Int(min(Int64(n), remaining))
                if n > 0, writeChunk(n) { measureAndReport(n, onEvent) }
            case .held(let samples):
                let n = Int(min(Int64(samples.count / channels), remaining))
                samples.withUnsafeBufferPointer { buffer in
                    if n > 0, writeChunk(n, from: buffer.baseAddress!) {
                        measureAndReport(n, onEvent, from: buffer.baseAddress!)
                    }
                }
            }
            if gate!.isStopped || (recorder.frameLimit.map { written >= $0 } ?? false) { recorder.stop() }
            syncIfDue()
            reportXruns(onEvent)
        }

        private mutating func reportWaiting(_ frames: Int, _ onEvent: (AudioEvent) -> Void) {
            meter.add(chunk, count: frames * channels)
            let captured = gate!.captured
            guard captured >= nextWaitingEvent else { return }
            while nextWaitingEvent <= captured { nextWaitingEvent += eventEvery }
            onEvent(
                .progress(.init(position: position, level: meter.level, bytes: nil, total: nil, voice: gate!.state)))
            meter.reset()
        }

        /// Durability is a matter of time, not of audio: at least once a second a power cut
        /// could lose no more than the last second. On a real-time device that is a second
        /// of audio; a faster-than-real-time device is not held to 600 fsyncs a minute.
        mutating func syncIfDue() {
            let now = MonotonicClock.now()
            if now - lastSync >= 1 {
                file.sync()
                lastSync = now
            }
        }

        mutating func reportXruns(_ onEvent: (AudioEvent) -> Void) {
            let xruns = recorder.pcm.recoveries
            if xruns != reportedXruns {
                reportedXruns = xruns
                onEvent(.xrun(position, count: xruns))
            }
        }
    }
}

import Atomics

#if canImport(Glibc)
import Glibc
#endif

/// Plays a stretch of a sound file through an ALSA PCM.
///
/// The start is reached with `sf_seek`, so the first frame the device gets is the decoded
/// frame at the start position, whatever the file's length. Controls (pause, seek, stop)
/// may come from any thread; the playing thread picks them up between periods.
public final class Player: @unchecked Sendable {
    public let pcm: PCM
    public let file: SoundFile

    private let stopRequested = ManagedAtomic<Bool>(false)
    /// Pause, resume and seeks, from keys and from other processes alike: one ordered queue,
    /// so a key and a remote command arriving together are both applied.
    public let controls = ControlMailbox()

    public init(file: SoundFile, device: String, configuration: String? = nil) throws {
        self.file = file
        pcm = try PCM(name: device, direction: .playback, rate: file.sampleRate, channels: file.channels,
                      bufferMicroseconds: 250_000, configuration: configuration)
    }

    /// Safe from any thread, also one that must not take a lock (the signal watcher).
    public func stop() { stopRequested.store(true, ordering: .relaxed) }

    public func togglePause() { controls.submit(.toggle) }

    /// Moves the play position by `seconds` (negative: back), stopping at either end.
    public func seek(by seconds: Double) { controls.submit(.skip(by: seconds)) }

    public enum Ending: Equatable, Sendable {
        /// Reached the end (or `--until`).
        case completed
        /// Stopped by `stop()`.
        case stopped
    }

    /// Plays from frame `start` up to (not including) frame `end`, beginning paused if
    /// `paused`. Returns where playback ended, counted as the frames the listener has
    /// heard, and why.
    public func run(from start: Int64, until end: Int64, paused startPaused: Bool = false,
                    onEvent: (AudioEvent) -> Void) throws -> (AudioPosition, Ending) {
        let rate = file.sampleRate, channels = file.channels
        let end = max(start, end)
        let period = pcm.periodFrames
        let chunk = UnsafeMutablePointer<Int16>.allocate(capacity: period * channels)
        defer { chunk.deallocate() }
        let total = AudioPosition(frames: end, sampleRate: rate)
        let eventEvery = Int64(max(rate / 10, 1))
        var position = start
        /// Where the device was last started from: nothing before it can still be queued.
        var base = start
        var nextEvent = start + eventEvery
        var paused = startPaused
        /// The chunk last read from the file, and how much of its end is not yet written.
        var chunkFrames = 0, unwritten = 0
        var meter = LevelMeter(), overall = LevelMeter()
        var reportedXruns = 0
        func at(_ frames: Int64) -> AudioPosition { AudioPosition(frames: frames, sampleRate: rate) }
        /// What the listener has heard: what was written, less what the device still holds.
        func heard() -> Int64 { paused ? position : max(base, position - Int64(pcm.delay())) }
        func frames(_ seconds: Double) -> Int64 { Int64((seconds * Double(rate)).rounded()) }

        do {
            try file.seek(to: start)
            onEvent(.started(.init(device: pcm.name, file: file.path, sampleRate: rate, channels: channels,
                                   position: at(start), total: total)))
            if paused { onEvent(.paused(at(position))) }
            controls.publish(paused: paused, frames: position, applied: 0)
            var ending = Ending.completed
            while true {
                if stopRequested.load(ordering: .relaxed) {
                    ending = .stopped
                    break
                }
                var applied = 0
                // Dropping what the device holds can take a round trip to a sound server
                // (PulseAudio re-creates its stream), so it is done after the events and
                // the report: the new state shows at once; the audio stops a moment later.
                var restart = false
                for command in controls.take() {
                    switch command.action {
                    case .pause, .resume, .toggle:
                        let pause = command.action == .toggle ? !paused : command.action == .pause
                        guard pause != paused else { break }
                        if pause {
                            // What is still queued in the device is dropped, so resuming
                            // plays from exactly what was heard.
                            position = heard()
                            restart = true
                            try file.seek(to: position)
                            base = position
                            unwritten = 0
                            paused = true
                            onEvent(.paused(at(position)))
                        } else {
                            paused = false
                            onEvent(.resumed(at(position)))
                        }
                    case .stop:
                        stop()
                    case .seek, .skip:
                        let from = heard()
                        var target: Int64
                        if case let .seek(to) = command.action { target = frames(to) } else if case let .skip(by) = command.action {
                            target = from + frames(by)
                        } else { target = from }
                        target = min(max(target, 0), end)
                        if !paused { restart = true }
                        try file.seek(to: target)
                        unwritten = 0
                        position = target
                        base = target
                        nextEvent = target + eventEvery
                        meter.reset()
                        onEvent(.seeked(from: at(from), to: at(target)))
                    }
                    applied = max(applied, command.sequence)
                }
                controls.publish(paused: paused, frames: heard(), applied: applied)
                if restart { try pcm.restart() }
                if stopRequested.load(ordering: .relaxed) {
                    ending = .stopped
                    break
                }
                if paused {
                    controls.wait(milliseconds: 50)
                    continue
                }
                if unwritten == 0 {
                    if position >= end { break }
                    let want = Int(min(Int64(period), end - position))
                    let frames = try file.read(into: chunk, frames: want)
                    if frames == 0 {
                        // Shorter than its header says. A lossy codec's count may be off by less
                        // than a frame of its own; more than that is a truncated file.
                        if file.frames - position > 2048 {
                            throw AudioError(.file(file.path), "cannot decode", reason: "the audio ends at frame \(position) of \(file.frames); the file is truncated")
                        }
                        break
                    }
                    meter.add(chunk, count: frames * channels)
                    overall.add(chunk, count: frames * channels)
                    chunkFrames = frames
                    unwritten = frames
                }
                // Commands that arrive while the device is full end the write early; the rest
                // of the chunk waits for the next turn, unless a pause or seek drops it.
                let written = try pcm.write(chunk + (chunkFrames - unwritten) * channels, frames: unwritten) {
                    controls.hasQueued || stopRequested.load(ordering: .relaxed)
                }
                unwritten -= written
                position += Int64(written)
                while position >= nextEvent {
                    onEvent(.progress(.init(position: at(nextEvent), level: meter.level, bytes: nil, total: total)))
                    meter.reset()
                    nextEvent += eventEvery
                }
                let xruns = pcm.recoveries
                if xruns != reportedXruns {
                    reportedXruns = xruns
                    onEvent(.xrun(at(position), count: xruns))
                }
            }
            let final: Int64
            if ending == .completed {
                try pcm.drain()
                final = position
            } else {
                final = heard()
            }
            pcm.close()
            onEvent(.finished(.init(position: at(final), xruns: pcm.recoveries, overruns: 0, level: overall.level)))
            return (at(final), ending)
        } catch {
            let reached = heard()
            pcm.close()
            onEvent(.failed(at(reached), message: (error as? AudioError)?.description ?? "\(error)"))
            throw error
        }
    }
}

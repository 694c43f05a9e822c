import RecValues
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Plays a stretch of a sound file through an ALSA PCM.
///
/// The start is reached with `sf_seek`, so the first frame the device gets is the decoded
/// frame at the start position, whatever the file's length. Controls (pause, seek, stop)
/// may come from any thread; the playing thread picks them up between periods.
// @unchecked Sendable: only `stop`, `togglePause`, `seek(by:)`, `changeSpeed` and `controls`
// are used from other threads (an atomic flag and the mailbox); everything else, `effects`
// included, belongs to the thread that calls `run`.
package final class Player: @unchecked Sendable {
    package let pcm: PCM
    package let file: SoundFile

    private let stopRequested = Atomic<Bool>(false)
    /// Pause, resume and seeks, from keys and from other processes alike: one ordered queue,
    /// so a key and a remote command arriving together are both applied.
    package let controls = ControlMailbox()

    /// The effects the frames go through between the file and the device (`AudioChain`);
    /// empty, they go as they are. The suppressor's and the leveller's output frame n is their
    /// input frame n, so positions count as with a stretcher at 1×; what they hold back (a
    /// frame, 20 ms; the look-ahead, 5 ms) is heard that much later.
    package let effects: AudioChain
    /// The stretcher, when playing at another speed than 1× (`play --speed`); nil at 1×.
    /// A speed change while playing at 1× makes one (on the playing thread, between periods);
    /// once made it stays, also back at 1×, so that what it holds plays on without a gap.
    package var stretch: TimeStretch? { effects.stretch }

    package convenience init(
        file: SoundFile, device: String, configuration: String? = nil, speed: PlaybackSpeed = .normal,
        level: Leveller? = nil, denoise: Denoiser? = nil
    ) throws {
        try self.init(
            file: file, device: device, configuration: configuration,
            effects: AudioEffects(denoise: denoise, speed: speed, level: level))
    }

    package init(file: SoundFile, device: String, configuration: String? = nil, effects: AudioEffects) throws {
        self.file = file
        self.effects = try AudioChain(effects, rate: file.sampleRate, channels: file.channels)
        pcm = try PCM(
            name: device, direction: .playback, rate: file.sampleRate, channels: file.channels,
            bufferMicroseconds: 500_000, periodMicroseconds: 125_000, configuration: configuration)
    }

    /// Safe from any thread, also one that must not take a lock (the signal watcher).
    package func stop() {
        stopRequested.store(true, ordering: .relaxed)
        controls.wakeWaiter()  // sem_post: no lock, safe from the signal watcher
    }

    package func togglePause() { controls.submit(.toggle) }

    /// To the next or previous of `frames` (keys `]` and `[`).
    package func seekMark(forward: Bool, frames: [Int64]) {
        controls.submit(.seekMark(forward: forward, frames: frames))
    }

    /// A marker where the listener is (a key: `m`, `M`).
    package func mark(label: String = "") { controls.submit(.mark(label: label)) }

    /// A marker at `frame` (`M`: taken when the key was pressed, labelled later).
    package func mark(label: String, at frame: Int64) { controls.submit(.markAt(label: label, frame: frame)) }

    /// Moves the play position by `seconds` (negative: back), stopping at either end.
    package func seek(by seconds: Double) { controls.submit(.skip(by: seconds)) }

    /// Faster by `steps` of `PlaybackSpeed.step` (negative: slower), or back to 1× (nil).
    package func changeSpeed(by steps: Int?) {
        controls.submit(steps.map { .speedBy(Double($0) * PlaybackSpeed.step) } ?? .speed(to: 1))
    }

    package enum Ending: Equatable, Sendable {
        /// Reached the end (or `--until`).
        case completed
        /// Stopped by `stop()`.
        case stopped
    }

    /// Plays from frame `start` up to (not including) frame `end`, beginning paused if
    /// `paused`. Returns where playback ended, counted as the frames the listener has
    /// heard, and why.
    /// `skipping` (sorted, apart): stretches jumped over as if they were not there
    /// (`play --skip-silence`); positions stay in the file's own time. Seeks stop at
    /// `floor` (a trim's in point) and `end`.
    /// `levels`: whether the events carry the audio's level (progress, and the whole at the
    /// end); without, they say `Level.silence` and no sample is measured, for a caller that
    /// shows no level (`play` but with `--progress json`, browse): two passes over every
    /// sample that nothing would read.
    package func run(
        from start: Int64, until end: Int64, paused startPaused: Bool = false, skipping: [Range<Int64>] = [],
        floor: Int64 = 0, levels: Bool = true, onEvent: (AudioEvent) -> Void
    ) throws -> (AudioPosition, Ending) {
        var loop = PlayLoop(player: self, start: start, end: max(start, end), paused: startPaused)
        loop.levels = levels
        loop.skips = skipping
        loop.floor = min(max(floor, 0), start)
        do {
            // The suppressor learns the noise from what is about to play (and leaves the file at start).
            try effects.denoise?.prime(from: file, at: start, end: loop.end)
            try file.seek(to: start)
            onEvent(
                .started(
                    .init(
                        device: pcm.name, file: file.path, sampleRate: loop.rate, channels: loop.channels,
                        position: loop.at(start), total: loop.total, speed: stretch?.speed)))
            if loop.paused { onEvent(.paused(loop.at(loop.position))) }
            controls.publish(speed: stretch?.speed.factor ?? 1)
            controls.publish(paused: loop.paused, frames: loop.position, applied: 0)
            var ending = Ending.completed
            while true {
                if isStopping {
                    ending = .stopped
                    break
                }
                try loop.applyCommands(onEvent)
                if isStopping {
                    ending = .stopped
                    break
                }
                if loop.paused {
                    controls.wait(milliseconds: 500)  // a command or stop() wakes it at once
                    continue
                }
                guard try loop.fillChunk() else { break }
                try loop.writeChunk()
                loop.emitProgress(onEvent)
                loop.reportXruns(onEvent)
            }
            let final: Int64
            if ending == .completed {
                try pcm.drain()
                final = loop.position
            } else {
                final = loop.heard()
            }
            controls.publish(paused: loop.paused, frames: final, applied: 0)  // where it ended, for the follower
            pcm.close()
            onEvent(
                .finished(
                    .init(position: loop.at(final), xruns: pcm.recoveries, overruns: 0, level: loop.overall.level)))
            return (loop.at(final), ending)
        } catch {
            let reached = loop.heard()
            pcm.close()
            onEvent(.failed(loop.at(reached), message: (error as? AudioError)?.eventMessage ?? "\(error)"))
            throw error
        }
    }

    private var isStopping: Bool { stopRequested.load(ordering: .relaxed) }

    /// The state of `run` that lives across turns of its loop, and its steps by name.
    private struct PlayLoop: ~Copyable {
        let player: Player
        let rate: Int, channels: Int
        let end: Int64
        let total: AudioPosition
        let period: Int
        let chunk: UnsafeMutablePointer<Int16>
        let eventEvery: Int64
        /// Frames written to the device so far (or the position reached by a pause or seek).
        var position: Int64
        /// Where the device was last started from: nothing before it can still be queued.
        var base: Int64
        var nextEvent: Int64
        var paused: Bool
        /// The chunk last read from the file (or, stretched, the frames the stretcher gave
        /// for it), and how much of its end is not yet written.
        var chunkFrames = 0, unwritten = 0
        /// With a stretcher: `position` counts frames of the file fed to it, and what was
        /// written is counted in frames of output since `base` (`written`), each worth the
        /// speed it was made at in frames of the file (`segments`); `skipped`: frames jumped
        /// over since `base` (--skip-silence).
        var stretched: [Int16] = []
        var written: Int64 = 0
        /// From output frame `start` on (counted as `written`), output is worth `speed` frames
        /// of the file each, starting at file frame `origin`. A speed change adds one, so that
        /// what the device still holds from before it keeps its own speed and the position
        /// does not jump; the first one also covers what is queued from before `written`
        /// began (negative output frames).
        struct Segment {
            var start: Int64
            var origin: Double
            var speed: Double
            func frame(at out: Int64) -> Double { origin + Double(out - start) * speed }
        }
        var segments: [Segment]
        var skipped: Int64 = 0
        var flushed = false
        var meter = LevelMeter(), overall = LevelMeter()
        var levels = true
        var reportedXruns = 0
        var skips: [Range<Int64>] = []
        var floor: Int64 = 0

        init(player: Player, start: Int64, end: Int64, paused: Bool) {
            self.player = player
            rate = player.file.sampleRate
            channels = player.file.channels
            self.end = end
            total = AudioPosition(frames: end, sampleRate: rate)
            period = player.pcm.periodFrames
            chunk = .allocate(capacity: period * channels)
            eventEvery = Int64(max(rate / 10, 1))
            position = start
            base = start
            segments = [Segment(start: 0, origin: Double(start), speed: player.stretch?.speed.factor ?? 1)]
            nextEvent = start + eventEvery
            self.paused = paused
        }

        deinit { chunk.deallocate() }

        func at(_ frames: Int64) -> AudioPosition { AudioPosition(frames: frames, sampleRate: rate) }

        /// What the listener has heard: what was written, less what the device still holds,
        /// in the recording's own time.
        func heard() -> Int64 {
            if paused { return position }
            guard processes else { return max(base, position - Int64(player.pcm.delay())) }
            let out = written - Int64(player.pcm.delay())
            // The segment the listener is in; before the first one's start, the first one's
            // speed (what was queued at 1× before a stretcher was made).
            let segment = segments.last { $0.start <= out } ?? segments[0]
            return min(max(base, Int64(segment.frame(at: out).rounded()) + skipped), end)
        }

        /// Where the written audio has reached in the recording (at 1×, `position`).
        var reached: Int64 {
            guard processes else { return position }
            return min(Int64(segments[segments.count - 1].frame(at: written).rounded()) + skipped, end)
        }

        /// A new start at `frame` (a pause, a seek): the stretcher forgets what it holds.
        mutating func restart(at frame: Int64) throws {
            try player.file.seek(to: frame)
            position = frame
            base = frame
            unwritten = 0
            written = 0
            skipped = 0
            flushed = false
            segments = [Segment(start: 0, origin: Double(frame), speed: player.stretch?.speed.factor ?? 1)]
            player.effects.reset()
        }

        /// Plays at `speed` from the next frames on, with no restart of the device: what it
        /// holds plays out at the speed it was made at. At 1× so far, a stretcher is made
        /// here and fed the rest of the chunk; otherwise the stretcher changes its ratio.
        private mutating func setSpeed(_ speed: PlaybackSpeed, _ onEvent: (AudioEvent) -> Void) {
            let current = player.stretch?.speed ?? .normal
            guard speed != current else { return }
            if let stretch = player.stretch {
                // What is still unwritten was made at the old speed: the new one starts after it.
                let start = written + Int64(unwritten)
                segments.append(
                    Segment(start: start, origin: segments[segments.count - 1].frame(at: start), speed: speed.factor))
                // Only what the device can still hold matters: a buffer's worth (seconds).
                if segments.count > 8 { segments.removeFirst(segments.count - 8) }
                stretch.change(to: speed)
            } else {
                // Without the library the playback goes on at 1× and the speed published stays
                // 1, which `status` reports (a key's change; `recnotes speed` opens the library
                // before it sends, and refuses without it).
                guard let stretch = try? TimeStretch(rate: rate, channels: channels, speed: speed, subject: "speed")
                else { return }
                let counted = processes
                player.effects.stretch = stretch
                if counted {
                    // Already counted in output frames (the leveller's or the suppressor's, at
                    // 1×): the new speed starts after what is unwritten, as above; the few frames
                    // they hold from before play at the new speed's count (5 ms, 20 ms).
                    let start = written + Int64(unwritten)
                    segments.append(
                        Segment(
                            start: start, origin: segments[segments.count - 1].frame(at: start), speed: speed.factor))
                    player.controls.publish(speed: speed.factor)
                    onEvent(.speedChanged(at(heard()), speed: speed))
                    return
                }
                // `position` counted frames written at 1×; what the device holds of them
                // plays as it is (the first segment's speed, 1, before output frame 0).
                segments = [
                    Segment(start: 0, origin: Double(position), speed: 1),
                    Segment(start: 0, origin: Double(position), speed: speed.factor),
                ]
                written = 0
                skipped = 0
                flushed = false
                if unwritten > 0 {
                    // The rest of the chunk read at 1× goes through the stretcher, so nothing
                    // is skipped or played twice.
                    let left = unwritten
                    stretched.removeAll(keepingCapacity: true)
                    stretch.process(chunk + (chunkFrames - left) * channels, frames: left, into: &stretched)
                    position += Int64(left)
                    chunkFrames = stretched.count / channels
                    unwritten = chunkFrames
                }
            }
            player.controls.publish(speed: speed.factor)
            onEvent(.speedChanged(at(heard()), speed: speed))
        }

        func frames(_ seconds: Double) -> Int64 { Int64((seconds * Double(rate)).rounded()) }

        /// Takes the queued commands, applies each with its event, publishes the state
        /// reached, and only then drops what the device holds if a pause or seek needs it:
        /// that can take a round trip to a sound server (PulseAudio re-creates its stream),
        /// so the new state shows at once and the audio stops a moment later.
        mutating func applyCommands(_ onEvent: (AudioEvent) -> Void) throws {
            var applied = 0
            var restart = false
            for entry in player.controls.take() {
                switch entry.command {
                case .pause, .resume, .toggle:
                    let pause = entry.command == .toggle ? !paused : entry.command == .pause
                    if pause != paused { restart = try setPaused(pause, onEvent) || restart }
                case .stop:
                    player.stop()
                case .seek(let to):
                    restart = try seek(to: frames(to), onEvent) || restart
                case .skip(let by):
                    restart = try seek(to: heard() + frames(by), onEvent) || restart
                case .mark(let label):
                    onEvent(.marked(at(heard()), label: label))
                case .speed(let to):
                    setSpeed(PlaybackSpeed(factor: to) ?? (player.stretch?.speed ?? .normal), onEvent)
                case .speedBy(let by):
                    setSpeed((player.stretch?.speed ?? .normal).changed(by: by), onEvent)
                case .markAt(let label, let frame):
                    onEvent(.marked(at(min(max(frame, 0), end)), label: label))
                case .seekMark(let forward, let frames):
                    let here = heard()
                    let sorted = frames.sorted()
                    let target = forward ? sorted.first { $0 > here } : sorted.last { $0 < here - Int64(rate / 2) } ?? 0
                    if let target { restart = try seek(to: target, onEvent) || restart }
                }
                applied = max(applied, entry.sequence)
            }
            player.controls.publish(paused: paused, frames: heard(), applied: applied)
            if restart { try player.pcm.restart() }
        }

        /// Pauses (at what was heard: what the device still holds is dropped, so resuming
        /// plays from exactly there) or resumes. True if the device must be restarted.
        private mutating func setPaused(_ pause: Bool, _ onEvent: (AudioEvent) -> Void) throws -> Bool {
            if pause {
                try restart(at: heard())
                paused = true
                onEvent(.paused(at(position)))
                return true
            }
            paused = false
            onEvent(.resumed(at(position)))
            return false
        }

        /// Moves to `target` (clamped to the stretch played). True if the device must be
        /// restarted (it is playing).
        private mutating func seek(to target: Int64, _ onEvent: (AudioEvent) -> Void) throws -> Bool {
            let from = heard()
            let target = min(max(target, floor), end)
            try restart(at: target)
            nextEvent = target + eventEvery
            meter.reset()
            onEvent(.seeked(from: at(from), to: at(target)))
            return !paused
        }

        /// Whether frames go through effects (`stretched`, counted as `written`), not from the
        /// file to the device as they are.
        var processes: Bool { !player.effects.isEmpty }

        /// Makes sure there is something to write: the rest of the last chunk, or the next
        /// period from the file. False at the end.
        mutating func fillChunk() throws -> Bool {
            guard unwritten == 0 else { return true }
            guard processes else { return try readChunk() }
            // Fed period by period until the effects give something; at the end, what they
            // still hold.
            stretched.removeAll(keepingCapacity: true)
            while stretched.isEmpty {
                if flushed { return false }
                if try readChunk() {
                    player.effects.process(
                        UnsafeBufferPointer(start: chunk, count: chunkFrames * channels), into: &stretched)
                    position += Int64(chunkFrames)
                } else {
                    player.effects.finish(into: &stretched)
                    flushed = true
                }
            }
            chunkFrames = stretched.count / channels
            unwritten = chunkFrames
            return true
        }

        /// The next period from the file into `chunk`. False at the end.
        mutating func readChunk() throws -> Bool {
            var limit = end
            if let skip = skips.first(where: { $0.upperBound > position && $0.lowerBound < end }) {
                if skip.lowerBound <= position {
                    // Jump over it: what was written before it plays on; the events go on
                    // from the far side.
                    skipped += min(skip.upperBound, end) - position
                    position = min(skip.upperBound, end)
                    try player.file.seek(to: position)
                    nextEvent = position + eventEvery
                    return try readChunk()
                }
                limit = skip.lowerBound
            }
            if position >= end { return false }
            let want = Int(min(Int64(period), limit - position))
            let frames = try player.file.read(into: chunk, frames: want)
            if frames == 0 {
                // Shorter than its header says. A lossy codec's count may be off by less
                // than a frame of its own; more than that is a truncated file.
                let file = player.file
                if file.frames - position > 2048 {
                    throw AudioError(
                        .file(file.path), "cannot decode",
                        reason: "the audio ends at frame \(position) of \(file.frames); the file is truncated")
                }
                return false
            }
            if levels {
                meter.add(chunk, count: frames * channels)
                overall.add(chunk, count: frames * channels)
            }
            chunkFrames = frames
            unwritten = frames
            return true
        }

        /// Writes what is unwritten of the chunk. Commands that arrive while the device is
        /// full end the write early; the rest waits for the next turn, unless a pause or
        /// seek drops it.
        mutating func writeChunk() throws {
            let player = player
            let offset = (chunkFrames - unwritten) * channels
            let unwritten = unwritten
            // The wait for room is the mailbox's, which a command or stop() ends at once.
            func write(_ from: UnsafePointer<Int16>) throws -> Int {
                try player.pcm.write(
                    from + offset, frames: unwritten,
                    interrupted: { player.controls.hasQueued || player.isStopping },
                    wait: { player.controls.wait(milliseconds: $0) })
            }
            if processes {
                let count = try stretched.withUnsafeBufferPointer { try write($0.baseAddress!) }
                self.unwritten -= count
                written += Int64(count)
            } else {
                let count = try write(chunk)
                self.unwritten -= count
                position += Int64(count)
            }
        }

        /// A progress event for every tenth of a second of audio written. A chunk longer than
        /// that (a device's period can be a quarter of a second) gives each of its events the
        /// level measured since the last ones: the meter started again after the first said
        /// silence (−96 dBFS) for the others.
        mutating func emitProgress(_ onEvent: (AudioEvent) -> Void) {
            guard reached >= nextEvent else { return }
            let level = meter.level
            while reached >= nextEvent {
                onEvent(.progress(.init(position: at(nextEvent), level: level, bytes: nil, total: total)))
                nextEvent += eventEvery
            }
            meter.reset()
        }

        mutating func reportXruns(_ onEvent: (AudioEvent) -> Void) {
            let xruns = player.pcm.recoveries
            if xruns != reportedXruns {
                reportedXruns = xruns
                onEvent(.xrun(at(position), count: xruns))
            }
        }
    }
}

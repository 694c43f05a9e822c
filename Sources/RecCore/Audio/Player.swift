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
    private let pauseRequested = ManagedAtomic<Bool>(false)
    /// Pending relative seeks, summed, in frames.
    private let seekRequested = ManagedAtomic<Int>(0)

    public init(file: SoundFile, device: String, configuration: String? = nil) throws {
        self.file = file
        pcm = try PCM(name: device, direction: .playback, rate: file.sampleRate, channels: file.channels,
                      bufferMicroseconds: 250_000, configuration: configuration)
    }

    public func stop() { stopRequested.store(true, ordering: .relaxed) }

    public func togglePause() {
        var current = pauseRequested.load(ordering: .relaxed)
        while !pauseRequested.compareExchange(expected: current, desired: !current, ordering: .relaxed).exchanged {
            current = pauseRequested.load(ordering: .relaxed)
        }
    }

    /// Moves the play position by `seconds` (negative: back), stopping at either end.
    public func seek(by seconds: Double) {
        seekRequested.wrappingIncrement(by: Int((seconds * Double(file.sampleRate)).rounded()), ordering: .relaxed)
    }

    public enum Ending: Equatable, Sendable {
        /// Reached the end (or `--until`).
        case completed
        /// Stopped by `stop()`.
        case stopped
    }

    /// Plays from frame `start` up to (not including) frame `end`. Returns where playback
    /// ended, counted as the frames the listener has heard, and why.
    public func run(from start: Int64, until end: Int64, onEvent: (AudioEvent) -> Void) throws -> (AudioPosition, Ending) {
        let rate = file.sampleRate, channels = file.channels
        let end = max(start, end)
        let period = pcm.periodFrames
        let chunk = UnsafeMutablePointer<Int16>.allocate(capacity: period * channels)
        defer { chunk.deallocate() }
        let total = AudioPosition(frames: end, sampleRate: rate)
        let eventEvery = Int64(max(rate / 10, 1))
        var position = start
        var nextEvent = start + eventEvery
        var meter = LevelMeter(), overall = LevelMeter()
        var reportedXruns = 0
        func at(_ frames: Int64) -> AudioPosition { AudioPosition(frames: frames, sampleRate: rate) }
        /// What the listener has heard: what was written, less what the device still holds.
        func heard() -> Int64 { max(start, position - Int64(pcm.delay())) }

        do {
            try file.seek(to: start)
            onEvent(.started(.init(device: pcm.name, file: file.path, sampleRate: rate, channels: channels,
                                   position: at(start), total: total)))
            var ending = Ending.completed
            playing: while position < end {
                if stopRequested.load(ordering: .relaxed) {
                    ending = .stopped
                    break
                }
                let delta = seekRequested.exchange(0, ordering: .relaxed)
                if delta != 0 {
                    let from = heard()
                    let target = min(max(from + Int64(delta), 0), end)
                    try pcm.restart()
                    try file.seek(to: target)
                    position = target
                    nextEvent = target + eventEvery
                    meter.reset()
                    onEvent(.seeked(from: at(from), to: at(target)))
                    continue
                }
                if pauseRequested.load(ordering: .relaxed) {
                    position = heard()
                    try pcm.restart()
                    try file.seek(to: position)
                    onEvent(.paused(at(position)))
                    while pauseRequested.load(ordering: .relaxed) {
                        if stopRequested.load(ordering: .relaxed) {
                            ending = .stopped
                            break playing
                        }
                        if seekRequested.load(ordering: .relaxed) != 0 { break }
                        usleep(20_000)
                    }
                    onEvent(.resumed(at(position)))
                    continue
                }
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
                try pcm.write(chunk, frames: frames)
                meter.add(chunk, count: frames * channels)
                overall.add(chunk, count: frames * channels)
                position += Int64(frames)
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

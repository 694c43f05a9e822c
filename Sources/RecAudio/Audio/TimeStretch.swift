import CSoundTouch
import RecSystem
import RecValues

/// Changes the tempo of audio and keeps its pitch: SoundTouch (WSOLA), whose tempo can change
/// between any two blocks it is fed (`play --speed`, `export --speed`). Fed interleaved frames
/// in the recording's time, it gives back interleaved frames at `speed`.
///
/// SoundTouch rather than Rubber Band (bench/RESULTS.md): as intelligible at 1.5×
/// on the speech bench as sox's `tempo` and Rubber Band, at about sox's CPU where Rubber
/// Band took 10 to 26 times it.
///
/// At 1× nothing of this is used: the player and the exporter take their usual path, and
/// the library is never opened (see CSoundTouch.h for why it is not linked).
///
/// The output starts where the input does (SoundTouch starts its first sequence at the first
/// frame fed, and holds back only its initial latency), and the lengths are exact: `finish`
/// gets out what is still inside and cuts the output at n / speed frames for n fed.
package final class TimeStretch {
    package let rate: Int
    package let channels: Int
    package private(set) var speed: PlaybackSpeed

    private let state: OpaquePointer
    /// Output owed for the input fed so far (each block's frames over the speed it was fed
    /// at), and output given: `finish` makes them meet.
    private var owed = 0.0
    private var given = 0
    /// `block` interleaved frames: 16-bit input scaled to floats on its way in, and output
    /// on its way out.
    private let inward: UnsafeMutablePointer<Float>
    private let outward: UnsafeMutablePointer<Float>
    static let block = 4096

    /// The shared object to open: `RECNOTES_SOUNDTOUCH` names another (a build of its own,
    /// one outside the library path); by default the system's.
    package static var libraryPath: String? { Environment.value("RECNOTES_SOUNDTOUCH") }

    /// Opens SoundTouch on first use; `subject` names what needed it, for the message.
    /// `kept`: the speed was not asked for but kept from the last playback, so the message
    /// names it and how to play without it.
    package static func load(for subject: String, kept: PlaybackSpeed? = nil) throws(RecError) {
        var why = [CChar](repeating: 0, count: 512)
        guard cst_load(libraryPath, &why, why.count) == 0 else {
            let reason = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let missing = "the SoundTouch library (install libsoundtouch1): \(reason)"
            guard let kept else { throw .failure(subject, "cannot load \(missing)") }
            throw .failure(
                subject,
                "the speed kept from the last playback (\(kept)) needs \(missing); "
                    + "'--speed 1' plays at 1× and forgets it")
        }
    }

    /// SoundTouch's own settings are kept (none is set): its sequence, seek window and
    /// overlap follow the tempo by themselves. On the speech bench its speech settings
    /// (`soundstretch -speech`) were worse and quick seek no better (bench/RESULTS.md,
    /// 2026-11-27); its anti-alias filter is for rate changes, not tempo.
    package init(rate: Int, channels: Int, speed: PlaybackSpeed, subject: String = "--speed") throws(RecError) {
        try Self.load(for: subject)
        guard rate > 0, channels > 0, let state = cst_new(UInt32(rate), UInt32(channels)) else {
            throw .failure(subject, "SoundTouch cannot stretch \(channels) channels at \(rate) Hz")
        }
        self.state = state
        self.rate = rate
        self.channels = channels
        self.speed = speed
        inward = .allocate(capacity: Self.block * channels)
        outward = .allocate(capacity: Self.block * channels)
        cst_set_tempo(state, Float(speed.factor))
    }

    deinit {
        cst_delete(state)
        inward.deallocate()
        outward.deallocate()
    }

    /// Changes the speed from the next frames fed on: no reset, so no gap and no click.
    package func change(to speed: PlaybackSpeed) {
        guard speed != self.speed else { return }
        // What SoundTouch holds unstretched comes out at the new speed, not at the one it
        // was fed at: what it owes is counted again (else `finish` pads or cuts by as much).
        owed += Double(cst_unprocessed(state)) * (1 / speed.factor - 1 / self.speed.factor)
        self.speed = speed
        cst_set_tempo(state, Float(speed.factor))
    }

    /// Forgets what was fed (a seek or a pause): the next frame fed is the next frame out.
    package func reset() {
        cst_clear(state)
        owed = 0
        given = 0
    }

    /// Frames of output per frame of input.
    package var ratio: Double { 1 / speed.factor }

    /// Feeds `frames` interleaved frames and appends what comes out to `output`;
    /// `final` for the last (then everything still inside comes out).
    package func process(_ input: UnsafePointer<Float>, frames: Int, final: Bool = false, into output: inout [Float]) {
        owed += Double(frames) / speed.factor
        var done = 0
        while done < frames {
            let n = min(Self.block, frames - done)
            cst_put(state, input + done * channels, UInt32(n))
            done += n
            receive { output.append(contentsOf: $0) }
        }
        if final { finish(into: &output) }
    }

    /// The same for 16-bit samples (the player's): scaled by 2^15 each way, clipped.
    package func process(_ input: UnsafePointer<Int16>, frames: Int, final: Bool = false, into output: inout [Int16]) {
        owed += Double(frames) / speed.factor
        var done = 0
        while done < frames {
            let n = min(Self.block, frames - done)
            let from = input + done * channels
            for i in 0..<(n * channels) { inward[i] = Float(from[i]) * (1 / 32768) }
            cst_put(state, inward, UInt32(n))
            done += n
            receive { Self.append($0, to: &output) }
        }
        if final { finish(into: &output) }
    }

    /// The end of the input: silence is fed behind it until all that is owed has come out,
    /// and the output cut there: n frames in make n / speed out. (Not SoundTouch's flush: it
    /// counts what is owed by the tempo each frame was fed at, and so cuts a stretch that a
    /// speed change made longer.) The stretcher then starts afresh, as after `reset`.
    package func finish(into output: inout [Float]) {
        finish { output.append(contentsOf: $0) }
    }

    package func finish(into output: inout [Int16]) {
        finish { Self.append($0, to: &output) }
    }

    private func finish(emit: (UnsafeBufferPointer<Float>) -> Void) {
        let target = Int(owed.rounded())
        inward.initialize(repeating: 0, count: Self.block * channels)
        var rounds = 0
        // A bound, not a loop forever on a library that stops giving: 64 blocks of silence
        // are seconds, more than SoundTouch ever holds back.
        while given < target && rounds < 64 {
            cst_put(state, inward, UInt32(Self.block))
            receive(limit: target, emit)
            rounds += 1
        }
        reset()
    }

    /// Moves what is ready out, `block` frames at a time, at most up to `limit` frames given
    /// in all (what is over is dropped).
    private func receive(limit: Int = .max, _ emit: (UnsafeBufferPointer<Float>) -> Void) {
        while cst_available(state) > 0 {
            let n = Int(cst_receive(state, outward, UInt32(Self.block)))
            if n == 0 { return }
            let kept = max(0, min(n, limit - given))
            given += kept
            if kept > 0 { emit(UnsafeBufferPointer(start: outward, count: kept * channels)) }
        }
    }

    private static func append(_ samples: UnsafeBufferPointer<Float>, to output: inout [Int16]) {
        output.reserveCapacity(output.count + samples.count)
        for s in samples { output.append(Int16(max(-32768, min(32767, (s * 32768).rounded())))) }
    }
}

import CRubberBand

/// Changes the tempo of audio and keeps its pitch: Rubber Band in its real-time mode, so the
/// speed can change while it runs (`play --speed`, `export --speed`). Fed interleaved frames
/// in the recording's time, it gives back interleaved frames at `speed`.
///
/// At 1× nothing of this is used: the player and the exporter take their usual path, and
/// the library is never opened (see CRubberBand.h for why it is not linked).
///
/// The output starts where the input does: the stretcher's own lead-in is fed as silence
/// first (its preferred start pad) and as much output dropped (its start delay), so a
/// stretch of n frames comes out as n / speed frames, to within a block.
public final class TimeStretch {
    public let rate: Int
    public let channels: Int
    public private(set) var speed: PlaybackSpeed
    /// Which Rubber Band engine runs: 3 is R3 ("finer"), 2 is R2 ("faster").
    public let engine: Int

    private let state: OpaquePointer
    /// Frames of output still to drop: the stretcher's start delay.
    private var drop = 0
    /// Output owed for the input fed so far (each block's frames over the speed it was fed
    /// at), and output given: `finish` makes them meet.
    private var owed = 0.0
    private var given = 0
    /// One de-interleaved buffer per channel, `block` frames each.
    private let planar: [UnsafeMutablePointer<Float>]
    private let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    static let block = 4096

    /// The shared object to open: `RECNOTES_RUBBERBAND` names another (a build of its own,
    /// one outside the library path); by default the system's.
    public static var libraryPath: String? { Environment.value("RECNOTES_RUBBERBAND") }

    /// R3 for speech by default: it keeps consonants sharper than R2 at 1.5× to 2×
    /// (bench/speed.sh); `RECNOTES_STRETCH_ENGINE=faster` takes R2, for the benchmark.
    static var options: Int32 {
        var options = Int32(CRB_PROCESS_REAL_TIME) | Int32(CRB_FORMANT_PRESERVED) | Int32(CRB_THREADING_NEVER)
        // Channels together: a stereo voice keeps its place between the speakers.
        options |= Int32(CRB_CHANNELS_TOGETHER)
        if Environment.value("RECNOTES_STRETCH_ENGINE") == "faster" {
            // R2's settings for speech: soft onsets, mixed transients (no smeared consonants).
            options |= Int32(CRB_TRANSIENTS_MIXED) | Int32(CRB_DETECTOR_SOFT)
        } else {
            options |= Int32(CRB_ENGINE_FINER)
        }
        return options
    }

    /// Opens Rubber Band on first use; `subject` names what needed it, for the message.
    public static func load(for subject: String) throws(RecError) {
        var why = [CChar](repeating: 0, count: 512)
        guard crb_load(libraryPath, &why, why.count) == 0 else {
            let reason = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .failure(subject, "cannot load the Rubber Band library (install librubberband2): \(reason)")
        }
    }

    public init(rate: Int, channels: Int, speed: PlaybackSpeed, subject: String = "--speed") throws(RecError) {
        try Self.load(for: subject)
        guard let state = crb_new(UInt32(rate), UInt32(channels), Self.options, 1 / speed.factor) else {
            throw .failure(subject, "Rubber Band cannot stretch \(channels) channels at \(rate) Hz")
        }
        self.state = state
        self.rate = rate
        self.channels = channels
        self.speed = speed
        engine = Int(crb_engine_version(state))
        planar = (0..<channels).map { _ in .allocate(capacity: Self.block) }
        pointers = .allocate(capacity: channels)
        for c in 0..<channels { pointers[c] = planar[c] }
        crb_set_max_process_size(state, UInt32(Self.block))
        prime()
    }

    deinit {
        crb_delete(state)
        for buffer in planar { buffer.deallocate() }
        pointers.deallocate()
    }

    /// Changes the speed from the next frames fed on: no reset, so no gap and no click.
    public func change(to speed: PlaybackSpeed) {
        guard speed != self.speed else { return }
        self.speed = speed
        crb_set_time_ratio(state, 1 / speed.factor)
    }

    /// Forgets what was fed (a seek or a pause): the next frame fed is the next frame out.
    public func reset() {
        crb_reset(state)
        owed = 0
        given = 0
        prime()
    }

    /// Frames of output per frame of input.
    public var ratio: Double { 1 / speed.factor }

    /// The lead-in: silence the stretcher wants before the first frame, and what of its
    /// output to drop so that the first frame out is the first frame in.
    private func prime() {
        var pad = Int(crb_preferred_start_pad(state))
        drop = Int(crb_start_delay(state))
        for c in 0..<channels { planar[c].initialize(repeating: 0, count: Self.block) }
        while pad > 0 {
            let n = min(pad, Self.block)
            crb_process(state, inputPointers, UInt32(n), 0)
            pad -= n
        }
    }

    /// Feeds `frames` interleaved frames and appends what comes out to `output`;
    /// `final` for the last (then everything still inside comes out).
    public func process(_ input: UnsafePointer<Float>, frames: Int, final: Bool = false, into output: inout [Float]) {
        feed(input, frames: frames, into: &output)
        if final { finish(into: &output) }
    }

    private func feed(_ input: UnsafePointer<Float>, frames: Int, into output: inout [Float]) {
        owed += Double(frames) / speed.factor
        var done = 0
        while done < frames {
            let n = min(Self.block, frames - done)
            for c in 0..<channels {
                let to = planar[c]
                var i = (done * channels) + c
                for f in 0..<n {
                    to[f] = input[i]
                    i += channels
                }
            }
            done += n
            crb_process(state, inputPointers, UInt32(n), 0)
            retrieve(into: &output)
        }
    }

    /// The same for 16-bit samples (the player's): scaled by 2^15 each way, clipped.
    public func process(_ input: UnsafePointer<Int16>, frames: Int, final: Bool = false, into output: inout [Int16]) {
        var floats = [Float](repeating: 0, count: frames * channels)
        for i in 0..<(frames * channels) { floats[i] = Float(input[i]) / 32768 }
        var out: [Float] = []
        out.reserveCapacity(Int(Double(frames) * ratio) * channels + Self.block * channels)
        floats.withUnsafeBufferPointer { process($0.baseAddress!, frames: frames, final: final, into: &out) }
        output.reserveCapacity(output.count + out.count)
        for s in out { output.append(Int16(max(-32768, min(32767, (s * 32768).rounded())))) }
    }

    /// The end of the input: what is still inside comes out. In real-time mode Rubber Band
    /// holds back up to a window of output whatever `final` says, so silence is fed behind
    /// the input until all that is owed has come out, and the output cut there: n frames in
    /// make n / speed out.
    public func finish(into output: inout [Float]) {
        let target = Int(owed.rounded())
        for c in 0..<channels { planar[c].initialize(repeating: 0, count: Self.block) }
        var rounds = 0
        // A bound, not a loop forever on a library that stops giving: a few seconds of silence.
        while given < target && rounds < 64 {
            crb_process(state, inputPointers, UInt32(Self.block), 0)
            retrieve(into: &output)
            rounds += 1
        }
        let over = given - target
        if over > 0 {
            output.removeLast(min(over * channels, output.count))
            given = target
        }
    }

    public func finish(into output: inout [Int16]) {
        var none: Int16 = 0
        process(&none, frames: 0, final: true, into: &output)
    }

    private var inputPointers: UnsafePointer<UnsafePointer<Float>?> {
        UnsafeRawPointer(pointers).assumingMemoryBound(to: UnsafePointer<Float>?.self)
    }

    private func retrieve(into output: inout [Float]) {
        while true {
            let available = crb_available(state)
            // -1: the final input has all come out. 0 while more input is wanted.
            if available <= 0 { return }
            let n = Int(crb_retrieve(state, pointers, UInt32(min(Int(available), Self.block))))
            if n == 0 { return }
            let skip = min(drop, n)
            drop -= skip
            if skip == n { continue }
            given += n - skip
            output.reserveCapacity(output.count + (n - skip) * channels)
            for f in skip..<n {
                for c in 0..<channels { output.append(planar[c][f]) }
            }
        }
    }
}

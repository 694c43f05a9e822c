import CEbur128

/// EBU R128 loudness of interleaved 16-bit audio, fed as it is decoded: libebur128 (through
/// CEbur128, opened on first use). `AudioAnalysis.analyze` feeds it the same blocks as the
/// level meter and the voice detector, so loudness costs no second decode.
public final class LoudnessMeter {
    private let state: OpaquePointer

    /// The shared object to open: `RECNOTES_EBUR128` names another (a build of its own, or
    /// one that is not there, to see recnotes without it); by default the system's.
    public static var libraryPath: String? { Environment.value("RECNOTES_EBUR128") }

    /// Opens libebur128 on first use; `subject` names what needed it, for the message.
    public static func load(for subject: String) throws(RecError) {
        var why = [CChar](repeating: 0, count: 512)
        guard ceb_load(libraryPath, &why, why.count) == 0 else {
            let reason = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .failure(subject, "cannot load the loudness meter (install libebur128-1): \(reason)")
        }
    }

    public init(channels: Int, rate: Int, subject: String = "loudness") throws(RecError) {
        try Self.load(for: subject)
        guard channels > 0, rate > 0, let state = ceb_new(UInt32(channels), UInt(rate)) else {
            throw .failure(subject, "libebur128 cannot measure \(channels) channels at \(rate) Hz")
        }
        self.state = state
    }

    deinit { ceb_delete(state) }

    /// The loudness of `frames` of the file at `path` from `start` (all of it when nil),
    /// decoded once: what `export --level` levels when the stored loudness is not of what it
    /// writes (trimmed, or a store from before version 5).
    public static func measure(path: String, from start: Int64 = 0, frames: Int64? = nil) throws -> Loudness {
        let file = try SoundFile.open(path: path)
        let meter = try LoudnessMeter(channels: file.channels, rate: file.sampleRate, subject: path)
        if start > 0 { try file.seek(to: start) }
        let chunk = 8192
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * file.channels)
        defer { buffer.deallocate() }
        var remaining = frames ?? .max
        while remaining > 0 {
            let n = try file.read(into: buffer, frames: Int(min(Int64(chunk), remaining)))
            if n == 0 { break }
            meter.add(buffer, frames: n)
            remaining -= Int64(n)
        }
        return meter.loudness
    }

    /// Feeds `frames` interleaved frames.
    public func add(_ samples: UnsafePointer<Int16>, frames: Int) {
        _ = ceb_add_short(state, samples, frames)
    }

    /// The loudness of everything fed so far, as the store keeps it.
    public var loudness: Loudness {
        var integrated = -Double.infinity
        var range = 0.0
        var peak = 0.0
        _ = ceb_integrated(state, &integrated)
        _ = ceb_range(state, &range)
        _ = ceb_true_peak(state, &peak)
        return .measured(integrated: integrated, range: range, truePeakLinear: peak)
    }
}

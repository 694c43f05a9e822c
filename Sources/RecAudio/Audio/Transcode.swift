import CAudio
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Peak and RMS of 32-bit integer or float samples, reported like `LevelMeter`'s.
struct WideLevelMeter {
    private var peak: Double = 0
    private var sumOfSquares: Double = 0
    private var samples = 0

    mutating func add(_ buffer: UnsafePointer<Float>, count: Int) {
        var p = Float(0)
        var sum = Float(0)
        for i in 0..<count {
            let s = buffer[i]
            p = max(p, abs(s))
            sum += s * s
        }
        peak = max(peak, Double(p))
        sumOfSquares += Double(sum)
        samples += count
    }

    mutating func add(_ buffer: UnsafePointer<Int16>, count: Int) {
        var p: Int32 = 0
        var sum: Int64 = 0
        for i in 0..<count {
            let s = Int32(buffer[i])
            p = max(p, s < 0 ? -s : s)
            sum += Int64(s * s)
        }
        peak = max(peak, Double(p) / 32768)
        sumOfSquares += Double(sum) / (32768.0 * 32768.0)
        samples += count
    }

    mutating func add(_ buffer: UnsafePointer<Int32>, count: Int) {
        var p: Int64 = 0
        var sum = 0.0
        for i in 0..<count {
            let s = Int64(buffer[i])
            p = max(p, s < 0 ? -s : s)
            let d = Double(s)
            sum += d * d
        }
        peak = max(peak, Double(p) / 2_147_483_648)
        sumOfSquares += sum / (2_147_483_648.0 * 2_147_483_648.0)
        samples += count
    }

    var level: Level {
        guard samples > 0 else { return .silence }
        return Level(peak: Level.decibels(peak), rms: Level.decibels((sumOfSquares / Double(samples)).squareRoot()))
    }
}

/// Turns frame counts into `AudioEvent`s for import and export: `started`, then `progress`
/// every 1% of the length (at least a second of audio apart), then `finished`. Like the
/// recorder's, the events are counted in frames of the source.
package final class TranscodeProgress {
    package let onEvent: (AudioEvent) -> Void
    private let rate: Int
    private let total: AudioPosition?
    private let interval: Int64
    private var nextReport: Int64
    private var sinceLast = WideLevelMeter()
    private var overall = WideLevelMeter()
    package private(set) var frames: Int64 = 0
    /// Bytes of output so far, when the caller knows them.
    package var bytes: () -> Int64? = { nil }

    package init(
        source: String, destination: String, rate: Int, channels: Int, totalFrames: Int64?,
        onEvent: @escaping (AudioEvent) -> Void
    ) {
        self.onEvent = onEvent
        self.rate = rate
        total = totalFrames.map { AudioPosition(frames: $0, sampleRate: rate) }
        interval = max(Int64(rate), (totalFrames ?? 0) / 100)
        nextReport = interval
        onEvent(
            .started(
                .init(
                    device: source, file: destination, sampleRate: rate, channels: channels,
                    position: AudioPosition(frames: 0, sampleRate: rate), total: total)))
    }

    func advance(_ count: Int, float buffer: UnsafePointer<Float>, channels: Int) {
        sinceLast.add(buffer, count: count * channels)
        overall.add(buffer, count: count * channels)
        advance(count)
    }

    func advance(_ count: Int, int buffer: UnsafePointer<Int32>, channels: Int) {
        sinceLast.add(buffer, count: count * channels)
        overall.add(buffer, count: count * channels)
        advance(count)
    }

    func advance16(_ count: Int, _ buffer: UnsafePointer<Int16>, channels: Int) {
        sinceLast.add(buffer, count: count * channels)
        overall.add(buffer, count: count * channels)
        advance(count)
    }

    /// Frames passed over without looking at them (a byte copy).
    package func advanceSilently(by count: Int64) {
        frames += count
    }

    private func advance(_ count: Int) {
        frames += Int64(count)
        while frames >= nextReport {
            onEvent(
                .progress(
                    .init(
                        position: AudioPosition(frames: frames, sampleRate: rate), level: sinceLast.level,
                        bytes: bytes(), total: total)))
            sinceLast = WideLevelMeter()
            nextReport += interval
        }
    }

    package func finish() {
        onEvent(
            .finished(
                .init(
                    position: AudioPosition(frames: frames, sampleRate: rate), xruns: 0, overruns: 0,
                    level: overall.level)))
    }

    package func fail(_ message: String) {
        onEvent(.failed(AudioPosition(frames: frames, sampleRate: rate), message: message))
    }
}

/// A flag another thread (a signal handler's) sets to stop an import or export between chunks.
package final class CancelFlag: Sendable {
    private let counter = AtomicCounter()
    package init() {}
    package func cancel() { counter.increment() }
    package var isCancelled: Bool { counter.load() > 0 }
}

/// Decoding one file into another, chunk by chunk.
package enum Transcode {
    static let chunk = 8192

    package struct Result: Equatable, Sendable {
        /// Frames decoded from the source.
        package var framesRead: Int64
        /// Frames written to the target (differs when resampled).
        package var framesWritten: Int64
    }

    /// Copies every frame of `source` into `target` (from where it is positioned, at most
    /// `limit` frames if given). Lossless targets are written from 32-bit integers, so
    /// 24-bit audio stays bit-exact; lossy ones (and float sources) from floats, through
    /// `resampler` when the target's rate differs, and through `effects` (`export --denoise`,
    /// `--speed`, `--gain`, `--level`) in `AudioChain`'s order; progress still counts frames
    /// of the source. `analysis` is handed every block as it is written, so the analysis of
    /// what was stored needs no second decode (import).
    package static func copy(
        _ source: SoundFile, into target: SoundFile, resampler: Resampler?, progress: TranscodeProgress?,
        cancel: CancelFlag?, limit: Int64? = nil, effects: AudioEffects = AudioEffects(),
        analysis: BackgroundAnalysis? = nil
    ) throws -> Result {
        let channels = source.channels
        var remaining = limit ?? .max
        func want() -> Int { Int(min(Int64(chunk), remaining)) }
        var read: Int64 = 0
        var written: Int64 = 0
        let chain = try AudioChain(effects, rate: source.sampleRate, channels: channels, resampler: resampler)
        // Float sources go through floats: with clipping on, libsndfile scales them to
        // integers by 2^15 (2^23, 2^31), the inverse of how it reads integers as floats, so
        // a float that came from 16-bit audio lands on the same sample again.
        let floatSource = source.subtype == Int32(SF_FORMAT_FLOAT) || source.subtype == Int32(SF_FORMAT_DOUBLE)
        let integers = (AudioFormat(exactly: target)?.isLossless ?? false) && chain.isEmpty && !floatSource
        if integers {
            let buffer = UnsafeMutablePointer<Int32>.allocate(capacity: chunk * channels)
            defer { buffer.deallocate() }
            while true {
                if cancel?.isCancelled == true { throw RecError.failure(source.path, "interrupted") }
                let n = remaining > 0 ? try source.read(into: buffer, frames: want()) : 0
                if n == 0 { break }
                remaining -= Int64(n)
                try target.write(buffer, frames: n)
                analysis?.add(buffer, frames: n)
                read += Int64(n)
                written += Int64(n)
                progress?.advance(n, int: buffer, channels: channels)
            }
            return Result(framesRead: read, framesWritten: written)
        }
        target.clipFloats()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channels)
        defer { buffer.deallocate() }
        var out: [Float] = []
        func emit() throws {
            guard !out.isEmpty else { return }
            try out.withUnsafeBufferPointer {
                try target.write($0.baseAddress!, frames: $0.count / channels)
                analysis?.add($0.baseAddress!, frames: $0.count / channels)
            }
            written += Int64(out.count / channels)
        }
        while true {
            if cancel?.isCancelled == true { throw RecError.failure(source.path, "interrupted") }
            let n = remaining > 0 ? try source.read(into: buffer, frames: want()) : 0
            if n == 0 { break }
            remaining -= Int64(n)
            let samples = UnsafeBufferPointer(start: buffer, count: n * channels)
            if chain.isEmpty {
                try target.write(buffer, frames: n)
                analysis?.add(buffer, frames: n)
                written += Int64(n)
            } else {
                out.removeAll(keepingCapacity: true)
                chain.process(samples, into: &out)
                try emit()
            }
            read += Int64(n)
            progress?.advance(n, float: buffer, channels: channels)
        }
        out.removeAll(keepingCapacity: true)
        chain.finish(into: &out)
        try emit()
        return Result(framesRead: read, framesWritten: written)
    }

    /// Decodes all of `file` from the start, to learn how many frames it really holds and
    /// that every one of them decodes. A header that promises more than the data holds is an
    /// error: the file was cut off. `analysis` is handed every block: what `import --keep`
    /// stores is these bytes, so this decode is the analysis's too.
    package static func verify(
        _ file: SoundFile, name: String, progress: TranscodeProgress? = nil, analysis: BackgroundAnalysis? = nil
    ) throws -> Int64 {
        let buffer = UnsafeMutablePointer<Int32>.allocate(capacity: chunk * file.channels)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        do {
            while true {
                let n = try file.read(into: buffer, frames: chunk)
                if n == 0 { break }
                total += Int64(n)
                analysis?.add(buffer, frames: n)
                progress?.advance(n, int: buffer, channels: file.channels)
            }
        } catch let error as AudioError {
            throw RecError.failure(name, error.reason + (total > 0 ? salvageOffer : ""))
        }
        try checkComplete(file, decoded: total, name: name)
        try file.seek(to: 0)
        return total
    }

    /// Fails when a file decoded to nothing, or (unless `salvaging`) to less than its header
    /// declares; the message then offers `--salvage`, as sox reads what is there.
    package static func checkComplete(_ file: SoundFile, decoded: Int64, name: String, salvaging: Bool = false) throws {
        if decoded == 0 { throw RecError.failure(name, "no audio could be decoded") }
        if salvaging { return }
        if file.headerSaysTruncated {
            throw RecError.failure(
                name, "the file is truncated (its header declares more audio than it holds)\(salvageOffer)")
        }
        if isShort(file, decoded: decoded) {
            throw RecError.failure(
                name, "the file is truncated: \(file.frames) frames declared, \(decoded) decoded\(salvageOffer)")
        }
    }

    /// Whether `file` decoded to fewer frames than its header states. MP3 without a Xing
    /// header only estimates its length; every other format states it.
    package static func isShort(_ file: SoundFile, decoded: Int64) -> Bool {
        file.headerSaysTruncated || (file.declaresLength && decoded < file.frames && AudioFormat(exactly: file) != .mp3)
    }

    /// What an error about a damaged input file adds, so that the way on is known.
    package static let salvageOffer = "; import --salvage keeps what is readable"
}

/// Writes all of `bytes` to a file descriptor (`System.writeAll`), or fails naming `name`.
func writeFully(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, name: String) throws {
    do throws(Errno) {
        try System.writeAll(fd, UnsafeRawBufferPointer(start: bytes, count: count))
    } catch {
        throw RecError.failure(name, "cannot write: \(error)")
    }
}

/// Copies a file's bytes from `from` (read from its current offset) to `to`.
package func copyBytes(from: Int32, to: Int32, source: String, destination: String, cancel: CancelFlag? = nil) throws
    -> Int64
{
    let size = 1 << 16
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    defer { buffer.deallocate() }
    var total: Int64 = 0
    while true {
        if cancel?.isCancelled == true { throw RecError.failure(source, "interrupted") }
        let n = System.retrying { Glibc.read(from, buffer, size) }
        if n < 0 { throw RecError.failure(source, "cannot read: \(Errno.current)") }
        if n == 0 { return total }
        try writeFully(to, buffer, n, name: destination)
        total += Int64(n)
    }
}

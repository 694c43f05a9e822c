import CAudio
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

extension SoundFile {
    /// The frames a file really holds, by decoding it to the end: what a file whose writer
    /// died before finishing its header declares can be wrong.
    package static func countFrames(path: String) throws -> Int64 {
        try decodable(path: path).frames
    }

    /// The frames that decode from the start, and whether decoding reached the end without
    /// an error (a writer stopped by a full disk can leave a last block cut short, which
    /// decodes to an error; the frames before it all count, the partial read's included).
    package static func decodable(path: String) throws -> (frames: Int64, complete: Bool) {
        let decoded = try decodable(path: path) { _ in nil }
        return (decoded.frames, decoded.complete)
    }

    /// The same, and the analysis of those frames measured in the same pass (crash recovery,
    /// which has no live samples: this decode is the one it needs anyway).
    package static func decodableAndAnalyzed(path: String) throws -> (
        frames: Int64, complete: Bool, analysis: AudioAnalysis
    ) {
        var meter: AnalysisMeter?
        let decoded = try decodable(path: path) {
            meter = AnalysisMeter(sampleRate: $0.sampleRate, channels: $0.channels, length: $0.frames)
            return meter
        }
        let analysis = meter?.finish() ?? AudioAnalysis(frames: 0, sampleRate: 0, level: .silence, peaks: [])
        return (decoded.frames, decoded.complete, analysis)
    }

    private static func decodable(path: String, meter: (SoundFile) -> AnalysisMeter?) throws -> (
        frames: Int64, complete: Bool
    ) {
        let file = try SoundFile.open(path: path)
        guard let handle = file.sndfileHandle else { return (0, false) }
        let meter = meter(file)
        let chunk = 16384
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * file.channels)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let n = sf_readf_short(handle, buffer, sf_count_t(chunk))
            total += Int64(max(n, 0))
            if n > 0 { meter?.add(buffer, frames: Int(n)) }
            if n < sf_count_t(chunk) { return (total, sf_error(handle) == SF_ERR_NO_ERROR) }
        }
    }
}

extension SoundFile {
    /// Decodes `source` from its start into a new file; returns the frames copied. `meter` is
    /// fed every block copied.
    package static func copy(
        _ source: SoundFile, to path: String, format: AudioFormat, meter: AnalysisMeter? = nil
    ) throws -> Int64 {
        try source.seek(to: 0)
        let target = try SoundFile.create(
            path: path, format: format, rate: source.sampleRate, channels: source.channels)
        let chunk = 16384
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * source.channels)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let n = (try? source.read(into: buffer, frames: chunk)) ?? 0
            if n == 0 { break }
            try target.write(buffer, frames: n)
            meter?.add(buffer, frames: n)
            total += Int64(n)
        }
        try target.close()
        return total
    }
}

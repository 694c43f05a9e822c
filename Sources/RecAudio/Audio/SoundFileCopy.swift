#if canImport(Glibc)
    import Glibc
#endif

extension SoundFile {
    /// The frames a file really holds, by decoding it to the end: what a file whose writer
    /// died before finishing its header declares can be wrong.
    public static func countFrames(path: String) throws -> Int64 {
        let file = try SoundFile.open(path: path)
        let chunk = 16384
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * file.channels)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let n = (try? file.read(into: buffer, frames: chunk)) ?? 0
            if n == 0 { break }
            total += Int64(n)
        }
        return total
    }
}

extension SoundFile {
    /// Decodes `source` from its start into a new file; returns the frames copied.
    package static func copy(_ source: SoundFile, to path: String, format: AudioFormat) throws -> Int64 {
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
            total += Int64(n)
        }
        try target.close()
        return total
    }
}

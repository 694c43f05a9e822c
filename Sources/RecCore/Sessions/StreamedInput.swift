import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Audio that arrived on a stream (stdin), spooled to a file of our own: its length is known
/// only once the stream has ended. Writers that cannot seek back (sox, espeak-ng and ffmpeg
/// on a pipe) leave a placeholder where a WAV header states its length: 0x7ffff000-ish,
/// 0xFFFFFFFF or 0. The audio is what arrived, to the end of the input.
enum StreamedInput {
    /// The container a spooled stream starts with, from its first bytes.
    enum Container: String {
        case wav = "WAV"
        case flac = "FLAC"
        case ogg = "Ogg"
        case aiff = "AIFF"
        case au = "AU"
        case mp3 = "MP3"
    }

    /// The container `path` starts with, if it has a header a raw stream would not.
    static func container(at path: String) -> Container? {
        FileSystem.withOpened(path, O_RDONLY) { fd -> Container? in
            var bytes = [UInt8](repeating: 0, count: 12)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 12, 0) }
            guard n >= 4 else { return nil }
            let magic = String(decoding: bytes[0..<4], as: UTF8.self)
            switch magic {
            case "RIFF", "RIFX", "RF64":
                return n >= 12 && String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE" ? .wav : nil
            case "fLaC": return .flac
            case "OggS": return .ogg
            case "FORM": return .aiff
            case ".snd": return .au
            default: return magic.hasPrefix("ID3") ? .mp3 : nil
            }
        } ?? nil
    }

    /// Rewrites a spooled WAV's RIFF and data lengths to what the file holds when the header
    /// states a placeholder (0, or more than arrived). Returns whether it changed anything.
    @discardableResult
    static func fillInWAVLengths(at path: String) throws -> Bool {
        try FileSystem.withOpened(
            path, O_RDWR, failure: { RecError.failure(path, $0) },
            { fd -> Bool in
                guard let data = dataChunk(fd), data.declared == 0 || Int64(data.declared) > data.arrived,
                    data.arrived > 0, data.arrived <= Int64(UInt32.max)
                else { return false }
                func write32(_ value: UInt32, at offset: Int64) throws {
                    var bytes = (0..<4).map { UInt8((value >> (8 * UInt32($0))) & 0xFF) }
                    guard bytes.withUnsafeMutableBytes({ pwrite(fd, $0.baseAddress, 4, off_t(offset)) }) == 4 else {
                        throw RecError.failure(path, "cannot write: \(systemReason(errno))")
                    }
                }
                try write32(UInt32(data.arrived), at: data.sizeOffset)
                try write32(UInt32(clamping: data.fileSize - 8), at: 4)
                return true
            })
    }

    /// Whether the file at `path` is a WAV whose data length is a streaming writer's
    /// placeholder (0, or 0x7ffff000 and up) rather than a length: such a file, written by
    /// `espeak-ng --stdout > x.wav`, is whole to its end, as it would be on stdin, where a
    /// WAV cut short states its real length and holds less.
    static func statesPlaceholderWAVLength(at path: String) -> Bool {
        FileSystem.withOpened(path, O_RDONLY) { fd -> Bool in
            guard let data = dataChunk(fd), data.arrived > 0 else { return false }
            return data.declared == 0 || (data.declared >= 0x7fff_f000 && Int64(data.declared) > data.arrived)
        } ?? false
    }

    /// A WAV's data chunk: where its length is, the length it states, and the bytes after
    /// its header to the end of the file.
    private static func dataChunk(_ fd: Int32) -> (
        sizeOffset: Int64, declared: UInt32, arrived: Int64, fileSize: Int64
    )? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int64(info.st_size)
        func read32(_ offset: Int64) -> (tag: String, value: UInt32)? {
            var bytes = [UInt8](repeating: 0, count: 8)
            guard bytes.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 8, off_t(offset)) }) == 8 else { return nil }
            let value = UInt32(bytes[4]) | UInt32(bytes[5]) << 8 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 24
            return (String(decoding: bytes[0..<4], as: UTF8.self), value)
        }
        guard let riff = read32(0), riff.tag == "RIFF" else { return nil }
        var offset: Int64 = 12
        while let chunk = read32(offset) {
            let body = offset + 8
            if chunk.tag == "data" { return (offset + 4, chunk.value, size - body, size) }
            offset = body + Int64(chunk.value) + Int64(chunk.value & 1)
        }
        return nil
    }
}

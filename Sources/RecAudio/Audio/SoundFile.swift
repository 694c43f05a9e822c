import CAudio
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// An audio file through libsndfile, opened either to write a new file or to read one,
/// in interleaved signed 16-bit frames. Closed on every path (`close()` or deinit).
package final class SoundFile {
    package let path: String
    package let sampleRate: Int
    package let channels: Int
    /// The libsndfile format code (major format | subtype).
    package let format: Int32
    /// For files opened for reading: the length the file declares.
    package let frames: Int64
    private var handle: OpaquePointer?
    /// For files being written: a descriptor of our own, to start the kernel's writeback
    /// as audio arrives, so the fsync before the store names the file finds little left.
    private var writeback: Int32 = -1
    private var bytesSinceWriteback = 0
    /// When set, a decoding error ends the audio instead of being thrown: the reads return
    /// what decoded before it, then nothing, and `decodingError` keeps it (`import --salvage`).
    package var stopsAtDecodingError = false
    /// The decoding error that ended the audio, with `stopsAtDecodingError`.
    package internal(set) var decodingError: AudioError?

    private init(path: String, handle: OpaquePointer, info: SF_INFO) {
        self.path = path
        self.handle = handle
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        format = info.format
        frames = Int64(info.frames)
    }

    deinit {
        if let handle { sf_close(handle) }
        if writeback >= 0 { Glibc.close(writeback) }
    }

    private func startingWriteback() -> SoundFile {
        writeback = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        return self
    }

    /// Creates (or truncates) `path` for writing.
    package static func create(path: String, format: AudioFormat, rate: Int, channels: Int) throws -> SoundFile {
        guard format.encoderRates?.contains(rate) ?? true else {
            throw AudioError(.file(path), "cannot create", reason: "\(format.rawValue) cannot be written at \(rate) Hz")
        }
        return try create(
            path: path, sndfileFormat: format.sndfileFormat, rate: rate, channels: channels,
            describing: format.rawValue)
    }

    /// libsndfile's compression level (0 best … 1 smallest) for Opus below 48 kHz.
    static let lowRateOpusCompression = 0.8

    /// Opens an existing file for reading.
    package static func open(path: String) throws -> SoundFile {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioError(.file(path), "cannot read audio", reason: reason(of: nil), code: sf_error(nil))
        }
        guard info.channels > 0, info.samplerate > 0 else {
            sf_close(handle)
            throw AudioError(
                .file(path), "cannot read audio", reason: "the file declares no channels or no sample rate")
        }
        return SoundFile(path: path, handle: handle, info: info)
    }

    package var audioFormat: AudioFormat? { AudioFormat(exactly: self) }

    /// libsndfile's message for the last error on `handle` (or of the last open), reworded.
    static func reason(of handle: OpaquePointer?) -> String {
        reason(String(cString: sf_strerror(handle)), code: sf_error(handle))
    }

    /// libsndfile's texts in recnotes' voice: "System error : No such file or directory."
    /// becomes "No such file or directory" (as strerror says it elsewhere), and the four
    /// public error codes get words of our own.
    static func reason(_ raw: String, code: Int32) -> String {
        switch code {
        case Int32(SF_ERR_UNRECOGNISED_FORMAT): return "not an audio format recnotes can read"
        case Int32(SF_ERR_MALFORMED_FILE):
            return "the file is damaged: its format is known but its contents are not valid"
        case Int32(SF_ERR_UNSUPPORTED_ENCODING): return "its audio encoding is not supported"
        default: break
        }
        var text = raw.trimmingWhitespace
        for prefix in ["System error : ", "System error: ", "Error : ", "Error: "] where text.hasPrefix(prefix) {
            text = String(text.dropFirst(prefix.count))
        }
        while text.hasSuffix(".") { text.removeLast() }
        if text == "Unspecified internal error" || text.isEmpty { return "libsndfile failed without saying why" }
        return text
    }

    /// Creates `path` with a libsndfile format code of the caller's choosing (for example
    /// FLAC with 24-bit samples), where `create(path:format:rate:channels:)` uses a format's
    /// default subtype.
    package static func create(path: String, sndfileFormat: Int32, rate: Int, channels: Int) throws -> SoundFile {
        try create(path: path, sndfileFormat: sndfileFormat, rate: rate, channels: channels, describing: "this format")
    }

    private static func create(path: String, sndfileFormat: Int32, rate: Int, channels: Int, describing name: String)
        throws -> SoundFile
    {
        var info = SF_INFO()
        info.samplerate = Int32(clamping: rate)
        info.channels = Int32(clamping: channels)
        info.format = sndfileFormat
        guard sf_format_check(&info) == SF_TRUE else {
            throw AudioError(
                .file(path), "cannot create",
                reason: "\(name) cannot be written at \(rate) Hz with \(channels) channel(s)")
        }
        // sf_open creates the file before its encoder can refuse; what it leaves goes again.
        var before = stat()
        let existed = lstat(path, &before) == 0
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            let error = AudioError.sndfile(path, "cannot create", nil)
            if !existed { unlink(path) }
            throw error
        }
        if sndfileFormat & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_OPUS), rate < 48000 {
            // libsndfile's Opus picks its bitrate by the rate: 28 kbit/s for 16 kHz mono, where
            // the encoder's speech mode (SILK) takes 0.7 LU off speech's loudness (opusenc does
            // the same at ≤ 48 kbit/s), so the loudness measured while saving would not be what
            // plays. 0.8 asks for about 57 kbit/s at any rate, near the 61 a 48 kHz file gets,
            // where the decoded loudness is the input's within 0.1 LU (bench/RESULTS.md). Here,
            // where every create passes: a recording's and an import's alike.
            var level = Self.lowRateOpusCompression
            sf_command(handle, Int32(SFC_SET_COMPRESSION_LEVEL), &level, Int32(MemoryLayout<Double>.size))
        }
        return SoundFile(path: path, handle: handle, info: info).startingWriteback()
    }

    /// Opens headerless audio, whose layout the caller states: little-endian, as arecord, sox
    /// and ffmpeg write s16/s32/f32 on this platform.
    package static func openRaw(path: String, encoding: RawEncoding, rate: Int, channels: Int) throws -> SoundFile {
        var info = SF_INFO()
        info.samplerate = Int32(clamping: rate)
        info.channels = Int32(clamping: channels)
        info.format = Int32(SF_FORMAT_RAW) | encoding.sndfileSubtype | Int32(SF_ENDIAN_LITTLE)
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioError(.file(path), "cannot read audio", reason: reason(of: nil), code: sf_error(nil))
        }
        return SoundFile(path: path, handle: handle, info: info)
    }

    /// The open libsndfile handle, for extensions that read or write other sample types.
    var sndfileHandle: OpaquePointer? { handle }

    package var duration: Double { Double(frames) / Double(sampleRate) }

    private func open(_ operation: String) throws -> OpaquePointer {
        guard let handle else { throw AudioError(.file(path), operation, reason: "file is closed") }
        return handle
    }

    /// Writes all `frames` frames.
    package func write(_ samples: UnsafePointer<Int16>, frames: Int) throws {
        let handle = try open("write failed")
        let written = sf_writef_short(handle, samples, sf_count_t(frames))
        guard written == sf_count_t(frames) else { throw AudioError.sndfile(path, "write failed", handle) }
        bytesSinceWriteback += frames * channels * 2
        if writeback >= 0 && bytesSinceWriteback >= 1 << 20 {
            bytesSinceWriteback = 0
            FileSystem.startWriteback(writeback)
        }
    }

    /// Brings the header up to date and pushes what is written to the disk, so a crash after
    /// this point loses nothing before it.
    package func sync() {
        guard let handle else { return }
        sf_command(handle, Int32(SFC_UPDATE_HEADER_NOW), nil, 0)
        sf_write_sync(handle)
    }

    /// Reads up to `frames` frames; 0 at the end of the file. A decoding error is thrown
    /// (or, with `stopsAtDecodingError`, ends the audio).
    package func read(into samples: UnsafeMutablePointer<Int16>, frames: Int) throws -> Int {
        let handle = try open("read failed")
        guard decodingError == nil else { return 0 }
        let count = sf_readf_short(handle, samples, sf_count_t(frames))
        if count < sf_count_t(frames) && sf_error(handle) != SF_ERR_NO_ERROR {
            try failedDecoding(AudioError.sndfile(path, "cannot decode", handle))
        }
        return Int(max(count, 0))
    }

    /// A decoding error: thrown, or with `stopsAtDecodingError` kept, the audio ending here.
    func failedDecoding(_ error: AudioError) throws {
        guard stopsAtDecodingError else { throw error }
        decodingError = error
    }

    /// Moves the read position to `frame` directly (libsndfile's own seek, not decoding from
    /// the start), so the next `read` returns that frame first.
    package func seek(to frame: Int64) throws {
        let handle = try open("seek failed")
        let result = sf_seek(handle, sf_count_t(frame), SEEK_SET)
        guard result == sf_count_t(frame) else {
            let message = sf_error(handle) != SF_ERR_NO_ERROR ? Self.reason(of: handle) : "cannot reach frame \(frame)"
            throw AudioError(.file(path), "seek failed", reason: message)
        }
    }

    /// Closes the file; for a written file this finishes the encoding and the header, and a
    /// failure here means the file is not complete.
    package func close() throws {
        guard let handle else { return }
        self.handle = nil
        if writeback >= 0 {
            Glibc.close(writeback)
            writeback = -1
        }
        let result = sf_close(handle)
        if result != 0 {
            throw AudioError(
                .file(path), "cannot finish writing",
                reason: Self.reason(String(cString: sf_error_number(result)), code: result), code: result)
        }
    }
}

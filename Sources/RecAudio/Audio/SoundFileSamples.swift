import CAudio
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Reading and writing other sample types than `Int16`, for importing and exporting:
/// 32-bit integers keep 24-bit lossless audio whole, floats feed the lossy encoders and the
/// resampler. libsndfile scales between types (full scale maps to full scale).
extension SoundFile {
    /// The libsndfile subtype (`SF_FORMAT_PCM_24`, `SF_FORMAT_VORBIS` …).
    package var subtype: Int32 { format & Int32(SF_FORMAT_SUBMASK) }

    /// The major format (`SF_FORMAT_WAV`, `SF_FORMAT_OGG` …).
    package var container: Int32 { format & Int32(SF_FORMAT_TYPEMASK) }

    /// Whether the file holds more than 16 bits per sample that decoding would keep.
    package var isHighResolution: Bool {
        switch Int(subtype) {
        case Int(SF_FORMAT_PCM_24), Int(SF_FORMAT_PCM_32), Int(SF_FORMAT_FLOAT), Int(SF_FORMAT_DOUBLE),
            Int(SF_FORMAT_ALAC_20), Int(SF_FORMAT_ALAC_24), Int(SF_FORMAT_ALAC_32):
            return true
        default:
            return false
        }
    }

    /// Whether the header states the length (Ogg and some streams do not).
    package var declaresLength: Bool { frames > 0 && frames < Int64.max }

    private func live(_ operation: String) throws -> OpaquePointer {
        guard let handle = sndfileHandle else { throw AudioError(.file(path), operation, reason: "file is closed") }
        return handle
    }

    package func read(into samples: UnsafeMutablePointer<Int32>, frames: Int) throws -> Int {
        let handle = try live("read failed")
        guard decodingError == nil else { return 0 }
        let count = sf_readf_int(handle, samples, sf_count_t(frames))
        if count < sf_count_t(frames) && sf_error(handle) != SF_ERR_NO_ERROR {
            try failedDecoding(
                AudioError(.file(path), "cannot decode", reason: SoundFile.reason(of: handle), code: sf_error(handle)))
        }
        return Int(max(count, 0))
    }

    package func read(into samples: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let handle = try live("read failed")
        guard decodingError == nil else { return 0 }
        let count = sf_readf_float(handle, samples, sf_count_t(frames))
        if count < sf_count_t(frames) && sf_error(handle) != SF_ERR_NO_ERROR {
            try failedDecoding(
                AudioError(.file(path), "cannot decode", reason: SoundFile.reason(of: handle), code: sf_error(handle)))
        }
        return Int(max(count, 0))
    }

    package func write(_ samples: UnsafePointer<Int32>, frames: Int) throws {
        let handle = try live("write failed")
        guard sf_writef_int(handle, samples, sf_count_t(frames)) == sf_count_t(frames) else {
            throw AudioError(.file(path), "write failed", reason: SoundFile.reason(of: handle), code: sf_error(handle))
        }
    }

    package func write(_ samples: UnsafePointer<Float>, frames: Int) throws {
        let handle = try live("write failed")
        guard sf_writef_float(handle, samples, sf_count_t(frames)) == sf_count_t(frames) else {
            throw AudioError(.file(path), "write failed", reason: SoundFile.reason(of: handle), code: sf_error(handle))
        }
    }

    /// Float input is clipped at full scale instead of wrapping when written as integers.
    package func clipFloats() {
        guard let handle = sndfileHandle else { return }
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    /// libsndfile's log of what it found while parsing the header.
    package var headerLog: String {
        guard let handle = sndfileHandle else { return "" }
        var buffer = [CChar](repeating: 0, count: 8192)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &buffer, Int32(buffer.count))
        return String(cBuffer: buffer)
    }

    /// A data chunk that claims more bytes than the file has: a cut-off WAV or AIFF, which
    /// libsndfile would otherwise read as a shorter file. (Ogg's "ended unexpectedly" is no
    /// sign: sox writes complete files without the end-of-stream flag.)
    package var headerSaysTruncated: Bool { truncatedDataLine != nil }

    /// The frames a cut-off WAV or AIFF's header declares (libsndfile's `frames` is what the
    /// file holds): from its log's `data : 480000 (should be 299956)`, in bytes, for PCM.
    package var declaredFramesWhenTruncated: Int64? {
        guard let line = truncatedDataLine, let colon = line.firstIndex(of: ":") else { return nil }
        let digits = line[line.index(after: colon)...].drop { $0 == " " }.prefix { $0.isNumber }
        let bytesPerSample: Int64
        switch Int(subtype) {
        case Int(SF_FORMAT_PCM_S8), Int(SF_FORMAT_PCM_U8): bytesPerSample = 1
        case Int(SF_FORMAT_PCM_16): bytesPerSample = 2
        case Int(SF_FORMAT_PCM_24): bytesPerSample = 3
        case Int(SF_FORMAT_PCM_32), Int(SF_FORMAT_FLOAT): bytesPerSample = 4
        case Int(SF_FORMAT_DOUBLE): bytesPerSample = 8
        default: return nil
        }
        guard let bytes = Int64(digits) else { return nil }
        return bytes / (bytesPerSample * Int64(max(channels, 1)))
    }

    private var truncatedDataLine: Substring? {
        for line in headerLog.split(separator: "\n") {
            let text = line.drop { $0 == " " }
            if (text.hasPrefix("data") || text.hasPrefix("SSND")) && text.contains("(should be") { return text }
        }
        return nil
    }
}

extension AudioFormat {
    /// The format of a file as opened, only when it is exactly one of ours (Ogg FLAC or Speex is not).
    package init?(exactly file: SoundFile) {
        switch Int(file.container) {
        // WAVE_FORMAT_EXTENSIBLE (sox writes it for 24 bits and for floats) is a WAV too.
        case Int(SF_FORMAT_WAV), Int(SF_FORMAT_WAVEX): self = .wav
        case Int(SF_FORMAT_FLAC): self = .flac
        case Int(SF_FORMAT_MPEG) where Int(file.subtype) == Int(SF_FORMAT_MPEG_LAYER_III): self = .mp3
        case Int(SF_FORMAT_OGG) where Int(file.subtype) == Int(SF_FORMAT_OPUS): self = .opus
        case Int(SF_FORMAT_OGG) where Int(file.subtype) == Int(SF_FORMAT_VORBIS): self = .vorbis
        default: return nil
        }
    }

    /// The libsndfile format code to write: lossless formats keep 24 bits when asked to.
    package func sndfileFormat(highResolution: Bool) -> Int32 {
        guard highResolution, isLossless else { return sndfileFormat }
        let major = self == .flac ? Int32(SF_FORMAT_FLAC) : Int32(SF_FORMAT_WAV)
        return major | Int32(SF_FORMAT_PCM_24)
    }

    /// A short name for a libsndfile format code, for messages.
    package static func describe(_ file: SoundFile) -> String {
        var info = SF_FORMAT_INFO()
        info.format = file.container
        if sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let name = info.name
        {
            var text = String(cString: name)
            if let space = text.firstIndex(of: " ") { text = String(text[..<space]) }
            return text
        }
        return "this format"
    }
}

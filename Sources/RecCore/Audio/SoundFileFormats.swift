import CAudio

/// What libsndfile makes of each format, and what it can write here.
extension AudioFormat {
    /// The libsndfile major format and subtype.
    public var sndfileFormat: Int32 {
        switch self {
        case .opus: return Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
        case .flac: return Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        case .wav: return Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        case .vorbis: return Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        case .mp3: return Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        }
    }

    /// Asks this machine's libsndfile whether it can write the format at this rate and
    /// channel count, so a build without, say, MP3 support says so before recording.
    public func isSupported(rate: Int, channels: Int) -> Bool {
        var info = SF_INFO()
        info.samplerate = Int32(clamping: rate)
        info.channels = Int32(clamping: channels)
        info.format = sndfileFormat
        return sf_format_check(&info) == SF_TRUE
    }

    /// The channel counts and rates recnotes records, imports and stores at all, whatever
    /// the format; each format may allow less (`validate`).
    public static let channelRange = 1...8
    public static let rateRange = 1000...384_000

    /// `--rate`/`--channels` within `channelRange` and `rateRange`; a usage error otherwise.
    public static func validateLayout(rate: Int, channels: Int) throws {
        guard channelRange.contains(channels) else {
            throw RecError.usage("--channels \(channels)", "must be between \(channelRange.lowerBound) and \(channelRange.upperBound)")
        }
        guard rateRange.contains(rate) else {
            throw RecError.usage("--rate \(rate)", "must be between \(rateRange.lowerBound) and \(rateRange.upperBound) Hz")
        }
    }

    /// Checks `--rate` and `--channels` against the format; a usage error otherwise.
    public func validate(rate: Int, channels: Int) throws {
        try Self.validateLayout(rate: rate, channels: channels)
        guard isSupported(rate: rate, channels: channels) else {
            let rates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000]
                .filter { isSupported(rate: $0, channels: 1) }
            if !isSupported(rate: defaultRate, channels: 1) {
                throw RecError.failure("--format \(rawValue)", "this libsndfile (\(LibraryVersions.sndfile)) cannot write it")
            }
            if !rates.contains(rate) {
                throw RecError.usage("--rate \(rate)", "\(rawValue) supports \(rates.map(String.init).joined(separator: ", ")) Hz")
            }
            throw RecError.usage("--channels \(channels)", "\(rawValue) cannot be written with \(channels) channels at \(rate) Hz")
        }
    }
}

import CAudio
import RecSystem
import RecValues

/// What libsndfile makes of each format, and what it can write here.
extension AudioFormat {
    /// The libsndfile major format and subtype.
    package var sndfileFormat: Int32 {
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
    package func isSupported(rate: Int, channels: Int) -> Bool {
        var info = SF_INFO()
        info.samplerate = Int32(clamping: rate)
        info.channels = Int32(clamping: channels)
        info.format = sndfileFormat
        return sf_format_check(&info) == SF_TRUE
    }

    /// The channel counts and rates recnotes records, imports and stores at all, whatever
    /// the format; each format may allow less (`validate`).
    package static let channelRange = 1...8
    package static let rateRange = 1000...384_000

    /// `--rate`/`--channels` within `channelRange` and `rateRange`; a usage error otherwise.
    package static func validateLayout(rate: Int, channels: Int) throws {
        guard channelRange.contains(channels) else {
            throw RecError.usage(
                "--channels \(channels)", "must be between \(channelRange.lowerBound) and \(channelRange.upperBound)")
        }
        guard rateRange.contains(rate) else {
            throw RecError.usage(
                "--rate \(rate)", "must be between \(rateRange.lowerBound) and \(rateRange.upperBound) Hz")
        }
    }

    /// The rates this format's encoder takes, when it takes only some: libsndfile's format
    /// check accepts any rate for Opus and MP3, and only creating the file fails (leaving it
    /// behind, empty). nil: whatever libsndfile's check accepts.
    package var encoderRates: [Int]? {
        switch self {
        case .opus: return [8000, 12000, 16000, 24000, 48000]
        case .mp3: return [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
        case .flac, .wav, .vorbis: return nil
        }
    }

    /// Whether the encoder can write at this rate and channel count: libsndfile's check and
    /// the encoder's own rates.
    package func canWrite(rate: Int, channels: Int) -> Bool {
        isSupported(rate: rate, channels: channels) && (encoderRates?.contains(rate) ?? true)
    }

    /// Checks `--rate` and `--channels` against the format, before any device or file is
    /// opened; a usage error that says what is allowed otherwise.
    package func validate(rate: Int, channels: Int) throws {
        try Self.validateLayout(rate: rate, channels: channels)
        if !isSupported(rate: defaultRate, channels: 1) {
            throw RecError.failure(
                "--format \(rawValue)", "this libsndfile (\(LibraryVersions.sndfile)) cannot write it")
        }
        let commonRates =
            encoderRates ?? [
                8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000, 176400, 192000,
            ]
        let rates = commonRates.filter { canWrite(rate: $0, channels: 1) }
        if !canWrite(rate: rate, channels: 1) {
            throw RecError.usage("--rate \(rate)", "\(rawValue) takes \(Self.list(rates)) Hz")
        }
        if !canWrite(rate: rate, channels: channels) {
            let counts = Self.channelRange.filter { canWrite(rate: rate, channels: $0) }
            let allowed =
                counts.count > 2 && counts == Array(counts.first!...counts.last!)
                ? "\(counts.first!) to \(counts.last!)" : Self.list(counts)
            throw RecError.usage("--channels \(channels)", "\(rawValue) takes \(allowed) channels at \(rate) Hz")
        }
    }

    /// "8000, 12000 or 48000".
    static func list(_ values: [Int]) -> String {
        let words = values.map(String.init)
        guard words.count > 1 else { return words.first ?? "none" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}

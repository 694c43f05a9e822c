/// The formats recnotes records and stores, as named on the command line and in store.json.
/// The model holds this value; Audio/ maps it to libsndfile.
package enum AudioFormat: String, CaseIterable, Sendable {
    /// Ogg Opus: small, made for voice. The default.
    case opus
    case flac
    case wav
    /// Ogg Vorbis.
    case vorbis
    case mp3

    package static let `default` = AudioFormat.opus

    /// Other names a user may type for a format (never written to a store).
    package static let aliases: [String: AudioFormat] = ["ogg": .vorbis]

    /// A format as typed on the command line: its name or an alias, in any case.
    package init?(name: String) {
        let lowered = name.lowercased()
        guard let format = AudioFormat(rawValue: lowered) ?? Self.aliases[lowered] else { return nil }
        self = format
    }

    package var fileExtension: String {
        switch self {
        case .opus: return "opus"
        case .flac: return "flac"
        case .wav: return "wav"
        case .vorbis: return "ogg"
        case .mp3: return "mp3"
        }
    }

    /// Whether decoding gives back exactly the samples that were encoded.
    package var isLossless: Bool { self == .flac || self == .wav }

    /// 48 kHz suits every format here (Opus works at 48 kHz internally); mono suits voice.
    package var defaultRate: Int { 48000 }
    package static let defaultChannels = 1

    /// The format a file name's extension stands for: .wav, .flac, .opus, .ogg/.oga (Vorbis), .mp3.
    package init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "opus": self = .opus
        case "ogg", "oga": self = .vorbis
        case "mp3": self = .mp3
        default: return nil
        }
    }
}

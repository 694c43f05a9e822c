#if canImport(Glibc)
import Glibc
#endif

/// `record --output`: a recording that goes to another program or a file outside the store,
/// so recnotes can feed a pipeline live. Nothing in the store or the view state changes.
public enum RecordingOutput {
    /// The sink for `target` (`-` is standard output). On standard output: raw samples when
    /// an encoding is given, else WAV (the default) or FLAC; other codecs need a file.
    public static func sink(target: String, format: AudioFormat?, encoding: RawEncoding?,
                            rate: Int, channels: Int, frames: Int64?) throws -> AudioSink {
        if target == "-" {
            if let encoding {
                if let format { throw RecError.usage("--encoding \(encoding.rawValue)", "raw output has no format; drop --format \(format.rawValue)") }
                return try StreamSink(fd: STDOUT_FILENO, container: .raw(encoding), rate: rate, channels: channels, frames: frames)
            }
            switch format ?? .wav {
            case .wav:
                return try StreamSink(fd: STDOUT_FILENO, container: .wav, rate: rate, channels: channels, frames: frames)
            case .flac:
                return try PipeFLACSink(fd: STDOUT_FILENO, rate: rate, channels: channels)
            case let other:
                throw RecError.usage("--format \(other.rawValue)", "standard output takes wav, flac, or raw samples with --encoding s16|s32|f32")
            }
        }
        if let encoding { throw RecError.usage("--encoding \(encoding.rawValue)", "raw samples go to standard output only (--output -)") }
        guard let chosen = format ?? AudioFormat(fileName: target) else {
            throw RecError.usage(target, "cannot tell the format from the extension; add --format wav|flac|opus|vorbis|mp3")
        }
        try chosen.validate(rate: rate, channels: channels)
        return try SoundFile.create(path: target, format: chosen, rate: rate, channels: channels)
    }
}

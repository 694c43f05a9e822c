import CAudio

/// Headerless sample encodings, little-endian as arecord, sox and ffmpeg write them here:
/// what `record --output --encoding` writes and what `import - --encoding` reads.
package enum RawEncoding: String, CaseIterable, Sendable {
    case s16, s32, f32

    var bytesPerSample: Int { self == .s16 ? 2 : 4 }

    /// The libsndfile subtype of these samples.
    var sndfileSubtype: Int32 {
        switch self {
        case .s16: return Int32(SF_FORMAT_PCM_16)
        case .s32: return Int32(SF_FORMAT_PCM_32)
        case .f32: return Int32(SF_FORMAT_FLOAT)
        }
    }
}

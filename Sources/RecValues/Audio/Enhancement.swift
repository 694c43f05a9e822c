/// A recording's stored choice to be heard enhanced ("Non-destructive, like trim
/// points"): levelled to `targetLoudness`, and/or with its steady background noise reduced.
/// Document data (store version 6), set by `recnotes enhance`, `record --enhance` and
/// `import --enhance`; `play`, `export` and `transcribe` apply it, and the audio file is never
/// rewritten. Both off is the same as none, which is what an older store's recordings read as.
package struct Enhancement: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Played and written at `targetLoudness` (as `--level` alone).
    package var level: Bool
    /// Played and written with the noise suppressor (as `--denoise`).
    package var denoise: Bool

    package init(level: Bool = false, denoise: Bool = false) {
        self.level = level
        self.denoise = denoise
    }

    package static let off = Enhancement()
    /// What `record --enhance`, `import --enhance` and browse's key turn on.
    package static let all = Enhancement(level: true, denoise: true)

    package var isOff: Bool { !level && !denoise }

    /// The loudness a recording with `level` on plays and exports at, and what `--level`
    /// alone means: −16 LUFS, the spoken-word norm of podcast platforms.
    package static let targetLoudness = -16.0

    /// What a play, an export or a transcription applies: an option given on the command line
    /// wins over the stored choice (`levelOption`, a target in LUFS; `denoiseOption` true for
    /// `--denoise`, false when not given), and `original` (`--original`) ignores the stored
    /// choice, as `--untrimmed` ignores trim points; the options still apply. The one place
    /// where stored and typed meet.
    package func resolved(levelOption: Double?, denoiseOption: Bool, original: Bool) -> (level: Double?, denoise: Bool)
    {
        let stored = original ? Enhancement.off : self
        return (levelOption ?? (stored.level ? Enhancement.targetLoudness : nil), denoiseOption || stored.denoise)
    }

    /// `level on, denoise off`: as `enhance`, `info` and `history` say it.
    package var description: String {
        "level \(level ? "on" : "off"), denoise \(denoise ? "on" : "off")"
    }
}

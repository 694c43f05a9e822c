#if canImport(Glibc)
    import Glibc
#endif

/// What `info` shows about a recording's sound: its overall peak and RMS level, the
/// peaks of equal stretches of it, for a sparkline, and where it has speech. Computed from
/// the file itself, decoded once, when its audio is saved, and kept with the recording
/// (`RecordingInfo.analysis`, store version 3; its loudness, version 5), rounded as the
/// store keeps it.
package struct AudioAnalysis: Equatable, Sendable {
    package var frames: Int64
    package var sampleRate: Int
    package var level: Level
    /// Linear peaks, 0...1, one per bucket.
    package var peaks: [Double]
    /// Speech regions (frames), from the `VoiceActivityDetector` fed the same samples.
    package var speech: [Range<Int64>] = []
    /// EBU R128 loudness, from the same samples (store version 5); nil in an analysis stored
    /// by an older version, or measured where libebur128 could not be loaded.
    package var loudness: Loudness?

    package init(
        frames: Int64, sampleRate: Int, level: Level, peaks: [Double], speech: [Range<Int64>] = [],
        loudness: Loudness? = nil
    ) {
        self.frames = frames
        self.sampleRate = sampleRate
        self.level = level
        self.peaks = peaks
        self.speech = speech
        self.loudness = loudness
    }

    /// The number of waveform points measured and kept.
    package static let waveformPoints = 60

    /// As the store keeps it: levels to 0.01 dB, each waveform peak to 0.1 dB (silence, or
    /// anything below `Level.floor`, as 0). `analyze` returns this, so an analysis read back
    /// from store.json and one measured again are the same value.
    package func compacted() -> AudioAnalysis {
        func hundredths(_ db: Double) -> Double { (db * 100).rounded() / 100 }
        var copy = self
        copy.level = Level(peak: hundredths(level.peak), rms: hundredths(level.rms))
        copy.peaks = peaks.map { Self.linear(tenthsOfDecibel: Self.tenthsOfDecibel($0)) }
        return copy
    }

    /// A linear peak in tenths of a dB, `Level.floor` (as tenths) for silence.
    package static func tenthsOfDecibel(_ linear: Double) -> Int {
        Int((Level.decibels(linear) * 10).rounded())
    }

    package static func linear(tenthsOfDecibel tenths: Int) -> Double {
        let db = Double(tenths) / 10
        return db <= Level.floor ? 0 : pow(10, db / 20)
    }

    /// Frames of speech in all.
    package var speechFrames: Int64 { speech.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }
}

#if canImport(Glibc)
    import Glibc
#endif

/// What `info` shows about a recording's sound: its overall peak and RMS level, the
/// peaks of equal stretches of it, for a sparkline, and where it has speech. Computed from
/// the file itself, decoded once, when its audio is saved, and kept with the recording
/// (`RecordingInfo.analysis`, store version 3), rounded as the store keeps it.
public struct AudioAnalysis: Equatable, Sendable {
    public var frames: Int64
    public var sampleRate: Int
    public var level: Level
    /// Linear peaks, 0...1, one per bucket.
    public var peaks: [Double]
    /// Speech regions (frames), from the `VoiceActivityDetector` fed the same samples.
    public var speech: [Range<Int64>] = []

    public init(frames: Int64, sampleRate: Int, level: Level, peaks: [Double], speech: [Range<Int64>] = []) {
        self.frames = frames
        self.sampleRate = sampleRate
        self.level = level
        self.peaks = peaks
        self.speech = speech
    }

    /// The number of waveform points measured and kept.
    public static let waveformPoints = 60

    /// As the store keeps it: levels to 0.01 dB, each waveform peak to 0.1 dB (silence, or
    /// anything below `Level.floor`, as 0). `analyze` returns this, so an analysis read back
    /// from store.json and one measured again are the same value.
    public func compacted() -> AudioAnalysis {
        func hundredths(_ db: Double) -> Double { (db * 100).rounded() / 100 }
        var copy = self
        copy.level = Level(peak: hundredths(level.peak), rms: hundredths(level.rms))
        copy.peaks = peaks.map { Self.linear(tenthsOfDecibel: Self.tenthsOfDecibel($0)) }
        return copy
    }

    /// A linear peak in tenths of a dB, `Level.floor` (as tenths) for silence.
    static func tenthsOfDecibel(_ linear: Double) -> Int {
        Int((Level.decibels(linear) * 10).rounded())
    }

    static func linear(tenthsOfDecibel tenths: Int) -> Double {
        let db = Double(tenths) / 10
        return db <= Level.floor ? 0 : pow(10, db / 20)
    }

    /// Frames of speech in all.
    public var speechFrames: Int64 { speech.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    /// Decodes `path` once, start to end.
    public static func analyze(
        path: String, buckets: Int = waveformPoints,
        voice: VoiceActivityConfiguration = .init()
    ) throws -> AudioAnalysis {
        let file = try SoundFile.open(path: path)
        let buckets = max(buckets, 1)
        let declared = max(file.frames, 1)
        let chunk = 8192
        let channels = file.channels
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * channels)
        defer { buffer.deallocate() }
        var total = LevelMeter()
        var peaks = [Double](repeating: 0, count: buckets)
        var detector = VoiceActivityDetector(sampleRate: file.sampleRate, channels: channels, configuration: voice)
        var speech = SpeechRegions()
        var frame: Int64 = 0
        while true {
            let n = try file.read(into: buffer, frames: chunk)
            if n == 0 { break }
            total.add(buffer, count: n * channels)
            speech.add(detector.feed(buffer, frames: n))
            for i in 0..<n {
                let bucket = min(Int((frame + Int64(i)) * Int64(buckets) / declared), buckets - 1)
                var peak: Int32 = 0
                for c in 0..<channels { peak = max(peak, abs(Int32(buffer[i * channels + c]))) }
                let value = Double(peak) / 32768
                if value > peaks[bucket] { peaks[bucket] = value }
            }
            frame += Int64(n)
        }
        if frame == 0 && file.frames > 0 {
            throw AudioError(.file(path), "cannot decode", reason: "no audio could be read")
        }
        speech.add(detector.finish())
        return AudioAnalysis(
            frames: frame, sampleRate: file.sampleRate, level: total.level, peaks: peaks,
            speech: speech.regions
        ).compacted()
    }
}

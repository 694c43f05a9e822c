#if canImport(Glibc)
    import Glibc
#endif

extension AudioAnalysis {
    /// Decodes `path` once, start to end, each block fed to every meter in turn (levels,
    /// waveform, speech, loudness). Without libebur128 the rest is measured all the same and
    /// `loudness` is nil: a recording is never refused for want of its loudness.
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
        let loudness = try? LoudnessMeter(channels: channels, rate: file.sampleRate)
        var frame: Int64 = 0
        while true {
            let n = try file.read(into: buffer, frames: chunk)
            if n == 0 { break }
            total.add(buffer, count: n * channels)
            loudness?.add(buffer, frames: n)
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
            speech: speech.regions, loudness: loudness?.loudness
        ).compacted()
    }
}

/// A one-line waveform: one block character per bucket of audio, so a person can see at a
/// glance where the speech is. Pure presentation: the caller measures the peaks.
package enum Sparkline {
    static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// Each value is a linear peak in 0...1 (values outside are clamped). Levels are shown on
    /// a decibel scale from -60 dBFS, as hearing is logarithmic: quiet speech still shows.
    package static func render(_ peaks: [Double]) -> String {
        String(
            peaks.map { peak -> Character in
                let clamped = min(max(peak.isFinite ? peak : 0, 0), 1)
                guard clamped > 0 else { return blocks[0] }
                let db = 20 * log10(clamped)
                let level = Int(((db + 60) / 60 * Double(blocks.count - 1)).rounded(.up))
                return blocks[min(max(level, 0), blocks.count - 1)]
            })
    }

    /// A line to go under the waveform: `▀` under each of `buckets` equal stretches of
    /// `frames` that holds speech, a space elsewhere (`info`).
    package static func speechMarks(_ regions: [Range<Int64>], frames: Int64, buckets: Int) -> String {
        guard buckets > 0, frames > 0 else { return "" }
        var marks = [Character](repeating: " ", count: buckets)
        for region in regions {
            let first = Int(min(max(region.lowerBound, 0) * Int64(buckets) / frames, Int64(buckets - 1)))
            let last = Int(min(max(region.upperBound - 1, 0) * Int64(buckets) / frames, Int64(buckets - 1)))
            guard first <= last else { continue }
            for b in first...last { marks[b] = "▀" }
        }
        return String(marks)
    }
}

#if canImport(Glibc)
    import Glibc
#endif

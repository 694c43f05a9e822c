#if canImport(Glibc)
    import Glibc
#endif

/// Where the subject of a recording changes, by lexical cohesion (TextTiling, Hearst 1997):
/// the content words of its transcript (`Topics`) in runs of `sequence` words, and at each gap
/// between runs the cosine similarity of the words of the `block` runs before it against
/// the `block` after. Where the similarity dips deepest (its depth: how far it falls from
/// the highest on either side), more than the depths' mean less half their spread and more
/// than `shallowest`, the subject changed; each such point moves to the longest pause near it, where a speaker
/// changing subject takes a breath. Chapters shorter than `shortest` are merged away.
package enum Chapters {
    package struct Chapter: Equatable, Sendable {
        /// Where it starts, in seconds (the first at the first word).
        package var start: Double
        /// Its most telling words, against the other chapters of the recording.
        package var words: [String]

        package init(start: Double, words: [String]) {
            self.start = start
            self.words = words
        }
    }

    package struct Settings: Sendable {
        /// Words a run: nil for what the transcript's length gives, from 5 to 20 (a run a
        /// sixteenth of the words), so that a short talk has runs enough to compare.
        package var sequence: Int?
        package var block = 4
        package var shortest = 20.0
        /// How far a boundary may move to a pause.
        package var pauseReach = 6.0
        /// The least depth that is a change of subject.
        package var shallowest = 0.25

        package init() {}
    }

    /// The chapters of `transcript`: one when it has no change of subject (or too few words
    /// to tell).
    package static func of(_ transcript: Transcript, settings: Settings = Settings()) -> [Chapter] {
        let timed = words(of: transcript)
        guard let first = timed.first else { return [] }
        let sequence = settings.sequence ?? max(5, min(20, timed.count / 16))
        let runs = stride(from: 0, to: timed.count, by: sequence).map {
            Array(timed[$0..<min($0 + sequence, timed.count)])
        }
        var starts = [first.start]
        if runs.count >= 2 * settings.block {
            // gap g lies between run g - 1 and run g.
            let gaps = Array(1..<runs.count)
            let similarity = gaps.map { gap -> Double in
                let before = runs[max(0, gap - settings.block)..<gap].flatMap { $0.map(\.word) }
                let after = runs[gap..<min(runs.count, gap + settings.block)].flatMap { $0.map(\.word) }
                return cosine(before, after)
            }
            let depths = similarity.indices.map { i -> Double in
                var left = similarity[i]
                var j = i
                while j > 0 && similarity[j - 1] >= left {
                    j -= 1
                    left = similarity[j]
                }
                var right = similarity[i]
                j = i
                while j + 1 < similarity.count && similarity[j + 1] >= right {
                    j += 1
                    right = similarity[j]
                }
                return (left - similarity[i]) + (right - similarity[i])
            }
            let mean = depths.reduce(0, +) / Double(depths.count)
            let spread = sqrt(depths.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(depths.count))
            // TextTiling's cutoff, and a floor: within one subject the blocks still share
            // most of their words, and the dips are shallow.
            let cutoff = max(mean - spread / 2, settings.shallowest)
            // Deepest first, so that of two close ones the clearer stays.
            let chosen = depths.indices.filter { depths[$0] > cutoff && depths[$0] > 0 }.sorted {
                depths[$0] > depths[$1]
            }
            for i in chosen {
                let at = pause(near: runs[gaps[i]].first!.start, in: transcript, reach: settings.pauseReach)
                if starts.allSatisfy({ abs($0 - at) >= settings.shortest }),
                    let last = timed.last, last.start - at >= settings.shortest / 2
                {
                    starts.append(at)
                }
            }
        }
        starts.sort()
        let chapters = starts.indices.map { i -> [String] in
            let end = i + 1 < starts.count ? starts[i + 1] : .infinity
            return timed.filter { $0.start >= starts[i] && $0.start < end }.map(\.word)
        }
        return zip(starts, labels(chapters)).map { Chapter(start: $0, words: $1) }
    }

    /// The content words of `transcript` with their times: each word's own where it has
    /// word times, else its segment's start.
    static func words(of transcript: Transcript) -> [(word: String, start: Double)] {
        transcript.segments.flatMap { segment -> [(word: String, start: Double)] in
            let timed = segment.words.flatMap { word in Topics.words(Array(word.text.utf8)).map { ($0, word.start) } }
            let all = timed.isEmpty ? Topics.words(Array(segment.text.utf8)).map { ($0, segment.start ?? 0) } : timed
            return all.filter { Topics.isContentWord($0.0) }.map { (word: $0.0, start: $0.1) }
        }
    }

    /// The middle of the longest silence between two words (or segments) within `reach`
    /// of `time`; `time` itself when there is none.
    static func pause(near time: Double, in transcript: Transcript, reach: Double) -> Double {
        var spans: [(start: Double, end: Double)] = []
        for segment in transcript.segments {
            if segment.words.isEmpty {
                if let start = segment.start, let end = segment.end { spans.append((start, end)) }
            } else {
                spans += segment.words.map { ($0.start, $0.end) }
            }
        }
        var best: (length: Double, at: Double)?
        for (a, b) in zip(spans, spans.dropFirst()) where b.start > a.end {
            let middle = (a.end + b.start) / 2
            guard abs(middle - time) <= reach else { continue }
            if best.map({ b.start - a.end > $0.length }) ?? true { best = (b.start - a.end, middle) }
        }
        return best?.at ?? time
    }

    static func cosine(_ a: [String], _ b: [String]) -> Double {
        var x: [String: Double] = [:]
        var y: [String: Double] = [:]
        for word in a { x[word, default: 0] += 1 }
        for word in b { y[word, default: 0] += 1 }
        let dot = x.reduce(0.0) { $0 + $1.value * (y[$1.key] ?? 0) }
        let norm = sqrt(x.values.reduce(0) { $0 + $1 * $1 }) * sqrt(y.values.reduce(0) { $0 + $1 * $1 })
        return norm == 0 ? 0 : dot / norm
    }

    /// Each chapter's three words that weigh most against the other chapters (`Topics`).
    static func labels(_ chapters: [[String]]) -> [[String]] {
        let counts = chapters.map { Topics.counts($0) }
        return counts.map { mine in
            Topics.ranked(
                mine, documents: counts.count, saying: { term in counts.filter { $0[term] != nil }.count }, limit: 3
            )
            .map(\.text)
        }
    }
}

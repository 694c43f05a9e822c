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
    /// to tell). None when there are fewer than `atLeast`, found before any is labelled (the
    /// labels are most of the cost): a Markdown note wants headings only where the subject
    /// changes.
    package static func of(_ transcript: Transcript, settings: Settings = Settings(), atLeast: Int = 1) -> [Chapter] {
        let timed = words(of: transcript)
        guard let first = timed.first else { return [] }
        let sequence = settings.sequence ?? max(5, min(20, timed.count / 16))
        let runs = stride(from: 0, to: timed.count, by: sequence).map {
            Array(timed[$0..<min($0 + sequence, timed.count)])
        }
        var starts = [first.start]
        if runs.count >= 2 * settings.block {
            // Each word a number, so that comparing blocks counts in arrays, not dictionaries.
            var numbers: [String: Int] = [:]
            let numbered = runs.map { run in
                run.map { word in
                    if let number = numbers[word.word] { return number }
                    numbers[word.word] = numbers.count
                    return numbers.count - 1
                }
            }
            var similarity = Similarity(vocabulary: numbers.count)
            // gap g lies between run g - 1 and run g.
            let gaps = Array(1..<runs.count)
            let similarities = gaps.map { gap -> Double in
                similarity.cosine(
                    numbered[max(0, gap - settings.block)..<gap], numbered[gap..<min(runs.count, gap + settings.block)])
            }
            let depths = similarities.indices.map { i -> Double in
                var left = similarities[i]
                var j = i
                while j > 0 && similarities[j - 1] >= left {
                    j -= 1
                    left = similarities[j]
                }
                var right = similarities[i]
                j = i
                while j + 1 < similarities.count && similarities[j + 1] >= right {
                    j += 1
                    right = similarities[j]
                }
                return (left - similarities[i]) + (right - similarities[i])
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
        guard starts.count >= atLeast else { return [] }
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
            let timed = segment.words.flatMap { word in Topics.words(word.text.utf8).map { ($0, word.start) } }
            let all = timed.isEmpty ? Topics.words(segment.text.utf8).map { ($0, segment.start ?? 0) } : timed
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

    /// The cosine of two blocks' word counts, words given as numbers below `vocabulary`,
    /// counted in two arrays that are cleared again word by word after each comparison.
    struct Similarity {
        private var x: [Double]
        private var y: [Double]

        init(vocabulary: Int) {
            x = [Double](repeating: 0, count: vocabulary)
            y = x
        }

        mutating func cosine(_ a: ArraySlice<[Int]>, _ b: ArraySlice<[Int]>) -> Double {
            for run in a { for word in run { x[word] += 1 } }
            for run in b { for word in run { y[word] += 1 } }
            var dot = 0.0
            var xx = 0.0
            var yy = 0.0
            for run in a {
                for word in run where x[word] > 0 {
                    dot += x[word] * y[word]
                    xx += x[word] * x[word]
                    x[word] = 0
                }
            }
            for run in b {
                for word in run where y[word] > 0 {
                    yy += y[word] * y[word]
                    y[word] = 0
                }
            }
            let norm = sqrt(xx) * sqrt(yy)
            return norm == 0 ? 0 : dot / norm
        }
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

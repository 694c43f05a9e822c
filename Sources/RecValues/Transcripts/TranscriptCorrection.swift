/// A transcript corrected by hand: its texts changed, its word times kept where its words are.
/// The new words of a segment are aligned to its old ones by edit distance over words; a word
/// that is the same keeps its times exactly, and new words share the time of the words they
/// replace (or, put in between, the gap between their neighbours), in proportion to their
/// letters. So `find` and `play --seek` still land on the moment a word is said.
extension Transcript {
    /// The transcript with each segment's text replaced by `texts` (one per segment, in
    /// order), and marked as corrected when any changed. A segment whose text is the same
    /// is kept as it was, to the bit.
    package func correcting(texts: [String]) -> Transcript {
        precondition(texts.count == segments.count, "one text per segment")
        var corrected = self
        for (index, text) in texts.enumerated() where text != segments[index].text {
            corrected.segments[index] = segments[index].correcting(text: text)
            corrected.corrected = true
        }
        return corrected
    }
}

extension Transcript.Segment {
    /// This segment saying `text`, its word times aligned (see `Transcript.correcting`).
    package func correcting(text: String) -> Transcript.Segment {
        let tokens = text.split(whereSeparator: \.isWhitespace).map(String.init)
        var segment = self
        segment.text = tokens.joined(separator: " ")
        guard !words.isEmpty else { return segment }
        segment.words = WordAlignment.retimed(words, as: tokens, within: start, end)
        return segment
    }
}

/// Edit distance over words, and the times it gives new words.
package enum WordAlignment {
    /// How old words become new ones: the same word, kept; one replaced; one taken out; one put in.
    package enum Step: Equatable, Sendable {
        case keep(old: Int, new: Int)
        case replace(old: Int, new: Int)
        case delete(old: Int)
        case insert(new: Int)
    }

    /// The cheapest steps that make `old` into `new`, in order: an edit distance over words
    /// where a delete or an insert costs one and a replace two, so that the words kept are
    /// as many as the two have in common, in order (a cheaper replace would trade a kept word
    /// for two replaced ones: "A B" to "X A" as two replaces, "A" no longer kept).
    package static func steps(from old: [String], to new: [String]) -> [Step] {
        let n = old.count
        let m = new.count
        // cost[i][j]: the distance from old[i...] to new[j...], flat.
        var cost = [Int](repeating: 0, count: (n + 1) * (m + 1))
        func at(_ i: Int, _ j: Int) -> Int { i * (m + 1) + j }
        for i in stride(from: n, through: 0, by: -1) {
            for j in stride(from: m, through: 0, by: -1) {
                if i == n {
                    cost[at(i, j)] = m - j
                } else if j == m {
                    cost[at(i, j)] = n - i
                } else {
                    let diagonal = cost[at(i + 1, j + 1)] + (old[i] == new[j] ? 0 : 2)
                    cost[at(i, j)] = min(diagonal, cost[at(i + 1, j)] + 1, cost[at(i, j + 1)] + 1)
                }
            }
        }
        var steps: [Step] = []
        var i = 0
        var j = 0
        while i < n || j < m {
            if i < n && j < m && old[i] == new[j] && cost[at(i, j)] == cost[at(i + 1, j + 1)] {
                steps.append(.keep(old: i, new: j))
                (i, j) = (i + 1, j + 1)
            } else if i < n && j < m && cost[at(i, j)] == cost[at(i + 1, j + 1)] + 2 {
                steps.append(.replace(old: i, new: j))
                (i, j) = (i + 1, j + 1)
            } else if i < n && cost[at(i, j)] == cost[at(i + 1, j)] + 1 {
                steps.append(.delete(old: i))
                i += 1
            } else {
                steps.append(.insert(new: j))
                j += 1
            }
        }
        return steps
    }

    /// `tokens` as words with times: a token kept from `words` has its word's times; each run
    /// of new tokens between two kept ones shares the time of the words it replaces, or, if
    /// it replaces none, the gap between the kept words around it (the segment's `start` and
    /// `end` at its ends), in proportion to its letters. Times never go backwards.
    package static func retimed(
        _ words: [Transcript.Word], as tokens: [String], within start: Double?, _ end: Double?
    ) -> [Transcript.Word] {
        var result: [Transcript.Word] = []
        var replaced: [Transcript.Word] = []
        var added: [String] = []
        func flush(before next: Double?) {
            defer { (replaced, added) = ([], []) }
            guard !added.isEmpty else { return }
            let after = result.last?.end ?? start ?? replaced.first?.start ?? next ?? 0
            let from = max(replaced.first?.start ?? after, after)
            var to = max(replaced.last?.end ?? next ?? end ?? from, from)
            if let next { to = min(to, max(next, from)) }
            let letters = added.map { Double(max($0.count, 1)) }
            let total = letters.reduce(0, +)
            var at = from
            for (token, share) in zip(added, letters) {
                let length = (to - from) * share / total
                result.append(Transcript.Word(start: at, end: at + length, text: token))
                at += length
            }
        }
        for step in steps(from: words.map(\.text), to: tokens) {
            switch step {
            case .keep(let old, _):
                flush(before: words[old].start)
                result.append(words[old])
            case .replace(let old, let new):
                replaced.append(words[old])
                added.append(tokens[new])
            case .delete(let old):
                replaced.append(words[old])
            case .insert(let new):
                added.append(tokens[new])
            }
        }
        flush(before: nil)
        return result
    }
}

import PropertyBased
import RecValues
import Testing

/// A transcript corrected by hand keeps its word times: random edits of a segment's words
/// (replace, insert, delete, at random places), then alignment back to the old times.
@Suite("transcript correction: word times after an edit")
struct TranscriptCorrectionTests {
    static let vocabulary = ["the", "budget", "Dashwood", "young", "man", "ill", "disposed", "for", "them", "a"]

    /// A segment of `count` distinct-looking words with gaps between them, from 1 s on.
    static func segment(_ count: Int, using random: inout Xoshiro) -> Transcript.Segment {
        var at = 1.0
        let words = (0..<count).map { index -> Transcript.Word in
            let start = at + Double.random(in: 0...0.3, using: &random)
            let end = start + Double.random(in: 0.1...0.6, using: &random)
            at = end
            let text = vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)] + "\(index)"
            return Transcript.Word(start: start, end: end, text: text)
        }
        return Transcript.Segment(
            start: 1.0, end: at + 0.2, text: words.map(\.text).joined(separator: " "), words: words)
    }

    @Test("unchanged words keep their times exactly, and times stay in order")
    func randomEditsKeepTheTimesOfWhatStays() {
        var random = Xoshiro(seed: (3, 5, 8, 13))
        for round in 0..<400 {
            let old = Self.segment(Int.random(in: 0...12, using: &random), using: &random)
            // Each old word is kept, replaced or deleted; new ones go in anywhere. The kept
            // ones are known by their text (each old word is unique by its number).
            var tokens: [String] = []
            var kept: Set<String> = []
            for word in old.words {
                if Bool.random(using: &random) { tokens.append("new\(round)x\(tokens.count)") }
                switch Int.random(in: 0..<4, using: &random) {
                case 0: tokens.append("said\(tokens.count)")
                case 1: break
                default:
                    tokens.append(word.text)
                    kept.insert(word.text)
                }
            }
            if Bool.random(using: &random) { tokens.append("last") }
            let corrected = old.correcting(text: tokens.joined(separator: " "))
            guard !old.words.isEmpty else {
                // A segment without word times is given none.
                #expect(corrected.words.isEmpty && corrected.text == tokens.joined(separator: " "))
                continue
            }
            #expect(corrected.words.map(\.text) == tokens, "round \(round)")
            for word in corrected.words where kept.contains(word.text) {
                #expect(old.words.contains(word), "round \(round): \(word.text) moved")
            }
            for (a, b) in zip(corrected.words, corrected.words.dropFirst()) {
                #expect(a.start <= a.end && a.end <= b.start + 1e-9, "round \(round): \(a) then \(b)")
            }
            if let first = corrected.words.first, let last = corrected.words.last {
                #expect(first.start >= old.start! - 1e-9 && last.end <= old.end! + 1e-9, "round \(round)")
            }
        }
    }

    @Test("a replaced word takes the time of the one it replaces; a segment left alone is unchanged")
    func aNameCorrected() {
        let words = [
            Transcript.Word(start: 0.5, end: 0.8, text: "mister"),
            Transcript.Word(start: 0.8, end: 1.4, text: "dashwood"),
            Transcript.Word(start: 1.5, end: 1.9, text: "said"),
        ]
        let segment = Transcript.Segment(start: 0.4, end: 2.0, text: "mister dashwood said", words: words)
        let other = Transcript.Segment(start: 3, end: 4, text: "nothing else", words: [])
        let transcript = Transcript(engine: "whisper", model: "tiny.en", quality: .good, segments: [segment, other])
        let corrected = transcript.correcting(texts: ["Mr. John Dashwood said", "nothing else"])
        #expect(corrected.corrected)
        #expect(corrected.segments[1] == other)
        let fixed = corrected.segments[0].words
        #expect(fixed.map(\.text) == ["Mr.", "John", "Dashwood", "said"])
        #expect(fixed[3] == words[2])
        #expect(fixed[0].start == 0.5 && abs(fixed[2].end - 1.4) < 1e-9)
        #expect(!transcript.correcting(texts: ["mister dashwood said", "nothing else"]).corrected)
    }
}

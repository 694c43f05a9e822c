import RecValues
import Testing

/// `Topics`: TF-IDF over a small made-up library of transcripts.
@Suite("topics: the terms a transcript stands out by")
struct TopicsTests {
    static let library = [
        "the budget for the team, the budget review and the plan for the quarter",
        "the plan for the garden and the weather, the team went out for the plan",
        "the team talked about the zeppelin museum and the budget review of the zeppelin",
    ]

    func ranked(_ index: Int, limit: Int = 10) -> [Topics.Term] {
        let documents = Self.library.map { Topics.counts(Topics.words(Array($0.utf8))) }
        return Topics.ranked(
            documents[index], documents: documents.count,
            saying: { term in
                documents.filter { $0[term] != nil }.count
            }, limit: limit)
    }

    @Test func aWordSaidInOneRecordingRanksHighAndTheNever() {
        let third = ranked(2)
        #expect(third.first?.text == "zeppelin", "\(third)")
        for index in Self.library.indices {
            #expect(!ranked(index).contains { $0.text.split(separator: " ").contains("the") })
        }
        // Said in every transcript, "team" weighs only its count; "zeppelin", twice in one, most.
        let team = third.first { $0.text == "team" }
        #expect(team.map { abs($0.weight - 1) < 1e-9 } == true, "\(third)")
    }

    @Test func aPhraseSaidTwiceCountsAndTakesItsWords() {
        let first = ranked(0)
        #expect(first.contains { $0.text == "budget review" } == false, "said once in it: \(first)")
        let repeated = Topics.counts(Topics.words(Array("budget review, then the budget review again".utf8)))
        let terms = Topics.ranked(repeated, documents: 1, saying: { _ in 1 }, limit: 10).map(\.text)
        #expect(terms.first == "budget review", "\(terms)")
        #expect(!terms.contains("review"), "every 'review' is inside the phrase: \(terms)")
    }

    @Test func wordsAreLowerCaseLettersAndApostrophes() {
        #expect(
            Topics.words(Array("Zürich's ZEPPELIN, o'clock! 42".utf8)) == ["zürich's", "zeppelin", "o'clock", "42"])
        #expect(!Topics.isContentWord("the") && !Topics.isContentWord("42") && Topics.isContentWord("zeppelin"))
    }
}

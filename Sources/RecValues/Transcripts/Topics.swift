#if canImport(Glibc)
    import Glibc
#endif

/// What a recording is about, without a model: the words and phrases its transcript says
/// more than the library's others do, by TF-IDF (as Google Recorder's keywords are). A term
/// is a word of three letters or more that is not a function word ("the", "because"), or two
/// such words said one after the other. A term's weight in one transcript is how often it is
/// said there times log((1 + N) / (1 + n)) + 1, with N transcripts in the library and n of
/// them saying it: a word every recording says weighs only what it is said, one no other
/// says weighs most.
package enum Topics {
    package struct Term: Equatable, Sendable {
        package var text: String
        package var count: Int
        package var weight: Double
    }

    /// The words of UTF-8 text as terms are made of: lower case, letters, digits and the
    /// apostrophes inside them; everything else separates.
    package static func words(_ text: some Collection<UInt8>) -> [String] {
        var words: [String] = []
        var current: [UInt8] = []
        var nonASCII = false
        func end() {
            while current.last == UInt8(ascii: "'") { current.removeLast() }
            if !current.isEmpty {
                let word = String(decoding: current, as: UTF8.self)
                words.append(nonASCII ? word.lowercased() : word)
            }
            current.removeAll(keepingCapacity: true)
            nonASCII = false
        }
        for byte in text {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): current.append(byte | 0x20)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): current.append(byte)
            case UInt8(ascii: "'") where !current.isEmpty: current.append(byte)
            case 0x80...:
                current.append(byte)
                nonASCII = true
            default: end()
            }
        }
        end()
        return words
    }

    /// Whether `word` may be a term, or half of one.
    package static func isContentWord(_ word: String) -> Bool {
        word.unicodeScalars.count >= 3 && !stopWords.contains(word) && !word.allSatisfy(\.isNumber)
    }

    /// The terms of a transcript's words and how often each is said: its content words, and
    /// its pairs of content words said together.
    package static func counts(_ words: [String]) -> [String: Int] {
        var counts: [String: Int] = [:]
        var previous: String?
        for word in words {
            guard isContentWord(word) else {
                previous = nil
                continue
            }
            counts[word, default: 0] += 1
            if let previous { counts[previous + " " + word, default: 0] += 1 }
            previous = word
        }
        return counts
    }

    /// The `limit` terms of `counts` that weigh most against a library of `documents`
    /// transcripts in which `saying(term)` say each (this one among them). A phrase counts
    /// once it is said twice; a word whose every saying is inside a phrase listed above it is
    /// left out, as the phrase says it.
    package static func ranked(
        _ counts: [String: Int], documents: Int, saying: (String) -> Int, limit: Int
    ) -> [Term] {
        func weight(_ term: String, _ count: Int) -> Double {
            let idf = log(Double(1 + documents) / Double(1 + max(saying(term), 1))) + 1
            return Double(count) * idf
        }
        // Whether each is a phrase is found once, not in every comparison of the sort.
        let candidates = counts.compactMap { term, count -> (term: Term, phrase: Int)? in
            let phrase = term.utf8.contains(0x20)
            if phrase && count < 2 { return nil }
            return (Term(text: term, count: count, weight: weight(term, count)), phrase ? 1 : 0)
        }
        // Of two that weigh the same, the phrase first: it says more than either word.
        .sorted { a, b in
            (a.term.weight, a.phrase, b.term.text) > (b.term.weight, b.phrase, a.term.text)
        }
        var chosen: [Term] = []
        for (term, _) in candidates where chosen.count < limit {
            let inside = chosen.filter {
                $0.text.contains(" ") && $0.text.split(separator: " ").contains { $0 == term.text }
            }
            if !inside.isEmpty && inside.map(\.count).reduce(0, +) >= term.count { continue }
            chosen.append(term)
        }
        return chosen
    }

    /// Function words of English: never a term.
    static let stopWords: Set<String> = [
        "about", "above", "after", "again", "against", "all", "also", "and", "any", "are", "aren't", "around",
        "because",
        "been", "before", "being", "below", "between", "both", "but", "can", "can't", "cannot", "could", "couldn't",
        "did", "didn't", "does", "doesn't", "doing", "don't", "down", "during", "each", "even", "ever", "every", "few",
        "for", "from", "further", "get", "gets", "got", "had", "hadn't", "has", "hasn't", "have", "haven't", "having",
        "he'd", "he'll", "he's", "her", "here", "here's", "hers", "herself", "him", "himself", "his", "how", "how's",
        "i'd", "i'll", "i'm", "i've", "into", "isn't", "it's", "its", "itself", "just", "let's", "like", "more", "most",
        "much", "must", "mustn't", "myself", "never", "not", "now", "off", "once", "one", "only", "other", "ought",
        "our", "ours", "ourselves", "out", "over", "own", "really", "right", "said", "same", "say", "says", "shan't",
        "she", "she'd", "she'll", "she's", "should", "shouldn't", "since", "some", "still", "such", "than", "that",
        "that's", "the", "their", "theirs", "them", "themselves", "then", "there", "there's", "these", "they",
        "they'd", "they'll", "they're", "they've", "thing", "things", "think", "this", "those", "though", "through",
        "too", "under", "until", "upon", "very", "was", "wasn't", "way", "we'd", "we'll", "we're", "we've", "well",
        "were", "weren't", "what", "what's", "when", "when's", "where", "where's", "which", "while", "who", "who's",
        "whom", "why", "why's", "will", "with", "won't", "would", "wouldn't", "yeah", "yes", "yet", "you", "you'd",
        "you'll", "you're", "you've", "your", "yours", "yourself", "yourselves", "going", "gonna", "okay", "know",
        "mean", "actually", "maybe", "kind", "sort", "lot", "lots", "want", "need", "make", "made", "see", "look",
        "come", "came", "take", "took", "put", "two", "three", "first", "last", "next", "back", "good", "new",
    ]
}

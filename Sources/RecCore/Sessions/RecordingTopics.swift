import RecStore
import RecSystem
import RecValues

/// `topics PATH`: the terms a recording's transcript stands out by against every transcript
/// in the library (`Topics`), each with the moments it is said, so that `play --seek` can go
/// there.
package enum RecordingTopics {
    package struct Topic: Equatable, Sendable {
        package var term: String
        package var count: Int
        package var weight: Double
        /// Where it is said, in seconds: its first word's time, or its segment's start where
        /// the transcript has no word times.
        package var times: [Double]
    }

    package static func of(_ item: Item, in library: Library, limit: Int) throws -> [Topic] {
        let transcript = try TranscriptFiles(location: library.location).required(
            item.id, path: library.document.path(of: item.id))
        return of(transcript, of: item, in: library, limit: limit)
    }

    /// The same for `transcript`, `item`'s, already read.
    package static func of(_ transcript: Transcript, of item: Item, in library: Library, limit: Int) -> [Topic] {
        let files = TranscriptFiles(location: library.location)
        var counts: [String: Int] = [:]
        for segment in transcript.segments {
            counts.merge(Topics.counts(Topics.words(Array(segment.text.utf8)))) { $0 + $1 }
        }
        // How many transcripts say each of this one's terms; only its terms are looked for.
        var saying: [String: Int] = [:]
        let others = files.ids().filter { $0 != item.id }
        for id in others {
            guard let index = files.indexBytes(of: id) else { continue }
            var seen = Set<String>()
            for line in index.split(separator: 0x0A) {
                let text = line.drop { $0 != 0x09 }.dropFirst()
                var previous: String?
                for word in Topics.words(text) {
                    if counts[word] != nil { seen.insert(word) }
                    if let previous, case let pair = previous + " " + word, counts[pair] != nil { seen.insert(pair) }
                    previous = Topics.isContentWord(word) ? word : nil
                }
            }
            for term in seen { saying[term, default: 0] += 1 }
        }
        let ranked = Topics.ranked(
            counts, documents: others.count + 1, saying: { 1 + (saying[$0] ?? 0) }, limit: limit)
        return ranked.map {
            Topic(term: $0.text, count: $0.count, weight: $0.weight, times: times(of: $0.text, in: transcript))
        }
    }

    /// `topics --json` and the server's `/api/topics`: `[{"term", "count", "weight", "times"}]`,
    /// times in seconds.
    package static func json(_ topics: [Topic]) -> String {
        var w = JSONWriter()
        w.array(topics) { w, topic in
            w.beginObject()
            w.field("term", topic.term)
            w.field("count", topic.count)
            w.field("weight", (topic.weight * 1000).rounded() / 1000)
            w.field("times", topic.times.map { ($0 * 1000).rounded() / 1000 }) { $0.double($1) }
            w.endObject()
        }
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Where `term` is said in `transcript`.
    static func times(of term: String, in transcript: Transcript) -> [Double] {
        let wanted = term.split(separator: " ").map(String.init)
        var times: [Double] = []
        for segment in transcript.segments {
            // Timed words where there are: each word's own text as terms are made of.
            let timed = segment.words.flatMap { word in Topics.words(Array(word.text.utf8)).map { ($0, word.start) } }
            let words = timed.isEmpty ? Topics.words(Array(segment.text.utf8)).map { ($0, segment.start ?? 0) } : timed
            guard words.count >= wanted.count else { continue }
            for at in 0...(words.count - wanted.count)
            where zip(words[at..<(at + wanted.count)], wanted).allSatisfy({ $0.0.0 == $0.1 }) {
                times.append(words[at].1)
            }
        }
        return times
    }
}

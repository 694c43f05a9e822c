import RecStore
import RecSystem
import RecTranscripts
import RecValues

/// `transcript PATH --edit` and `--replace OLD --with NEW`: a transcript's words corrected by hand,
/// their times kept (`Transcript.correcting`), saved as `transcribe` saves one (under the store
/// lock, the one it replaces kept for `undo`) and marked as corrected, which sync prefers to
/// any engine's transcript of the recording.
package enum TranscriptCorrector {
    /// What the editor shows: a segment a line, each after its time, below a few lines of help.
    package static func editable(_ transcript: Transcript, path: String) -> String {
        var text = """
            # The transcript of \(path), a segment a line. Correct the words and save; keep the
            # lines and their order (an emptied line empties its segment). The times in [ ] are
            # not read, and lines starting with # are left out. Saved unchanged, nothing is.


            """
        text += TranscriptFormat.timedLines(transcript)
        return text
    }

    /// The segments' texts in `edited` (as `editable` wrote it, corrected); one line per
    /// segment, or an error that says so.
    package static func texts(in edited: String, for transcript: Transcript) throws -> [String] {
        var lines = edited.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }
        // Blank lines around the segments' (the editor's last newline, the one after the help)
        // are not lines of segments.
        while lines.first?.allSatisfy(\.isWhitespace) == true { lines.removeFirst() }
        while lines.last?.allSatisfy(\.isWhitespace) == true { lines.removeLast() }
        let texts = lines.map { line -> String in
            var rest = line
            if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") { rest = rest[rest.index(after: close)...] }
            while rest.first?.isWhitespace == true { rest = rest.dropFirst() }
            while rest.last?.isWhitespace == true { rest = rest.dropLast() }
            return String(rest)
        }
        guard texts.count == transcript.segments.count else {
            throw RecError.usage(
                "transcript",
                "the edit has \(texts.count) lines for \(transcript.segments.count) segments: keep one line a segment; nothing was saved"
            )
        }
        return texts
    }

    /// `transcript` with `old` (one or more words) said as `new`: its first occurrence, or
    /// every one with `all`, matched word for word within a segment, a word's punctuation
    /// kept ("Dashwood," stays "NEW,"). Returns it and how many were replaced and left.
    package static func replacing(_ old: String, with new: String, all: Bool, in transcript: Transcript) throws
        -> (transcript: Transcript, replaced: Int, left: Int)
    {
        let wanted = old.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !wanted.isEmpty else { throw RecError.usage("--replace", "needs the words to replace") }
        let replacement = new.split(whereSeparator: \.isWhitespace).map(String.init)
        var texts: [String] = []
        var replaced = 0
        var left = 0
        for segment in transcript.segments {
            var tokens = segment.text.split(whereSeparator: \.isWhitespace).map(String.init)
            var at = 0
            var changed = false
            while at + wanted.count <= tokens.count {
                let window = tokens[at..<(at + wanted.count)]
                guard zip(window, wanted).allSatisfy({ bare($0.0) == bare($0.1) }) else {
                    at += 1
                    continue
                }
                guard all || replaced == 0 else {
                    left += 1
                    at += wanted.count
                    continue
                }
                var words = replacement
                if !words.isEmpty {
                    words[0] = leading(window.first!) + words[0]
                    words[words.count - 1] += trailing(window.last!)
                }
                tokens.replaceSubrange(at..<(at + wanted.count), with: words)
                at += max(words.count, 1)
                replaced += 1
                changed = true
            }
            texts.append(changed ? tokens.joined(separator: " ") : segment.text)
        }
        guard replaced > 0 else { throw RecError.failure("transcript", "\"\(old)\" is not in the transcript") }
        return (transcript.correcting(texts: texts), replaced, left)
    }

    /// Saves `corrected` as `item`'s transcript (see `Transcriber.save`), its history line
    /// saying what was done.
    package static func save(_ corrected: Transcript, for item: Item, in library: Library) throws {
        // Made now, by hand: of two corrections on two machines, sync keeps the newer.
        var corrected = corrected
        corrected.created = .now()
        library.documents.summary = "transcript of \(library.document.path(of: item.id)) corrected"
        guard try Transcriber.save(corrected, for: item, in: library) else {
            throw RecError.failure(library.document.path(of: item.id), "was removed meanwhile; nothing was saved")
        }
    }

    /// The names a correction brought in that are not among your words: the words of
    /// `corrected` with a capital letter that `original` does not have, without their
    /// punctuation, each once, in order.
    package static func newNames(in corrected: Transcript, comparedTo original: Transcript, vocabulary: [String])
        -> [String]
    {
        func words(_ t: Transcript) -> [String] {
            t.segments.flatMap { $0.text.split(whereSeparator: \.isWhitespace).map { String(bare(String($0))) } }
        }
        let had = Set(words(original)).union(vocabulary.map { $0 })
        var seen = Set<String>()
        return words(corrected).filter { word in
            word.contains { $0.isUppercase } && !had.contains(word)
                && !vocabulary.contains { $0.lowercased() == word.lowercased() } && seen.insert(word).inserted
        }
    }

    /// A word without the punctuation around it ("Dashwood," → "Dashwood"); a word that is
    /// all punctuation is itself.
    private static func bare(_ word: String) -> Substring {
        var inner = Substring(word)
        while inner.first?.isPunctuation == true { inner = inner.dropFirst() }
        while inner.last?.isPunctuation == true { inner = inner.dropLast() }
        return inner.isEmpty ? Substring(word) : inner
    }

    private static func leading(_ word: String) -> String { String(word[..<bare(word).startIndex]) }

    private static func trailing(_ word: String) -> String { String(word[bare(word).endIndex...]) }
}

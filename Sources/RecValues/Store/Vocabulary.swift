import RecSystem

/// Your words (`recnotes words`): the names and terms the engines should expect, kept in the
/// store as `words.txt`, a word or phrase a line. A text file so that sync merges two
/// machines' additions line by line (git's union merge) and a user may edit it by hand; read
/// back sorted and without repeats whatever a merge or an editor left.
package struct Vocabulary: Sendable {
    package let path: String

    package init(storeDirectory: String) { path = storeDirectory + "/" + Self.fileName }

    package static let fileName = "words.txt"

    /// The words, sorted as people read them (case and accents aside), each once; none when
    /// there is no file.
    package var words: [String] { Self.normalized(Self.parse((try? FileSystem.read(path)) ?? [])) }

    /// Adds `new`; returns those that were not there yet.
    package func add(_ new: [String]) throws -> [String] {
        try change { words in
            let known = Set(words.map(Self.key))
            var added: [String] = []
            for word in new.map(Self.tidy) where !word.isEmpty && !known.contains(Self.key(word)) {
                if !added.contains(where: { Self.key($0) == Self.key(word) }) { added.append(word) }
            }
            words += added
            return added
        }
    }

    /// Removes `gone`, every one of which must be there (as `add` would match it): otherwise
    /// nothing is changed, and the error names the first that is not.
    package func remove(_ gone: [String]) throws {
        try change { words in
            let keys = Set(gone.map { Self.key(Self.tidy($0)) })
            if let missing = gone.first(where: { word in !words.contains { Self.key($0) == Self.key(Self.tidy(word)) } }
            ) {
                throw RecError.failure("words", "\"\(missing)\" is not one of your words")
            }
            words.removeAll { keys.contains(Self.key($0)) }
        }
    }

    /// The words as the engines are told them: Whisper's initial prompt.
    package var prompt: String? {
        let words = words
        return words.isEmpty ? nil : words.joined(separator: ", ") + "."
    }

    private func change<T>(_ body: (inout [String]) throws -> T) throws -> T {
        try FileLock.withLock(path + ".lock") {
            var words = self.words
            let result = try body(&words)
            let text = Self.normalized(words).map { $0 + "\n" }.joined()
            try FileSystem.writeAtomically(Array(text.utf8), to: path)
            return result
        }
    }

    static func parse(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).map { tidy(String($0)) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// One line's word: spaces inside it made one, none around it.
    static func tidy(_ word: String) -> String {
        word.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// What two words that are the same word share: "zürich" for "Zürich" and "ZÜRICH".
    static func key(_ word: String) -> String { word.lowercased() }

    static func normalized(_ words: [String]) -> [String] {
        var seen = Set<String>()
        return words.filter { seen.insert(key($0)).inserted }.sorted {
            (key($0), $0) < (key($1), $1)
        }
    }
}

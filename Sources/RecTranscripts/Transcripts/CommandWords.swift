import RecSystem

/// Splits a command string into argv the way a POSIX shell splits words, and does nothing
/// else a shell does: no variables, globs, pipes, redirections or command substitution.
/// The command runs without a shell, so nothing in it (nor the `{wav}` path substituted
/// later) is ever interpreted by one.
///
/// - Unquoted blanks (space, tab, newline) separate words.
/// - `'…'` keeps everything literally.
/// - `"…"` keeps everything, except that a backslash escapes `"`, `\`, `$`, `` ` `` and a
///   newline (which it removes); before any other character it stays.
/// - An unquoted backslash makes the next character literal (a backslash-newline is removed).
/// - `''` and `""` make an empty word.
package enum CommandWords {
    /// The words, or a usage error for an unterminated quote or a trailing backslash.
    package static func split(_ command: String) throws(RecError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = command.makeIterator()
        func unterminated(_ what: String) -> RecError { .usage("transcriber command", "unterminated \(what)") }
        while let c = characters.next() {
            switch c {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                var closed = false
                while let q = characters.next() {
                    if q == "'" {
                        closed = true
                        break
                    }
                    word.append(q)
                }
                if !closed { throw unterminated("single quote") }
            case "\"":
                inWord = true
                var closed = false
                while let q = characters.next() {
                    if q == "\"" {
                        closed = true
                        break
                    }
                    if q == "\\" {
                        guard let next = characters.next() else { break }
                        switch next {
                        case "\"", "\\", "$", "`": word.append(next)
                        case "\n": break
                        default:
                            word.append("\\")
                            word.append(next)
                        }
                    } else {
                        word.append(q)
                    }
                }
                if !closed { throw unterminated("double quote") }
            case "\\":
                guard let next = characters.next() else { throw .usage("transcriber command", "trailing backslash") }
                if next != "\n" {
                    word.append(next)
                    inWord = true
                }
            default:
                word.append(c)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// The words with every `{wav}` (inside any word) replaced by `path`.
    package static func substitute(_ words: [String], wav path: String) -> [String] {
        words.map { $0.replacingAll("{wav}", with: path) }
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation in RecCore).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var out = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        out += rest
        return out
    }
}

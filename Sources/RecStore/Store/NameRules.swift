import RecSystem

/// What makes a valid folder or recording name. The rules are those of a filesystem name,
/// plus no surrounding whitespace, which is never what a person meant to type.
package enum NameRules {
    package static let maxBytes = 255

    /// The rule a name breaks, worded for an error message; nil when the name is valid.
    package static func violation(_ name: String) -> String? {
        if isPlainASCIIName(name) { return nil }
        if name.isEmpty { return "a name cannot be empty" }
        if name.utf8.count > maxBytes {
            return "a name is at most \(maxBytes) bytes of UTF-8 (this one has \(name.utf8.count))"
        }
        if name == "." || name == ".." { return "\"\(name)\" is reserved and cannot be a name" }
        for scalar in name.unicodeScalars {
            if scalar == "/" { return "a name cannot contain '/'" }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                return "a name cannot contain control characters"
            }
        }
        if let first = name.unicodeScalars.first, first.properties.isWhitespace {
            return "a name cannot start with whitespace"
        }
        if let last = name.unicodeScalars.last, last.properties.isWhitespace {
            return "a name cannot end with whitespace"
        }
        return nil
    }

    /// The common case, checked on bytes: printable ASCII, no '/', no space at either end,
    /// not `.` or `..`. Anything else takes the full check.
    @inline(__always)
    static func isPlainASCIIName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { b in
            guard b.count > 0, b.count <= maxBytes, b[0] != 32, b[b.count - 1] != 32 else { return false }
            if b[0] == 46 && (b.count == 1 || (b.count == 2 && b[1] == 46)) { return false }
            for byte in b where byte < 32 || byte >= 127 || byte == 47 { return false }
            return true
        }
    }

    package static func validate(_ name: String) throws {
        if let problem = violation(name) { throw RecError.usage(quoted(name), problem) }
    }

    /// A name as it appears at the start of an error line: control characters made visible,
    /// so the message stays on one line whatever the input held.
    package static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        if out.isEmpty || out != out.trimmingWhitespace { return "'\(out)'" }
        return out
    }
}

import RecSystem
import RecTestSupport
import Testing

@testable import RecStore

@Suite("Name validation")
struct NameRulesTests {
    @Test(
        "valid names",
        arguments: [
            "a", "Ideas", "take 2", "Café", "émoji 🎙", "...", ".hidden", "a.b", "@home", "a\u{A0}b", "中文名字",
            String(repeating: "x", count: 255),
        ])
    func valid(name: String) throws {
        #expect(NameRules.violation(name) == nil)
        try NameRules.validate(name)
    }

    @Test("the empty name")
    func empty() {
        #expect(NameRules.violation("") == "a name cannot be empty")
        let error = recError { try NameRules.validate("") }
        #expect(error == RecError.usage("''", "a name cannot be empty"))
        #expect(error?.exitCode == 64)
    }

    @Test("at most 255 bytes of UTF-8, counted in bytes, not characters")
    func length() {
        let ascii256 = String(repeating: "x", count: 256)
        #expect(NameRules.violation(ascii256) == "a name is at most 255 bytes of UTF-8 (this one has 256)")

        // Three-byte characters: 85 of them are exactly 255 bytes, one more ASCII byte is too many.
        let euros = String(repeating: "€", count: 85)
        #expect(euros.utf8.count == 255)
        #expect(NameRules.violation(euros) == nil)
        #expect(NameRules.violation(euros + "a") == "a name is at most 255 bytes of UTF-8 (this one has 256)")
        #expect(
            NameRules.violation(String(repeating: "€", count: 86))
                == "a name is at most 255 bytes of UTF-8 (this one has 258)")

        // A multibyte character straddling the boundary.
        #expect(NameRules.violation(String(repeating: "a", count: 253) + "é") == nil)
        #expect(NameRules.violation(String(repeating: "a", count: 254) + "é") != nil)
        #expect(NameRules.violation(String(repeating: "a", count: 251) + "🎙") == nil)
        #expect(
            NameRules.violation(String(repeating: "a", count: 252) + "🎙")
                == "a name is at most 255 bytes of UTF-8 (this one has 256)")
        // Few characters, many bytes.
        let emoji = String(repeating: "🎙", count: 64)
        #expect(emoji.count == 64)
        #expect(NameRules.violation(emoji) != nil)
    }

    @Test("no '/'", arguments: ["/", "a/b", "/a", "a/"])
    func slash(name: String) {
        #expect(NameRules.violation(name) == "a name cannot contain '/'")
    }

    @Test(
        "no control characters, C0, DEL or C1",
        arguments: [
            "a\u{0}b", "a\u{1}", "\u{1}a", "a\tb", "a\nb", "a\rb", "a\u{1B}[31mred", "a\u{1F}",
            "a\u{7F}", "a\u{80}b", "a\u{85}b", "a\u{9F}b",
        ])
    func control(name: String) {
        #expect(NameRules.violation(name) == "a name cannot contain control characters")
        let error = recError { try NameRules.validate(name) }
        #expect(error?.kind == .usage)
        // The subject shows the control characters escaped, so the message stays on one line.
        #expect(error?.subject.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } == false)
        #expect(error?.description.contains("\n") == false)
    }

    @Test("the subject shows control characters visibly")
    func quoted() {
        #expect(NameRules.quoted("a\nb") == "a\\u{a}b")
        #expect(NameRules.quoted("a\u{7F}") == "a\\u{7f}")
        #expect(NameRules.quoted(" a") == "' a'")
        #expect(NameRules.quoted("plain") == "plain")
    }

    @Test("no leading whitespace", arguments: [" a", "  a", "\u{A0}a", "\u{3000}a", "\u{2003}a"])
    func leadingWhitespace(name: String) {
        #expect(NameRules.violation(name) == "a name cannot start with whitespace")
    }

    @Test("no trailing whitespace", arguments: ["a ", "a  ", "a\u{A0}", "a\u{2003}", "a\u{3000}"])
    func trailingWhitespace(name: String) {
        #expect(NameRules.violation(name) == "a name cannot end with whitespace")
    }

    @Test("only whitespace is leading whitespace")
    func onlyWhitespace() {
        #expect(NameRules.violation(" ") == "a name cannot start with whitespace")
        let error = recError { try NameRules.validate("   ") }
        #expect(error == RecError.usage("'   '", "a name cannot start with whitespace"))
    }

    @Test("'.' and '..' are reserved")
    func reserved() {
        #expect(NameRules.violation(".") == "\".\" is reserved and cannot be a name")
        #expect(NameRules.violation("..") == "\"..\" is reserved and cannot be a name")
        #expect(
            recError { try NameRules.validate("..") } == RecError.usage("..", "\"..\" is reserved and cannot be a name")
        )
    }

    @Test("the error line is 'subject: rule'")
    func message() {
        let error = recError { try NameRules.validate("a/b") }
        #expect(error?.description == "a/b: a name cannot contain '/'")
    }
}

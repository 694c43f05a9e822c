import Foundation
import RecTestSupport
import RecValues
import Testing

@testable import RecStore

/// The shortcuts `--json` takes give what the general code gives.
@Suite("JSON fast paths")
struct JSONFastPathTests {
    static func written(_ value: Double) -> String {
        var w = JSONWriter()
        w.double(value)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    @Test("a Double is written as description writes it: milliseconds, and every other kind")
    func doubles() {
        var random = SeededRandom(seed: 22)
        var values: [Double] = [0.001, 0.01, 0.1, 0.5, 1.5, 1.05, 1.001, 999_999_999.999, 1e9 + 0.5, 0.0005, 0.0015]
        for _ in 0..<200_000 {
            // Times rounded to the millisecond, as the outputs round them, at every scale.
            let k = Int64.random(in: -2_000_000_000_000...2_000_000_000_000, using: &random)
            let scale = [1, 10, 1000, 1_000_000][Int.random(in: 0..<4, using: &random)]
            values.append((Double(k / Int64(scale)) / 1000))
            values.append((Double.random(in: 0..<3600, using: &random) * 1000).rounded() / 1000)
            // And anything else.
            values.append(Double(bitPattern: random.next()))
            values.append(Double.random(in: -1e10...1e10, using: &random))
        }
        for value in values where value.isFinite && value != value.rounded() {
            #expect(Self.written(value) == value.description, "\(value)")
        }
        #expect(Self.written(-0.25) == "-0.25")
        #expect(Self.written(12.0) == "12")
    }

    @Test("a string is escaped as byte by byte, wherever in its words the escapes fall")
    func strings() {
        var random = SeededRandom(seed: 11)
        let pieces = [
            "a", "budget ", "zürich", "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1F}", " ", "\u{7F}", "é", "😀", "!",
            "#",
        ]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0..<40, using: &random)).map { _ in
                pieces.randomElement(using: &random)!
            }.joined()
            var expected: [UInt8] = [0x22]
            for b in text.utf8 {
                switch b {
                case 0x22: expected += Array("\\\"".utf8)
                case 0x5C: expected += Array("\\\\".utf8)
                case 0x0A: expected += Array("\\n".utf8)
                case 0x0D: expected += Array("\\r".utf8)
                case 0x09: expected += Array("\\t".utf8)
                case ..<0x20: expected += Array("\\u00".utf8) + Array(String(b, radix: 16).utf8).padded(to: 2)
                default: expected.append(b)
                }
            }
            expected.append(0x22)
            var w = JSONWriter()
            w.string(text)
            #expect(w.bytes == expected, "\(Array(text.unicodeScalars))")
        }
    }

    @Test("two strings written as one, lists of strings and integers read back as Foundation reads them")
    func piecesListsAndIntegers() throws {
        var random = SeededRandom(seed: 2811)
        let pieces = [
            "a", "budget ", "zürich", "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1F}", " ", "\u{7F}", "é", "😀", "/",
            "\u{2028}", "ǅ",
        ]
        func text() -> String {
            (0..<Int.random(in: 0..<24, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        for _ in 0..<5_000 {
            let (first, second) = (text(), text())
            // An audioPath: the folder's path and the file's name as one string.
            var joined = JSONWriter()
            joined.string(first + second)
            var split = JSONWriter()
            split.string(first, second)
            #expect(split.bytes == joined.bytes, "\(Array(first.unicodeScalars)) \(Array(second.unicodeScalars))")
            // Tags: a list of strings, as a JSON parser reads it.
            let tags = (0..<Int.random(in: 0..<4, using: &random)).map { _ in text() }
            var list = JSONWriter()
            list.beginObject()
            list.field("tags", tags)
            list.key("path")
            list.string(first, second)
            list.endObject()
            let object = try #require(try JSONSerialization.jsonObject(with: Data(list.bytes)) as? [String: Any])
            #expect(object["tags"] as? [String] == tags)
            #expect(object["path"] as? String == first + second)
        }
        // Integers through each overload (Int, Int64, and the generic one) as `description`.
        var integers: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1]
        for _ in 0..<20_000 {
            integers.append(Int64(bitPattern: random.next()) >> Int64.random(in: 0..<64, using: &random))
        }
        for value in integers {
            var w = JSONWriter()
            w.int(value)
            w.raw(" ")
            w.int(Int(value))
            w.raw(" ")
            w.int(Int32(truncatingIfNeeded: value))
            w.beginObject()
            w.field("frame", value)
            w.field("index", Int(value))
            w.field("rate", Int32(truncatingIfNeeded: value))
            w.endObject()
            let narrow = Int32(truncatingIfNeeded: value)
            #expect(
                String(decoding: w.bytes, as: UTF8.self)
                    == "\(value) \(value) \(narrow){\"frame\": \(value), \"index\": \(value), \"rate\": \(narrow)}")
        }
    }

    /// `JSONReader.readRawString` jumps to the first byte of a chunk that needs a look.
    @Test(
        "a key and its value written at once are the key, then the value, written apart; a UUID as Foundation spells it"
    )
    func keyedValues() {
        var random = SeededRandom(seed: 628)
        let pieces = [
            "a", "budget ", "zürich", "\"", "\\", "\n", "\u{1}", " ", "é", "😀", String(repeating: "x", count: 70),
        ]
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0..<8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            let seconds = [
                (Double.random(in: -4000..<4000, using: &random) * 1000).rounded() / 1000,
                Double(bitPattern: random.next()), Double(Int64.random(in: -1 << 52...1 << 52, using: &random)),
            ].randomElement(using: &random)!
            let time = Timestamp(millisecondsSinceEpoch: Int64.random(in: 0..<4_000_000_000_000, using: &random))
            let id = ItemID(high: random.next(), low: random.next())
            var together = JSONWriter()
            together.beginObject()
            together.field("label", text)
            together.field("seconds", seconds)
            together.field("created", time)
            together.field("uuid", id)
            together.field("a key longer than sixty-four bytes, which goes the long way round: key", text)
            together.endObject()
            var apart = JSONWriter()
            apart.beginObject()
            apart.key("label")
            apart.string(text)
            apart.key("seconds")
            apart.double(seconds)
            apart.key("created")
            apart.timestamp(time)
            apart.key("uuid")
            apart.id(id)
            apart.key("a key longer than sixty-four bytes, which goes the long way round: key")
            apart.string(text)
            apart.endObject()
            #expect(together.bytes == apart.bytes, "\(Array(text.unicodeScalars)) \(seconds)")
            var uuid = JSONWriter()
            uuid.id(id)
            let bytes =
                withUnsafeBytes(of: id.high.bigEndian) { Array($0) }
                + withUnsafeBytes(of: id.low.bigEndian) { Array($0) }
            let foundation = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            #expect(String(decoding: uuid.bytes, as: UTF8.self) == "\"\(foundation.uuidString.lowercased())\"")
        }
    }

    @Test("strings read back whatever their length and wherever their quote and escapes fall")
    func stringsReadBack() throws {
        var random = SeededRandom(seed: 2812)
        let pieces = [
            "a", "bc", "budget ", "zürich", "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1F}", " ", "\u{7F}", "é", "😀",
            "/", "\u{A0}", "\u{2028}", "12345678",
        ]
        for _ in 0..<20_000 {
            let texts = (0..<Int.random(in: 1..<5, using: &random)).map { _ in
                (0..<Int.random(in: 0..<20, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            }
            // Ours and Foundation's encoding (which escapes / and writes \uXXXX), at every
            // alignment of the quotes.
            var w = JSONWriter()
            w.raw("[")
            w.raw(String(repeating: " ", count: Int.random(in: 0..<8, using: &random)))
            w.strings(texts)
            w.raw(",")
            w.raw(String(decoding: try JSONSerialization.data(withJSONObject: texts), as: UTF8.self))
            w.raw("]")
            let read = try w.bytes.withUnsafeBufferPointer { bytes in
                var r = JSONReader(bytes)
                var strings: [String] = []
                try r.beginArray()
                var first = true
                while try r.nextElement(first: &first) {
                    try r.beginArray()
                    var inner = true
                    while try r.nextElement(first: &inner) { strings.append(try r.readString()) }
                }
                return strings
            }
            #expect(read == texts + texts, "\(texts.map { Array($0.unicodeScalars) })")
        }
        // A control character or a cut-off string is refused wherever it falls.
        for text in ["\"abc\u{1}def\"", "\"abcdefgh\u{1F}\"", "\"\u{0}\"", "\"abcdefghij", "\"abcdefg\tzz\""] {
            let bytes = Array(text.utf8)
            #expect(throws: (any Error).self, "\(text)") {
                try bytes.withUnsafeBufferPointer { bytes in
                    var r = JSONReader(bytes)
                    _ = try r.readString()
                }
            }
        }
    }

    @Test("a snippet of text below U+0300 is cut as character by character, told where the word is or not")
    func snippets() {
        var random = SeededRandom(seed: 7)
        // ASCII, line breaks of every kind, Latin-1 and Latin Extended (folded to more
        // than one byte: ß, Æ, ĳ), and the last scalars before the combining marks.
        let pieces = [
            "budget", "zürich", "Zürich", "ZÜRICH", " ", " ", "\t", "\r\n", "\r", "\n", "\u{0B}", "\u{0C}", "\u{85}",
            "ß", "Æ", "ĳ", "ǅ", "ɐ", "ʃ", "\u{2FF}", "café", "a", "Q3", "\u{AD}", "\u{7F}", "\u{1}", "\u{A0}",
        ]
        let words = ["budget", "zurich", "ss", "ae", "ij", "q3", "a", "nothing", "\r\n"]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0..<60, using: &random)).map { _ in
                pieces.randomElement(using: &random)!
            }.joined()
            let word = words.randomElement(using: &random)!
            let width = [60, 10, 3, 1][Int.random(in: 0..<4, using: &random)]
            let expected = TextFolding.characterSnippet(of: text, around: word, width: width)
            #expect(
                TextFolding.snippet(of: text, around: word, width: width) == expected,
                "\(Array(text.unicodeScalars)) around \(word)")
            // Told where the word is in the folded text, as search is when it found it there.
            let offset = TextFolding.firstOffset(of: Array(word.utf8), in: TextFolding.foldedUTF8(text))
            #expect(
                TextFolding.snippet(of: text, around: word, at: offset, width: width) == expected,
                "\(Array(text.unicodeScalars)) around \(word) at \(offset.map(String.init) ?? "nil")")
        }
        // Any other text goes character by character.
        var decomposed = "Zu\u{308}rich budget"
        #expect(decomposed.withUTF8 { TextFolding.simpleSnippet(of: $0, around: "budget", width: 60) } == nil)
        // Also after ASCII read eight bytes at a time, and at the very end.
        for text in ["budget for the team in Zu\u{308}rich", "sixteen bytes!!!e\u{301}", "seventeen bytes!!\u{300}"] {
            var text = text
            #expect(text.withUTF8 { TextFolding.simpleSnippet(of: $0, around: "budget", width: 60) } == nil, "\(text)")
        }
    }
}

extension Array where Element == UInt8 {
    /// With ASCII zeros before it up to `count` bytes.
    fileprivate func padded(to count: Int) -> [UInt8] {
        Array(repeating: 0x30, count: Swift.max(0, count - self.count)) + self
    }
}

/// A pull parser over UTF-8 bytes. The stores decode straight from it into their model
/// values, without building an intermediate tree: that, and not allocating a String for
/// every key, is what lets a 100,000-item store load faster than `jq` can read it.
///
/// It accepts any valid JSON (RFC 8259), in any key order and formatting, so a store edited
/// by hand or rewritten by `jq` still loads; unknown keys are skipped.
package struct JSONReader {
    package struct Failure: Error, Equatable {
        package var message: String
        package var line: Int
        package var column: Int
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    package private(set) var position = 0
    /// Guards the recursion in `skipValue` against a deeply nested (hostile) document.
    private let maxDepth = 256

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    /// Moves on to `offset`, past a value the caller found the end of by other means (the
    /// merge driver skips an item a line at a time); nothing between is checked.
    package mutating func skip(to offset: Int) {
        precondition(offset >= position && offset <= bytes.count)
        position = offset
    }

    // MARK: Errors

    package func failure(_ message: String, at offset: Int? = nil) -> Failure {
        var end = min(offset ?? position, bytes.count)
        // Point at the value itself, not at the whitespace before it.
        while end < bytes.count, bytes[end] == 0x20 || bytes[end] == 0x0A || bytes[end] == 0x0D || bytes[end] == 0x09 {
            end += 1
        }
        var line = 1
        var lineStart = 0
        for i in 0..<end where bytes[i] == 10 {
            line += 1
            lineStart = i + 1
        }
        return Failure(message: message, line: line, column: end - lineStart + 1)
    }

    private func describeNext() -> String {
        guard position < bytes.count else { return "end of file" }
        let b = bytes[position]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    // MARK: Structure

    @inline(__always)
    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    @inline(__always)
    package mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    package mutating func expect(_ byte: UInt8, _ what: String) throws {
        guard peek() == byte else { throw failure("expected \(what), found \(describeNext())") }
        position += 1
    }

    package mutating func beginObject() throws { try expect(UInt8(ascii: "{"), "'{'") }
    package mutating func beginArray() throws { try expect(UInt8(ascii: "["), "'['") }

    /// The next key of an object, or nil at its closing brace. `first` tells whether a
    /// comma is due.
    package mutating func nextKey(first: inout Bool) throws -> UnsafeBufferPointer<UInt8>? {
        guard let next = peek() else { throw failure("unexpected end of file inside an object") }
        if next == UInt8(ascii: "}") {
            position += 1
            return nil
        }
        if !first {
            guard next == UInt8(ascii: ",") else { throw failure("expected ',' or '}', found \(describeNext())") }
            position += 1
        }
        first = false
        let key = try readRawString()
        try expect(UInt8(ascii: ":"), "':'")
        return key
    }

    /// True while the array has another element; consumes the comma or closing bracket.
    package mutating func nextElement(first: inout Bool) throws -> Bool {
        guard let next = peek() else { throw failure("unexpected end of file inside an array") }
        if next == UInt8(ascii: "]") {
            position += 1
            return false
        }
        if !first {
            guard next == UInt8(ascii: ",") else { throw failure("expected ',' or ']', found \(describeNext())") }
            position += 1
        }
        first = false
        return true
    }

    package mutating func finish() throws {
        skipWhitespace()
        guard position == bytes.count else {
            throw failure("unexpected \(describeNext()) after the end of the document")
        }
    }

    // MARK: Scalars

    package mutating func readNull() -> Bool {
        guard peek() == UInt8(ascii: "n"), position + 4 <= bytes.count,
            bytes[position + 1] == UInt8(ascii: "u"), bytes[position + 2] == UInt8(ascii: "l"),
            bytes[position + 3] == UInt8(ascii: "l")
        else { return false }
        position += 4
        return true
    }

    package mutating func readBool() throws -> Bool {
        if matchLiteral("true") { return true }
        if matchLiteral("false") { return false }
        throw failure("expected true or false, found \(describeNext())")
    }

    private mutating func matchLiteral(_ word: StaticString) -> Bool {
        _ = peek()
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] { return false }
        position += count
        return true
    }

    /// A string without escapes is returned as a view into the input; one with escapes is
    /// decoded into `scratch`. Either way the bytes are checked to be valid UTF-8.
    private var scratch: [UInt8] = []

    package mutating func readRawString() throws -> UnsafeBufferPointer<UInt8> {
        guard peek() == UInt8(ascii: "\"") else { throw failure("expected a string, found \(describeNext())") }
        let start = position + 1
        var i = start
        var highBits: UInt64 = 0
        while i < bytes.count {
            // Eight bytes at a time while none of them ends the string or needs a look:
            // notes make most of a store's bytes.
            while i + 8 <= bytes.count {
                let chunk = UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self)
                let look = Self.needsLook(chunk)
                if look != 0 {
                    // Straight to the first byte that needs a look (the lowest one flagged is
                    // exact), not byte by byte from the chunk's start testing a chunk at
                    // each: most strings are keys and short values, ended within their first
                    // chunk (a seventh of find --json's decoding went there).
                    let k = look.trailingZeroBitCount / 8
                    highBits |= chunk & ((1 << UInt64(8 * k)) &- 1)
                    i += k
                    break
                }
                highBits |= chunk
                i += 8
            }
            guard i < bytes.count else { break }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                position = i + 1
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<i])
                if highBits & Self.highBitOfEachByte != 0, !isValidUTF8(raw) {
                    throw failure("invalid UTF-8 in a string", at: start)
                }
                return raw
            }
            if b == UInt8(ascii: "\\") { return try readEscapedString(from: start) }
            if b < 0x20 { throw failure("control character in a string", at: i) }
            highBits |= UInt64(b) << 56
            i += 1
        }
        throw failure("unterminated string", at: start - 1)
    }

    private static let highBitOfEachByte: UInt64 = 0x8080_8080_8080_8080
    private static let oneInEachByte: UInt64 = 0x0101_0101_0101_0101

    /// The high bit of each of the eight bytes (little-endian) that may be a quote, a
    /// backslash or a control character, 0 when none is (the classic "has a zero byte" /
    /// "has a byte less than n" bit tricks: exact about whether there is one, and about the
    /// lowest one flagged, which a borrow cannot reach; bytes above it may be flagged
    /// wrongly).
    @inline(__always)
    static func needsLook(_ chunk: UInt64) -> UInt64 {
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { (x &- oneInEachByte) & ~x & highBitOfEachByte }
        let lessThanSpace = (chunk &- 0x20 &* oneInEachByte) & ~chunk & highBitOfEachByte
        return lessThanSpace | zeroBytes(chunk ^ (0x22 &* oneInEachByte)) | zeroBytes(chunk ^ (0x5C &* oneInEachByte))
    }

    private mutating func readEscapedString(from start: Int) throws -> UnsafeBufferPointer<UInt8> {
        scratch.removeAll(keepingCapacity: true)
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "\""):
                position = i + 1
                guard isValidUTF8(scratch) else { throw failure("invalid UTF-8 in a string", at: start) }
                return scratch.withUnsafeBufferPointer { $0 }
            case UInt8(ascii: "\\"):
                i += 1
                guard i < bytes.count else { break }
                switch bytes[i] {
                case UInt8(ascii: "\""): scratch.append(0x22)
                case UInt8(ascii: "\\"): scratch.append(0x5C)
                case UInt8(ascii: "/"): scratch.append(0x2F)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4(at: i + 1)
                    i += 4
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "\\"), bytes[i + 2] == UInt8(ascii: "u")
                        else { throw failure("unpaired surrogate in a string", at: i) }
                        let low = try hex4(at: i + 3)
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw failure("unpaired surrogate in a string", at: i)
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw failure("unpaired surrogate in a string", at: i)
                    }
                    guard let s = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape", at: i) }
                    scratch.append(contentsOf: String(Character(s)).utf8)
                default:
                    throw failure("invalid escape in a string", at: i)
                }
            default:
                if b < 0x20 { throw failure("control character in a string", at: i) }
                scratch.append(b)
            }
            i += 1
        }
        throw failure("unterminated string", at: start - 1)
    }

    private func hex4(at offset: Int) throws -> UInt32 {
        guard offset + 4 <= bytes.count else { throw failure("truncated \\u escape", at: offset) }
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let nibble = hexValue(bytes[offset + k]) else { throw failure("invalid \\u escape", at: offset) }
            value = value << 4 | UInt32(nibble)
        }
        return value
    }

    package mutating func readString() throws -> String {
        let raw = try readRawString()
        return String(decoding: raw, as: UTF8.self)
    }

    /// The exact bytes of a number token, validated against JSON's grammar.
    private mutating func numberToken() throws -> UnsafeBufferPointer<UInt8> {
        _ = peek()
        let start = position
        var i = position
        func isDigit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 48 && bytes[at] <= 57 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { throw failure("expected a number, found \(describeNext())") }
        if bytes[i] == 48 { i += 1 } else { while isDigit(i) { i += 1 } }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { throw failure("malformed number", at: start) }
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { throw failure("malformed number", at: start) }
            while isDigit(i) { i += 1 }
        }
        position = i
        return UnsafeBufferPointer(rebasing: bytes[start..<i])
    }

    package mutating func readInt() throws -> Int64 {
        let start = position
        let token = try numberToken()
        var value: Int64 = 0
        var negative = false
        for (k, b) in token.enumerated() {
            if k == 0 && b == UInt8(ascii: "-") {
                negative = true
                continue
            }
            guard b >= 48 && b <= 57 else { throw failure("expected a whole number", at: start) }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(b - 48))
            guard !o1 && !o2 else { throw failure("number out of range", at: start) }
            value = s
        }
        return negative ? -value : value
    }

    package mutating func readDouble() throws -> Double {
        let start = position
        let token = try numberToken()
        guard let value = Double(String(decoding: token, as: UTF8.self)), value.isFinite else {
            throw failure("number out of range", at: start)
        }
        return value
    }

    /// Skips any value, nested no deeper than `maxDepth`.
    package mutating func skipValue(depth: Int = 0) throws {
        guard depth < maxDepth else { throw failure("nested too deeply") }
        guard let next = peek() else { throw failure("unexpected end of file") }
        switch next {
        case UInt8(ascii: "{"):
            position += 1
            var first = true
            while try nextKey(first: &first) != nil { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            position += 1
            var first = true
            while try nextElement(first: &first) { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""):
            _ = try readRawString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try readBool()
        case UInt8(ascii: "n"):
            guard readNull() else { throw failure("unexpected \(describeNext())") }
        default:
            _ = try numberToken()
        }
    }
}

/// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. ASCII, most of
/// any text here, costs one comparison a byte.
private func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    let n = bytes.count
    @inline(__always) func isContinuation(_ at: Int) -> Bool { at < n && bytes[at] & 0xC0 == 0x80 }
    while i < n {
        let lead = bytes[i]
        if lead < 0x80 {
            i += 1
            continue
        }
        switch lead {
        case 0xC2...0xDF:
            guard isContinuation(i + 1) else { return false }
            i += 2
        case 0xE0...0xEF:
            guard isContinuation(i + 1), isContinuation(i + 2) else { return false }
            let second = bytes[i + 1]
            if lead == 0xE0 && second < 0xA0 { return false }  // overlong
            if lead == 0xED && second >= 0xA0 { return false }  // a surrogate
            i += 3
        case 0xF0...0xF4:
            guard isContinuation(i + 1), isContinuation(i + 2), isContinuation(i + 3) else { return false }
            let second = bytes[i + 1]
            if lead == 0xF0 && second < 0x90 { return false }  // overlong
            if lead == 0xF4 && second >= 0x90 { return false }  // past U+10FFFF
            i += 4
        default:
            return false
        }
    }
    return true
}

private func isValidUTF8(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBufferPointer { isValidUTF8($0) }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Compares against an ASCII key without allocating. Inlinable: the store codecs call it
    /// for every key of every item, from another module.
    @inlinable
    package func equals(_ key: StaticString) -> Bool {
        guard count == key.utf8CodeUnitCount else { return false }
        return memcmp(baseAddress!, key.utf8Start, count) == 0
    }
}

#if canImport(Glibc)
    import Glibc
#endif

@inline(__always)
package func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte &- UInt8(ascii: "a") &+ 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte &- UInt8(ascii: "A") &+ 10
    default: return nil
    }
}

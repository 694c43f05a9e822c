/// Builds JSON text straight into a byte buffer. Paired with `JSONReader`, it replaces
/// Codable for the stores, whose layout is fixed and documented.
package struct JSONWriter {
    package var bytes: [UInt8] = []
    /// Where a long output goes as it is made (standard output): `boundary` hands it what is
    /// written so far once that is large, so that megabytes are never held whole. nil keeps
    /// everything in `bytes`.
    package var drain: (([UInt8]) -> Void)?
    /// Whether the next `key` follows a value of the same object (so needs a comma).
    private var afterValue = false

    package init(capacity: Int = 4096, drain: (([UInt8]) -> Void)? = nil) {
        bytes.reserveCapacity(capacity)
        self.drain = drain
    }

    /// Between two elements of a long list: with a `drain`, what is written so far goes to
    /// it once it passes 64 KB.
    @inline(__always)
    package mutating func boundary() {
        if bytes.count >= 1 << 16, drain != nil { flush() }
    }

    /// Hands everything written so far to the `drain` (if any).
    package mutating func flush() {
        guard let drain, !bytes.isEmpty else { return }
        drain(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Up to `putLimit` bytes written by `body` at a pointer, which returns how many it
    /// wrote, then appended with one `append(contentsOf:)`: a key and its value
    /// in one call, one uniqueness check and one copy, not one of each per piece (the
    /// appends were a large part of `find --json`'s work). On the stack, not in `bytes`:
    /// an Array offers no pointer to its spare capacity.
    @inline(__always)
    package mutating func put(_ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.putLimit) { buffer in
            let n = body(buffer.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress!, count: n))
        }
    }

    /// What `put` can take at once: a key of up to `keyLimit` bytes with a number, a
    /// timestamp or a UUID, or a short string.
    package static let putLimit = 256
    static let keyLimit = 64

    /// `, "name": ` (the comma when `comma`) at `out`; its length.
    @inline(__always)
    package static func writeKey(_ name: StaticString, comma: Bool, at out: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        if comma {
            out[0] = UInt8(ascii: ",")
            out[1] = UInt8(ascii: " ")
            n = 2
        }
        out[n] = UInt8(ascii: "\"")
        n += 1
        (out + n).update(from: name.utf8Start, count: name.utf8CodeUnitCount)
        n += name.utf8CodeUnitCount
        out[n] = UInt8(ascii: "\"")
        out[n + 1] = UInt8(ascii: ":")
        out[n + 2] = UInt8(ascii: " ")
        return n + 3
    }

    /// The key's bytes and a value's (`value` writes them at a pointer, at most `max`, and
    /// returns how many) in one `put`; false, nothing written, when they might not fit.
    @inline(__always)
    package mutating func keyed(
        _ name: StaticString, max: Int, _ value: (UnsafeMutablePointer<UInt8>) -> Int
    ) -> Bool {
        guard name.utf8CodeUnitCount <= Self.keyLimit, max <= Self.putLimit - Self.keyLimit - 5 else { return false }
        let comma = afterValue
        afterValue = true
        put { out in
            let n = Self.writeKey(name, comma: comma, at: out)
            return n + value(out + n)
        }
        return true
    }

    @inline(__always)
    package mutating func raw(_ text: StaticString) {
        // The lists' punctuation (`[`, `, `, `,\n  `) a byte at a time: a one-byte append
        // costs a fifth of a call to copy a run (80,000 of them in find --json).
        if text.utf8CodeUnitCount <= 4 {
            for i in 0..<text.utf8CodeUnitCount { bytes.append(text.utf8Start[i]) }
            return
        }
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Disfavoured, so that a literal is a `StaticString` (above: one copy of bytes the
    /// binary holds) rather than a String appended through its UTF-8 view, which the
    /// literals of every `--json` list took (2% of `find --json`).
    @_disfavoredOverload
    package mutating func raw(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `[e, e, ...]`, each element written by `element`.
    package mutating func array<T>(_ values: [T], _ element: (inout JSONWriter, T) -> Void) {
        raw("[")
        for i in values.indices {
            if i > 0 { raw(", ") }
            element(&self, values[i])
        }
        raw("]")
    }

    /// One element a line, two spaces in, as the `--json` lists print them:
    /// `[\n  e,\n  e\n]`, and `[]` when there are none.
    package mutating func lines<T>(_ values: [T], _ element: (inout JSONWriter, T) -> Void) {
        raw("[")
        for i in values.indices {
            if i > 0 { raw(",\n  ") } else { raw("\n  ") }
            element(&self, values[i])
        }
        if values.isEmpty { raw("]") } else { raw("\n]") }
    }

    /// `["a", "b"]`. A loop of its own, not `array`: a generic call from another module runs
    /// unspecialised, through metadata and witness tables (every item of a `--json` list
    /// has its tags).
    package mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for i in values.indices {
            if i > 0 { raw(", ") }
            string(values[i])
        }
        bytes.append(UInt8(ascii: "]"))
    }

    package mutating func string(_ value: String) {
        var value = value
        let done = value.withUTF8 { utf8 in
            Self.isShortPlain(utf8)
                && {
                    put { Self.writeQuoted(utf8, at: $0) }
                    return true
                }()
        }
        guard !done else { return }
        bytes.append(UInt8(ascii: "\""))
        appendEscaped(value)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether `utf8` is written as it is, and short enough to go with a key in one `put`.
    @inline(__always)
    static func isShortPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        utf8.count <= 128 && nextEscape(in: utf8, from: 0) == utf8.count
    }

    /// `"utf8"` at `out`, nothing escaped (`isShortPlain`); its length.
    @inline(__always)
    static func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>, at out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: "\"")
        if let base = utf8.baseAddress { (out + 1).update(from: base, count: utf8.count) }
        out[utf8.count + 1] = UInt8(ascii: "\"")
        return utf8.count + 2
    }

    /// One string made of two, `first` then `second`, without making the joined String
    /// (an item's audioPath: its folder's path and its file's name).
    package mutating func string(_ first: String, _ second: String) {
        var first = first
        var second = second
        let done = first.withUTF8 { a in
            second.withUTF8 { b in
                Self.isShortPlain(a) && Self.isShortPlain(b) && a.count + b.count <= 200
                    && {
                        put { out in
                            out[0] = UInt8(ascii: "\"")
                            if let base = a.baseAddress { (out + 1).update(from: base, count: a.count) }
                            if let base = b.baseAddress { (out + 1 + a.count).update(from: base, count: b.count) }
                            out[1 + a.count + b.count] = UInt8(ascii: "\"")
                            return a.count + b.count + 2
                        }
                        return true
                    }()
            }
        }
        guard !done else { return }
        bytes.append(UInt8(ascii: "\""))
        appendEscaped(first)
        appendEscaped(second)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `value`'s UTF-8 with what JSON escapes escaped, without quotes.
    private mutating func appendEscaped(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            while case let i = Self.nextEscape(in: utf8, from: runStart), i < utf8.count {
                let b = utf8[i]
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                switch b {
                case 0x22: raw("\\\"")
                case 0x5C: raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                default:
                    raw("\\u00")
                    bytes.append(hexDigit(b >> 4))
                    bytes.append(hexDigit(b & 0xF))
                }
                runStart = i + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
    }

    /// Where the first byte from `start` that a JSON string escapes (below 0x20, a quote, a
    /// backslash) is, or the end: eight bytes at a time while there is none (text is mostly
    /// long runs without), each test exact about whether a word holds one.
    @inline(__always)
    static func nextEscape(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        if let base = utf8.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let high: UInt64 = 0x8080_8080_8080_8080
            while i + 8 <= utf8.count {
                let word = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                // A byte below n (n <= 0x80) sets its high bit in (w - n*ones) & ~w; a zero
                // byte (of quote, backslash) is one below 1.
                let found =
                    ((word &- ones &* 0x20) & ~word) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                if found & high != 0 { break }
                i += 8
            }
        }
        while i < utf8.count {
            let b = utf8[i]
            if b < 0x20 || b == 0x22 || b == 0x5C { return i }
            i += 1
        }
        return utf8.count
    }

    package mutating func timestamp(_ value: Timestamp) {
        put { Self.writeTimestamp(value, at: $0) }
    }

    /// `"YYYY-MM-DDTHH:MM:SS.mmmZ"` at `out`: 26 bytes.
    @inline(__always)
    static func writeTimestamp(_ value: Timestamp, at out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: "\"")
        value.writeISO8601(into: out + 1)
        out[25] = UInt8(ascii: "\"")
        return 26
    }

    /// Any integer, through `int(Int64)`. Callers in other modules reach this generic
    /// version unspecialised, converting through witness tables (a large part of
    /// `find --json`'s writing), hence the concrete Int and Int64
    /// overloads, which overload resolution prefers.
    package mutating func int(_ value: some BinaryInteger) {
        int(Int64(value))
    }

    package mutating func int(_ value: Int) {
        int(Int64(value))
    }

    package mutating func int(_ value: Int64) {
        put { Self.writeInt(value, at: $0) }
    }

    /// `value`'s decimal digits (and sign) at `out`: at most 20 bytes; their count.
    @inline(__always)
    static func writeInt(_ value: Int64, at out: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            n = 1
        }
        // The magnitude as unsigned: Int64.min has none as an Int64.
        var v = value.magnitude
        var digits = 1
        var power: UInt64 = 10
        while digits < 20, v >= power {
            digits += 1
            power = power &* 10
        }
        var k = n + digits
        repeat {
            k -= 1
            out[k] = UInt8(48 + v % 10)
            v /= 10
        } while v > 0
        return n + digits
    }

    /// Shortest text that reads back as the same Double; JSON has no infinities.
    package mutating func double(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        guard Self.isShort(value) else { return raw(value.description) }
        put { Self.writeShort(value, at: $0) }
    }

    /// Whether `writeShort` writes `value`: a whole number below 1e15, or the Double nearest
    /// some k / 1000 between 0.001 and 1e9 (times rounded to the millisecond, most of what
    /// is written). Between those bounds the Doubles lie far closer together than 0.001, so
    /// no other decimal of as few digits reads back as the same value, and `description`,
    /// which gives the shortest, gives these digits.
    @inline(__always)
    static func isShort(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        if value == value.rounded(), abs(value) < 1e15 { return true }
        let magnitude = abs(value)
        guard magnitude >= 0.001, magnitude < 1e9 else { return false }
        return (magnitude * 1000).rounded() / 1000 == magnitude
    }

    /// An `isShort` value's digits at `out`, without making a String: at most 20 bytes.
    @inline(__always)
    static func writeShort(_ value: Double, at out: UnsafeMutablePointer<UInt8>) -> Int {
        if value == value.rounded() { return writeInt(Int64(value), at: out) }
        let k = Int64((abs(value) * 1000).rounded())
        var n = 0
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            n = 1
        }
        n += writeInt(k / 1000, at: out + n)
        var fraction = k % 1000
        out[n] = UInt8(ascii: ".")
        n += 1
        var divisor: Int64 = 100
        repeat {
            out[n] = UInt8(48 + fraction / divisor)
            n += 1
            fraction %= divisor
            divisor /= 10
        } while fraction > 0
        return n
    }

    package mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    // MARK: Keyed objects
    //
    // One call per key and value, in place of hand-written `", \"key\": "` fragments:
    // `beginObject()`, then `field("name", value)` or `key("name")` and any value (a nested
    // object, an array, a value written by a codec), then `endObject()`. The comma before a key
    // is the writer's business. Output is byte for byte what the fragments wrote:
    // `{"a": 1, "b": {"c": "x"}}`.

    /// `{`; the next key is the object's first. (One-byte appends here and in `key` and
    /// `endObject`: they cost less than copying a one-byte string, and store.json calls these
    /// a million times at 100k items.)
    package mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        afterValue = false
    }

    /// `}`; what follows, in the enclosing object, is after a value.
    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        afterValue = true
    }

    /// `"name": `, after a comma unless it is the first key of its object. The value is
    /// written next, by any call.
    @inline(__always)
    package mutating func key(_ name: StaticString) {
        let comma = afterValue
        if name.utf8CodeUnitCount <= Self.keyLimit {
            afterValue = true
            return put { Self.writeKey(name, comma: comma, at: $0) }
        }
        if afterValue {
            bytes.append(UInt8(ascii: ","))
            bytes.append(UInt8(ascii: " "))
        }
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        afterValue = true
    }

    /// The keys that follow continue an object whose opening and first fields were written
    /// otherwise (as text, or bytes copied): the next key gets its comma.
    package mutating func continueObject() {
        afterValue = true
    }

    /// `"name": ` on a line of its own, two spaces in (or, not `indented`, at the margin, as
    /// store.json's top keys are), for an object laid out one key a line (viewstate.json):
    /// `beginObject()`, `lineKey`s, then `endLineObject()`. Its values are written on their
    /// key's line as usual.
    package mutating func lineKey(_ name: StaticString, indented: Bool = true) {
        let opening: StaticString =
            switch (afterValue, indented) {
            case (true, true): ",\n  \""
            case (false, true): "\n  \""
            case (true, false): ",\n\""
            case (false, false): "\n\""
            }
        raw(opening)
        raw(name)
        raw("\": ")
        afterValue = true
    }

    /// The `}` of an object of `lineKey`s, on a line of its own.
    package mutating func endLineObject() {
        raw("\n}")
        afterValue = true
    }

    package mutating func field(_ name: StaticString, _ value: String) {
        var value = value
        let done = value.withUTF8 { utf8 in
            Self.isShortPlain(utf8) && keyed(name, max: utf8.count + 2) { Self.writeQuoted(utf8, at: $0) }
        }
        guard !done else { return }
        key(name)
        string(value)
    }

    package mutating func field(_ name: StaticString, _ value: some BinaryInteger) {
        key(name)
        int(value)
    }

    /// Concrete, as `int(Int)` and `int(Int64)` are.
    package mutating func field(_ name: StaticString, _ value: Int) {
        field(name, Int64(value))
    }

    package mutating func field(_ name: StaticString, _ value: Int64) {
        guard !keyed(name, max: 20, { Self.writeInt(value, at: $0) }) else { return }
        key(name)
        int(value)
    }

    package mutating func field(_ name: StaticString, _ value: Double) {
        guard !Self.isShort(value) || !keyed(name, max: 20, { Self.writeShort(value, at: $0) }) else { return }
        key(name)
        double(value)
    }

    package mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    package mutating func field(_ name: StaticString, _ value: Timestamp) {
        guard !keyed(name, max: 26, { Self.writeTimestamp(value, at: $0) }) else { return }
        key(name)
        timestamp(value)
    }

    /// The key only when there is a value: absent, not null.
    package mutating func field(_ name: StaticString, ifPresent value: String?) {
        if let value { field(name, value) }
    }

    package mutating func field(_ name: StaticString, ifPresent value: Timestamp?) {
        if let value { field(name, value) }
    }

    /// `"name": [...]`, each element written by `element`.
    package mutating func field<T>(_ name: StaticString, _ values: [T], _ element: (inout JSONWriter, T) -> Void) {
        key(name)
        array(values, element)
    }

    /// `"name": ["a", "b"]`.
    package mutating func field(_ name: StaticString, _ values: [String]) {
        key(name)
        strings(values)
    }

    /// `"name": value`, or `"name": null` when there is none.
    package mutating func field(_ name: StaticString, orNull value: Double?) {
        key(name)
        if let value { double(value) } else { raw("null") }
    }
}

@inline(__always)
private func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 48 + nibble : 87 + nibble
}

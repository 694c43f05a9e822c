/// How names sort, as file managers sort them: numbers by their value (`note 2` before
/// `note 10`), letters ignoring case and accents (`apple` before `Work`, `Ünïcode` among the
/// u's), folded as `find` folds text (`TextFolding`). Names equal that way (`Eclair`,
/// `eclair`, `éclair`; `take 02`, `take 2`) follow by code point, which keeps the order total
/// and puts items of the very same name next to each other.
package enum NameOrder {
    /// Whether `a` sorts before `b`, with no tie-break: nil when they sort the same.
    @inline(__always)
    package static func precedes(_ a: String, _ b: String) -> Bool? {
        var a = a
        var b = b
        let order =
            a.withUTF8 { x in
                b.withUTF8 { y in isASCII(x) && isASCII(y) ? compare(x, y) : nil }
            } ?? compareFolded(a, b)
        return order == 0 ? nil : order < 0
    }

    /// Non-ASCII names, folded first. Canonically equivalent names (precomposed or not)
    /// fold the same only from the same normal form: NFC first.
    private static func compareFolded(_ a: String, _ b: String) -> Int {
        let x = TextFolding.foldedUTF8(String(decoding: a._nfcCodeUnits, as: UTF8.self))
        let y = TextFolding.foldedUTF8(String(decoding: b._nfcCodeUnits, as: UTF8.self))
        return x.withUnsafeBufferPointer { x in y.withUnsafeBufferPointer { y in compare(x, y) } }
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }

    /// -1, 0 or 1: byte by byte with ASCII letters in lower case, except that where both
    /// hold a run of digits, the runs compare by value (leading zeros aside, then by length,
    /// then digit by digit, so no run is too long).
    private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        @inline(__always) func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }
        @inline(__always) func lower(_ c: UInt8) -> UInt8 { c &- 0x41 < 26 ? c | 0x20 : c }
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                while i < a.count - 1 && a[i] == 0x30 && isDigit(a[i + 1]) { i += 1 }
                while j < b.count - 1 && b[j] == 0x30 && isDigit(b[j + 1]) { j += 1 }
                var endA = i
                var endB = j
                while endA < a.count && isDigit(a[endA]) { endA += 1 }
                while endB < b.count && isDigit(b[endB]) { endB += 1 }
                if endA - i != endB - j { return endA - i < endB - j ? -1 : 1 }
                while i < endA {
                    if a[i] != b[j] { return a[i] < b[j] ? -1 : 1 }
                    i += 1
                    j += 1
                }
                continue
            }
            let x = lower(a[i])
            let y = lower(b[j])
            if x != y { return x < y ? -1 : 1 }
            i += 1
            j += 1
        }
        let restA = a.count - i
        let restB = b.count - j
        return restA == restB ? 0 : restA < restB ? -1 : 1
    }
}

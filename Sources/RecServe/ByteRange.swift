/// One HTTP `Range: bytes=…` against a file of `size` bytes (RFC 9110, section 14).
package enum ByteRange: Equatable, Sendable {
    /// No range asked, or one this server answers whole (several ranges, another unit, a
    /// malformed header): 200 with the whole file, which RFC 9110 allows.
    case whole
    /// 206 with these bytes, both ends included.
    case part(ClosedRange<Int64>)
    /// 416: no byte of the file is in the range.
    case unsatisfiable

    package init(header: String?, size: Int64) {
        guard let header, header.hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).filter { $0 != " " && $0 != "\t" }
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        func number(_ digits: Substring) -> Int64? {
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int64(digits) ?? .max  // more digits than Int64: past any file's end
        }
        if first.isEmpty {
            // The last N bytes.
            guard let count = number(last) else {
                self = .whole
                return
            }
            self = count == 0 || size == 0 ? .unsatisfiable : .part(max(0, size - count)...(size - 1))
            return
        }
        guard let start = number(first) else {
            self = .whole
            return
        }
        var end = size - 1
        if !last.isEmpty {
            guard let given = number(last), given >= start else {
                self = .whole
                return
            }
            end = min(given, size - 1)
        }
        self = start >= size ? .unsatisfiable : .part(start...end)
    }
}

/// Builds JSON text straight into a byte buffer. Paired with `JSONReader`, it replaces
/// Codable for the stores, whose layout is fixed and documented.
struct JSONWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    @inline(__always)
    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// `[e, e, ...]`, each element written by `element`.
    mutating func array<T>(_ values: [T], _ element: (inout JSONWriter, T) -> Void) {
        raw("[")
        for (i, value) in values.enumerated() {
            if i > 0 { raw(", ") }
            element(&self, value)
        }
        raw("]")
    }

    /// `["a", "b"]`.
    mutating func strings(_ values: [String]) {
        array(values) { $0.string($1) }
    }

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for (i, b) in utf8.enumerated() where b < 0x20 || b == 0x22 || b == 0x5C {
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
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func id(_ value: ItemID) {
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 36))
        bytes.withUnsafeMutableBufferPointer { value.writeUTF8(into: $0.baseAddress! + start) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `[id, id, ...]`
    mutating func ids(_ values: [ItemID]) {
        array(values) { $0.id($1) }
    }

    /// The recording fields shared by `store.json` and `--json` output, each preceded by a comma.
    mutating func recordingFields(_ info: RecordingInfo) {
        raw(", \"duration\": ")
        double(info.duration)
        raw(", \"frames\": ")
        int(info.frames)
        raw(", \"sampleRate\": ")
        int(info.sampleRate)
        raw(", \"channels\": ")
        int(info.channels)
        raw(", \"format\": ")
        string(info.format.rawValue)
        raw(", \"file\": ")
        string(info.file)
    }

    mutating func optionalID(_ value: ItemID?) {
        if let value { id(value) } else { raw("null") }
    }

    mutating func timestamp(_ value: Timestamp) {
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 24))
        bytes.withUnsafeMutableBufferPointer { value.writeISO8601(into: $0.baseAddress! + start) }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func int(_ value: some BinaryInteger) {
        var v = Int64(value)
        if v < 0 {
            guard v != .min else { return raw(String(v)) }
            bytes.append(UInt8(ascii: "-"))
            v = -v
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var i = buffer.count
            repeat {
                i -= 1
                buffer[i] = UInt8(48 + v % 10)
                v /= 10
            } while v > 0
            bytes.append(contentsOf: buffer[i...])
        }
    }

    /// Shortest text that reads back as the same Double; JSON has no infinities.
    mutating func double(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        if value == value.rounded(), abs(value) < 1e15 {
            int(Int64(value))
        } else {
            raw(value.description)
        }
    }

    mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }
}

@inline(__always)
private func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 48 + nibble : 87 + nibble
}

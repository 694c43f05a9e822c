import RecValues

/// What only the store's values need from the JSON writer.
extension JSONWriter {
    package mutating func id(_ value: ItemID) {
        put { Self.writeID(value, at: $0) }
    }

    /// `"uuid"` at `out`: 38 bytes.
    @inline(__always)
    static func writeID(_ value: ItemID, at out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: "\"")
        value.writeUTF8(into: out + 1)
        out[37] = UInt8(ascii: "\"")
        return 38
    }

    package mutating func field(_ name: StaticString, _ value: ItemID) {
        guard !keyed(name, max: 38, { Self.writeID(value, at: $0) }) else { return }
        key(name)
        id(value)
    }

    /// `[id, id, ...]`
    mutating func ids(_ values: [ItemID]) {
        array(values) { $0.id($1) }
    }

    package mutating func optionalID(_ value: ItemID?) {
        if let value { id(value) } else { raw("null") }
    }
}

/// What only the store's values need from the JSON writer.
extension JSONWriter {
    package mutating func id(_ value: ItemID) {
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 36))
        bytes.withUnsafeMutableBufferPointer { value.writeUTF8(into: $0.baseAddress! + start) }
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func field(_ name: StaticString, _ value: ItemID) {
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

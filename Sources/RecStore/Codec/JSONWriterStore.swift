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

    /// The recording fields shared by `store.json` and `--json` output; they always follow
    /// an item's first fields, so each gets its comma, whoever opened the object.
    package mutating func recordingFields(_ info: RecordingInfo) {
        continueObject()
        field("duration", info.duration)
        field("frames", info.frames)
        field("sampleRate", info.sampleRate)
        field("channels", info.channels)
        field("format", info.format.rawValue)
        field("file", info.file)
    }

    package mutating func optionalID(_ value: ItemID?) {
        if let value { id(value) } else { raw("null") }
    }
}

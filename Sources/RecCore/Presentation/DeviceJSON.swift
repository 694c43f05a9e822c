import RecAudio
import RecStore
import RecValues

/// `devices --json`: an array of objects with the keys name, description, capture, playback
/// and default (the one used when no device is named).
package enum DeviceJSON {
    package static func array(_ devices: [AudioDevice], defaultName: String = "default") -> String {
        var w = JSONWriter()
        w.lines(devices) { w, device in
            w.beginObject()
            w.field("name", device.name)
            w.field("description", device.description)
            w.field("capture", device.capture)
            w.field("playback", device.playback)
            w.field("default", device.name == defaultName)
            w.endObject()
        }
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

/// The NDJSON line `import --progress json` writes once a file's recording is in the store.
package enum ImportEventJSON {
    package static func imported(_ item: Item, in library: Library) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("event", "imported")
        w.key("item")
        ItemJSON.write(item, in: library, to: &w)
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

/// `devices --json`: an array of objects with the keys name, description, capture, playback
/// and default (the one used when no device is named).
public enum DeviceJSON {
    public static func array(_ devices: [AudioDevice], defaultName: String = "default") -> String {
        var w = JSONWriter()
        w.raw("[")
        for (i, device) in devices.enumerated() {
            w.raw(i == 0 ? "\n  " : ",\n  ")
            w.raw("{\"name\": ")
            w.string(device.name)
            w.raw(", \"description\": ")
            w.string(device.description)
            w.raw(", \"capture\": ")
            w.bool(device.capture)
            w.raw(", \"playback\": ")
            w.bool(device.playback)
            w.raw(", \"default\": ")
            w.bool(device.name == defaultName)
            w.raw("}")
        }
        w.raw(devices.isEmpty ? "]" : "\n]")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

/// The NDJSON line `import --progress json` writes once a file's recording is in the store.
public enum ImportEventJSON {
    public static func imported(_ item: Item, in library: Library) -> String {
        var w = JSONWriter()
        w.raw("{\"event\": \"imported\", \"item\": ")
        ItemJSON.write(item, in: library, to: &w)
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

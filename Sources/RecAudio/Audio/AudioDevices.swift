import CAudio

#if canImport(Glibc)
    import Glibc
#endif

/// One ALSA PCM as `snd_device_name_hint` describes it.
public struct AudioDevice: Equatable, Sendable {
    /// What `--device` takes: `default`, `hw:CARD=PCH,DEV=0`, a name from `.asoundrc`.
    public var name: String
    /// The hint's DESC, lines joined with " — "; empty when there is none.
    public var description: String
    public var capture: Bool
    public var playback: Bool

    public init(name: String, description: String, capture: Bool, playback: Bool) {
        self.name = name
        self.description = description
        self.capture = capture
        self.playback = playback
    }

    /// The PCMs ALSA's configuration lists (hardware devices, plugins with a `hint` block,
    /// and `default`), in ALSA's order. An IOID of Input or Output limits a device to
    /// capture or playback; no IOID means both.
    public static func list() throws -> [AudioDevice] {
        caudio_silence_alsa_errors()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        let result = snd_device_name_hint(-1, "pcm", &hints)
        guard result >= 0, let hints else {
            throw AudioError(
                .device("pcm"), "cannot list devices", reason: String(cString: snd_strerror(result)), code: result)
        }
        defer { snd_device_name_free_hint(hints) }
        func value(_ hint: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let text = snd_device_name_get_hint(hint, id) else { return nil }
            defer { free(text) }
            return String(cString: text)
        }
        var devices: [AudioDevice] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            guard let name = value(hint, "NAME"), !devices.contains(where: { $0.name == name }) else { continue }
            var description = (value(hint, "DESC") ?? "").split(separator: "\n").map(String.init).joined(
                separator: " — ")
            if description.isEmpty && name == "default" { description = "ALSA's default device" }
            let io = value(hint, "IOID")
            devices.append(
                AudioDevice(
                    name: name, description: description, capture: io == nil || io == "Input",
                    playback: io == nil || io == "Output"))
        }
        return devices
    }
}

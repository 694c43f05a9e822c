import CAudio
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One ALSA PCM as `snd_device_name_hint` describes it.
package struct AudioDevice: Equatable, Sendable {
    /// What `--device` takes: `default`, `hw:CARD=PCH,DEV=0`, a name from `.asoundrc`.
    package var name: String
    /// The hint's DESC, lines joined with " — "; empty when there is none.
    package var description: String
    package var capture: Bool
    package var playback: Bool
    /// The user's configuration file that defines it, as people write its path
    /// (`~/.asoundrc`); nil for what the system's configuration and the cards give.
    package var definedIn: String?

    package init(name: String, description: String, capture: Bool, playback: Bool, definedIn: String? = nil) {
        self.name = name
        self.description = description
        self.capture = capture
        self.playback = playback
        self.definedIn = definedIn
    }

    /// The PCMs ALSA's configuration lists (hardware devices, plugins with a `hint` block,
    /// and `default`), in ALSA's order, as `aplay -L` shows them; then any PCM of the user's
    /// own configuration that ALSA left out (a PCM with no hint block, where the
    /// configuration sets `defaults.namehint.showall off`). An IOID of Input or Output limits
    /// a device to capture or playback; no IOID means both.
    package static func list() throws -> [AudioDevice] {
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
        for (name, file) in userDefined() {
            if let k = devices.firstIndex(where: { $0.name == name }) {
                devices[k].definedIn = devices[k].definedIn ?? file
            } else {
                devices.append(AudioDevice(name: name, description: "", capture: true, playback: true, definedIn: file))
            }
        }
        return devices
    }

    /// The user's own configuration files, as ALSA's alsa.conf loads them, each with its
    /// path and the way people write it.
    static func userFiles() -> [(path: String, shown: String)] {
        let home = Environment.value("HOME") ?? ""
        let configHome = Environment.value("XDG_CONFIG_HOME").flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        var files = [("/etc/asound.conf", "/etc/asound.conf"), ("/usr/etc/asound.conf", "/usr/etc/asound.conf")]
        files.append((home + "/.asoundrc", "~/.asoundrc"))
        files.append(
            (
                configHome + "/alsa/asoundrc",
                configHome.hasPrefix(home + "/") && !home.isEmpty
                    ? "~" + configHome.dropFirst(home.count) + "/alsa/asoundrc" : configHome + "/alsa/asoundrc"
            ))
        return files
    }

    /// The PCMs the user's own files define (`pcm.NAME { … }`), each with the file that
    /// defines it: those that ALSA's configuration, as loaded, holds and would name (as
    /// `snd_device_name_hint` decides: not hidden with `hint.show off`, and needing no
    /// argument that has no default).
    static func userDefined() -> [(name: String, file: String)] {
        var top: OpaquePointer?
        var update: OpaquePointer?
        guard snd_config_update_r(&top, &update, nil) >= 0, let top else { return [] }
        defer {
            snd_config_delete(top)
            if let update { snd_config_update_free(update) }
        }
        var found: [(name: String, file: String)] = []
        for (path, shown) in userFiles() where access(path, R_OK) == 0 {
            for name in pcmNames(inFile: path) where !found.contains(where: { $0.name == name }) {
                var node: OpaquePointer?
                guard snd_config_search(top, "pcm." + name, &node) >= 0, let node, isNamed(node) else { continue }
                found.append((name, shown))
            }
        }
        return found
    }

    /// The ids under `pcm` in one configuration file, read alone.
    private static func pcmNames(inFile path: String) -> [String] {
        var config: OpaquePointer?
        guard snd_config_top(&config) >= 0, let config else { return [] }
        defer { snd_config_delete(config) }
        var input: OpaquePointer?
        guard snd_input_stdio_open(&input, path, "r") >= 0, let input else { return [] }
        let loaded = snd_config_load(config, input)
        snd_input_close(input)
        var pcm: OpaquePointer?
        guard loaded >= 0, snd_config_search(config, "pcm", &pcm) >= 0, let pcm else { return [] }
        return children(of: pcm).compactMap(id)
    }

    /// Whether a PCM definition is one a list names: a compound with a type, not hidden
    /// (`hint.show off`), and with a default for every argument it takes.
    private static func isNamed(_ node: OpaquePointer) -> Bool {
        guard snd_config_get_type(node) == SND_CONFIG_TYPE_COMPOUND, snd_config_search(node, "type", nil) >= 0 else {
            return false
        }
        var show: OpaquePointer?
        if snd_config_search(node, "hint.show", &show) >= 0, let show, snd_config_get_bool(show) == 0 { return false }
        var arguments: OpaquePointer?
        if snd_config_search(node, "@args", &arguments) >= 0, let arguments {
            for argument in children(of: arguments) {
                // `@args [ FILE ]` lists them under 0, 1 …; each named one needs a default.
                guard let name = id(argument), !name.allSatisfy(\.isNumber) else { continue }
                if snd_config_search(argument, "default", nil) < 0 { return false }
            }
        }
        return true
    }

    private static func children(of node: OpaquePointer) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var position = snd_config_iterator_first(node)
        let end = snd_config_iterator_end(node)
        while position != end {
            if let entry = snd_config_iterator_entry(position) { result.append(entry) }
            position = snd_config_iterator_next(position)
        }
        return result
    }

    private static func id(_ node: OpaquePointer) -> String? {
        var text: UnsafePointer<CChar>?
        guard snd_config_get_id(node, &text) >= 0, let text else { return nil }
        return String(cString: text)
    }
}

import ArgumentParser
import RecAudio
import RecCore

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the ALSA PCMs recnotes can record from and play to.",
        discussion: """
            The names are what --device and $RECNOTES_DEVICE take. They come from ALSA's \
            configuration, as 'aplay -L' lists them: sound cards, 'default', plugins, and the \
            PCMs defined in ~/.asoundrc, ~/.config/alsa/asoundrc or /etc/asound.conf. Those \
            with a description and those of these files are listed (one with no description \
            says where it is defined), and the one recnotes uses when no --device is given \
            ($RECNOTES_DEVICE, else 'default') is marked '(default)'; --all lists every PCM \
            ALSA names.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Flag(help: "List every PCM ALSA names, also the system's without a description.")
    var all = false

    func run() throws {
        let chosen = audioDevice(nil)
        let devices = try AudioDevice.list().filter {
            all || !$0.description.isEmpty || $0.definedIn != nil || $0.name == chosen
        }
        if output.json {
            print(DeviceJSON.array(devices, defaultName: chosen))
            return
        }
        let rows = devices.map { device -> [String] in
            let io = [device.capture ? "capture" : nil, device.playback ? "playback" : nil].compactMap { $0 }.joined(
                separator: "+")
            let description =
                device.description.isEmpty ? device.definedIn.map { "defined in \($0)" } ?? "" : device.description
            return [device.name, io, description + (device.name == chosen ? " (default)" : "")]
        }
        for line in Terminal.table(rows) { print(line) }
    }
}

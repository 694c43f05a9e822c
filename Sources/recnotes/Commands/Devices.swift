import ArgumentParser
import RecCore

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the ALSA PCMs recnotes can record from and play to.",
        discussion: """
            The names are what --device and $RECNOTES_DEVICE take. They come from ALSA's \
            configuration: sound cards, 'default', and plugins defined with a hint block in \
            ~/.asoundrc or /etc/asound.conf. Only those with a description are listed, and \
            the one recnotes uses when no --device is given ($RECNOTES_DEVICE, else 'default') \
            is marked '(default)'; --all lists every PCM ALSA names.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Flag(help: "List every PCM, also those without a description.")
    var all = false

    func run() throws {
        let chosen = audioDevice(nil)
        let devices = try AudioDevice.list().filter { all || !$0.description.isEmpty || $0.name == chosen }
        if output.json {
            print(DeviceJSON.array(devices, defaultName: chosen))
            return
        }
        let rows = devices.map { device -> [String] in
            let io = [device.capture ? "capture" : nil, device.playback ? "playback" : nil].compactMap { $0 }.joined(
                separator: "+")
            return [device.name, io, device.description + (device.name == chosen ? " (default)" : "")]
        }
        for line in Terminal.table(rows) { print(line) }
    }
}

import ArgumentParser
import RecCore

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the ALSA PCMs recnotes can record from and play to.",
        discussion: """
        The names are what --device and $RECNOTES_DEVICE take. They come from ALSA's \
        configuration: sound cards, 'default', and plugins defined with a hint block in \
        ~/.asoundrc or /etc/asound.conf.
        """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let devices = try AudioDevice.list()
        if output.json {
            print(DeviceJSON.array(devices))
            return
        }
        let rows = devices.map { device -> [String] in
            let io = [device.capture ? "capture" : nil, device.playback ? "playback" : nil].compactMap { $0 }.joined(separator: "+")
            return [device.name, io, device.description]
        }
        for line in Terminal.table(rows) { print(line) }
    }
}

import ArgumentParser
import RecCore
import RecSystem
import RecValues

struct Marks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marks",
        abstract: "List a recording's markers.",
        discussion:
            "In time order, numbered as 'play --seek #N' and 'unmark PATH N' count them. With --json: an array of {\"index\", \"frame\", \"seconds\", \"label\"}."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The recording.", completion: .storePath)
    var path: String

    func run() throws {
        let library = try global.openLibrary()
        let item = try library.item(at: path)
        guard let info = item.recording else {
            throw RecError.failure(path, "is a folder; only recordings have markers")
        }
        if output.json {
            print(ItemJSON.markers(item))
            return
        }
        let rows = item.annotations.markers.enumerated().map { i, marker in
            [
                "#\(i + 1)", Format.preciseClock(marker.seconds(sampleRate: info.sampleRate)),
                Terminal.shown(marker.label),
            ]
        }
        for line in Terminal.table(rows) { print(line) }
    }
}

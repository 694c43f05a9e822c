import ArgumentParser
import RecCore

struct Unmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unmark",
        abstract: "Remove a marker from a recording.",
        discussion:
            "The marker is named by its number ('marks' lists them; 3 or #3) or its label. 'undo' brings it back."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The recording.", completion: .storePath)
    var path: String

    @Argument(help: ArgumentHelp("The marker's number or label.", valueName: "marker"))
    var marker: String

    func run() throws {
        try global.changeDocuments(json: output.json) { tx, current in
            try tx.removeMarker(at: path, selector: marker, from: current)
        }
    }
}

import ArgumentParser
import RecCore

struct Mark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark",
        abstract: "Mark a moment in a recording.",
        discussion: """
        'recnotes mark PATH --at TIME [LABEL]' adds a marker to a saved recording (TIME as \
        play --seek takes it: 90, 1:30, 50%, -10s). 'marks' lists them, 'unmark' removes one, \
        'play --seek #N' or 'mark:LABEL' starts there, and 'find --text' searches the labels.
        """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Option(help: ArgumentHelp("Where in the recording.", valueName: "time"))
    var at: String?

    @Argument(help: ArgumentHelp("The recording, then an optional label.", valueName: "path [label]"), completion: .storePath)
    var words: [String] = []

    func run() throws {
        guard let at else { throw RecError.usage("mark", "give --at TIME and the recording's PATH") }
        guard let path = words.first else { throw RecError.usage("mark", "needs the PATH of a recording") }
        let label = words.dropFirst().joined(separator: " ")
        let library = try global.openLibrary()
        let renderer = ChangeRenderer(library: library)
        let current = library.state.currentFolder
        try library.documents.transaction { tx in try tx.addMarker(at: path, time: at, label: label, from: current) }
        renderer.finish(json: output.json)
    }
}

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

            Without --at, 'recnotes mark [LABEL]' marks the running recording or playback where \
            it is now (a recording first, if both run), from any shell or a hotkey: every word \
            is the label, never a PATH. The running process reports it in its progress stream \
            ({"event": "marked", ...}); a recording keeps it through a crash, a playback adds it \
            to the saved recording at once ('undo' takes it back); a 'record --output' run only \
            reports it. With nothing running: exit status 1.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Option(parsing: .unconditional, help: ArgumentHelp("Where in the recording.", valueName: "time"))
    var at: String?

    @Argument(
        help: ArgumentHelp(
            "With --at: the recording, then an optional label. Without: the label.", valueName: "path [label]"),
        completion: .storePath)
    var words: [String] = []

    func run() throws {
        guard let at else { return try markRunning() }
        guard let path = words.first else { throw RecError.usage("mark", "needs the PATH of a recording") }
        let label = words.dropFirst().joined(separator: " ")
        let library = try global.openLibrary()
        let renderer = ChangeRenderer(library: library)
        let current = library.state.currentFolder
        try library.documents.transaction { tx in try tx.addMarker(at: path, time: at, label: label, from: current) }
        renderer.finish(json: output.json)
    }

    /// `mark [LABEL]`: the running job's marker, through the view state like `pause`.
    private func markRunning() throws {
        let label = words.filter { $0 != "--" }.joined(separator: " ")
        try MarkerRules.validate(label: label)
        do {
            try RemoteCommand.run(global, json: output.json, action: .mark(label: label)) {
                try $0.send(.mark(label: label))
            }
        } catch let error as RecError where error == RemoteControl.nothingRunning {
            throw RecError.failure(
                "mark", "nothing is recording or playing; to mark a saved recording: mark PATH --at TIME [LABEL]")
        }
    }
}

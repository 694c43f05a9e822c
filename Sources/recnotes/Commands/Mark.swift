import ArgumentParser
import RecCore
import RecStore
import RecSystem
import RecValues

struct Mark: ParsableCommand, TakesDashWords {
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
            reports it. 'mark' prints what it marked and where ('marked  /memo  #2  \
            00:00:12.30  idea'; with --json the job's status, as 'status --json' gives it, with \
            the marker under "marker"). With nothing running: exit status 1.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Option(parsing: .unconditional, help: ArgumentHelp("Where in the recording.", valueName: "time"))
    var at: String?

    // Taken whole, so that a label may start with - (`- check this`, `-important`), as a
    // note or a tag may.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp(
            "With --at: the recording, then an optional label. Without: the label.", valueName: "path [label]"),
        completion: .storePath)
    var words: [String] = []

    /// The words as given, without the first `--`; a word like a long option before it
    /// (`--jsn`) is a mistyped option, not a label.
    private func labelWords() throws -> [String] {
        let end = words.firstIndex(of: "--") ?? words.endIndex
        if let option = words[..<end].first(where: { $0.hasPrefix("--") }) {
            throw RecError.usage(option, "unknown option; see 'recnotes mark --help'")
        }
        return Array(words[..<end]) + words.dropFirst(end + 1)
    }

    func run() throws {
        let words = try labelWords()
        guard let at else { return try markRunning(words) }
        guard let path = words.first else { throw RecError.usage("mark", "needs the PATH of a recording") }
        let label = words.dropFirst().joined(separator: " ")
        let library = try global.openLibrary()
        let renderer = ChangedItems(library: library)
        let current = library.state.currentFolder
        try library.documents.transaction { tx in try tx.addMarker(at: path, time: at, label: label, from: current) }
        renderer.finish(json: output.json)
    }

    /// `mark [LABEL]`: the running job's marker, through the view state like `pause`.
    private func markRunning(_ words: [String]) throws {
        let label = words.joined(separator: " ")
        try MarkerRules.validate(label: label)
        // What the running item held before, so that the marker it adds can be told apart
        // from one at the same moment with the same label.
        var before: [ViewState.Job: [Marker]] = [:]
        do {
            try RemoteCommand.run(global, json: output.json, action: .mark(label: label)) { control in
                // A recording takes the mark first; a playback's recording moved to the trash
                // is refused here, before anything is sent.
                let recordingRuns = control.runningItem(.recording) != nil
                for job in ViewState.Job.allCases {
                    guard let id = control.runningItem(job) else { continue }
                    if job == .playback && recordingRuns {
                        before[job] = try? control.markers(of: job, id: id)?.markers
                    } else {
                        before[job] = try control.markers(of: job, id: id)?.markers
                    }
                }
                return try control.send(.mark(label: label))
            } applied: { control, sent, status in
                let added = try control.addedMarker(by: sent, before: before[sent.job] ?? [])
                if output.json { return ItemJSON.marked(status, added) }
                guard let added else { return "marked  \(status.path)" }
                let time = Format.preciseClock(added.marker.seconds(sampleRate: added.sampleRate))
                let label = added.marker.label.isEmpty ? "" : "  \(added.marker.label)"
                return "marked  \(status.path)  #\(added.number)  \(time)\(label)"
            }
        } catch let error as RecError where error == RemoteControl.nothingRunning {
            throw RecError.failure(
                "mark", "nothing is recording or playing; to mark a saved recording: mark PATH --at TIME [LABEL]")
        }
    }
}

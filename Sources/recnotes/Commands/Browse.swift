import ArgumentParser
import RecCore

struct Browse: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Walk, play, record and file your recordings in one full-screen view.",
        discussion: """
            The app's screens in the terminal: the folder list on the left (j/k or the arrows \
            move, Enter opens a folder or plays a recording, Backspace or h goes up), the \
            selected recording on the right (its details, markers, note, transcript and waveform \
            with the play head), and the player line below (space pauses, the left and right \
            arrows seek 5 s, [ and ] go to the markers, } and { change the speed by 0.25 and = returns to normal speed, m marks). r records into the folder (s or \
            Enter stops it and asks for its name), n makes a folder, R renames, d moves to the \
            trash, u undoes, t edits tags, e edits the note in $EDITOR, / filters as you type, \
            ? lists every key and q quits; Ctrl-Z suspends it as it would any program ('fg' \
            brings it back, redrawn). Changes from other shells show as they happen; a \
            background recording or playback shows in the player line, and space and x pause \
            and stop it. It starts in the current folder and leaves the view state where you \
            ended ('recnotes pwd' shows it). It needs a terminal: not at one, or with TERM=dumb, \
            it refuses (exit 64). NO_COLOR is followed.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The ALSA PCM to play to and record from; defaults to $RECNOTES_DEVICE, then 'default'.", valueName: "name")
    )
    var device: String?

    func run() throws {
        let terminal = try BrowseTerminal()
        // As `ls` of the current folder: through the reads' table when it can answer, so that
        // a library of any size opens at once; the browser reads each folder as it enters it.
        let library = try global.openLibrary(reading: [nil], listing: true)
        try terminal.run(library: library, device: audioDevice(device))
    }
}

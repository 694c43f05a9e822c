import ArgumentParser
import RecCore

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take back the last change to your recordings and folders.",
        discussion: """
            Undoes mkdir, mv, rm, record, import, trash restore, note, tag, mark, trim and transcribe, \
            newest first, and says what it took back, as history does: 'undid #4: add /Work/Standups/monday'. \
            Undoing transcribe brings back the transcript it replaced, or leaves the recording \
            without one; each recording a transcribe run did is undone on its own. A command that failed changed \
            nothing and left nothing to undo, so the change taken back may be older: see it first \
            with --dry-run, or list them with 'recnotes history'. Removed items come back from the \
            trash with their audio. Refused, changing nothing, when a later change conflicts (the \
            trash was emptied, an item was moved since). What a sync brought in is never taken \
            back: undo passes over a sync to this machine's own newest change, and refuses when \
            what came in has changed the same item since.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Flag(name: .customLong("dry-run"), help: "Show what would be taken back, and change nothing.")
    var dryRun = false

    func run() throws {
        let library = try global.openLibrary()
        let undone = try library.documents.undo(dryRun: dryRun)
        if output.json {
            print(RecordJSON.undo(undone, dryRun: dryRun))
        } else {
            print("\(dryRun ? "would undo" : "undid") #\(undone.entry.sequence): \(undone.change)")
        }
    }
}

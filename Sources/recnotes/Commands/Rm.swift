import ArgumentParser
import RecCore
import RecSystem

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Move recordings and folders to the trash.",
        discussion:
            "A removed item goes to the trash with everything under it, audio included, until 'recnotes trash empty'; 'recnotes trash restore' or 'recnotes undo' bring it back. --permanent deletes at once, audio files too. The root folder cannot be removed, nor a folder a recording is being made into while it runs ('recnotes stop' first). A playback goes on when its recording is removed; 'status' then names it in the trash."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Flag(
        name: [.customShort("r"), .customLong("recursive")], help: "Remove non-empty folders and everything in them.")
    var recursive = false

    @Flag(help: "Delete at once instead of moving to the trash; this cannot be undone.")
    var permanent = false

    @Argument(help: "The items to remove.", completion: .storePath)
    var paths: [String]

    /// Usage checks, run first by `run()`: argument-parser wraps whatever `validate()`
    /// throws, which would lose a RecError's kind and exit status.
    func checkUsage() throws {
        if paths.isEmpty { throw RecError.usage("rm", "needs at least one PATH") }
    }

    func run() throws {
        try checkUsage()
        try global.changeDocuments(json: output.json) { tx, current in
            try tx.removeItems(at: paths, from: current, recursive: recursive, permanently: permanent)
        }
    }
}

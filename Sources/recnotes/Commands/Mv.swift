import ArgumentParser
import RecCore
import RecSystem

struct Move: QuickCommand {
    static let configuration = CommandConfiguration(
        commandName: "mv",
        abstract: "Rename an item, or move items into a folder.",
        discussion: """
            With an existing folder as DEST, the sources move into it. Otherwise the one source \
            is renamed (and moved) to DEST. An existing item is never replaced, and a folder \
            cannot move into itself or below itself.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(
        help: ArgumentHelp("The items to move, then the destination.", valueName: "src... dest"), completion: .storePath
    )
    var paths: [String]

    /// Usage checks, run first by `run()`: argument-parser wraps whatever `validate()`
    /// throws, which would lose a RecError's kind and exit status.
    func checkUsage() throws {
        if paths.count < 2 { throw RecError.usage("mv", "needs at least one source and a destination") }
    }

    /// `mv` as people type it, read without argument-parser (`QuickArguments` says why and
    /// what it reads); nil for anything else, which argument-parser then parses.
    static func parsedQuickly(_ arguments: [String]) -> Move? {
        parsedQuickly(arguments, name: "mv", positionals: .any) { move, words in
            move.paths = words.positionals
            return words.positionals.count >= 2
        }
    }

    static let quickFlags = ["--quiet", "--json"]
    static let quickValued = ["--store"]

    func run() throws {
        try checkUsage()
        try global.changeDocuments(json: output.json, moving: Array(paths.dropLast()), into: [paths.last!]) {
            tx, current in
            try tx.moveItems(at: Array(paths.dropLast()), to: paths.last!, from: current)
        }
    }
}

import ArgumentParser
import RecCore
import RecSystem

struct MakeFolder: QuickCommand {
    static let configuration = CommandConfiguration(
        commandName: "mkdir",
        abstract: "Create folders.",
        discussion: "All folders are created, or none: a command that fails changes nothing."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Flag(name: .customShort("p"), help: "Create missing parent folders; an existing folder is not an error.")
    var parents = false

    @Argument(help: "The folders to create.", completion: .storePath)
    var paths: [String]

    /// Usage checks, run first by `run()`: argument-parser wraps whatever `validate()`
    /// throws, which would lose a RecError's kind and exit status.
    func checkUsage() throws {
        if paths.isEmpty { throw RecError.usage("mkdir", "needs at least one PATH") }
    }

    /// `mkdir` as people type it, read without argument-parser (`QuickArguments` says why and
    /// what it reads); nil for anything else, which argument-parser then parses.
    static func parsedQuickly(_ arguments: [String]) -> MakeFolder? {
        parsedQuickly(arguments, name: "mkdir", positionals: .any) { mkdir, words in
            mkdir.parents = words.flag("-p")
            mkdir.paths = words.positionals
            return !words.positionals.isEmpty
        }
    }

    static let quickFlags = ["--quiet", "--json", "-p"]
    static let quickValued = ["--store"]

    func run() throws {
        try checkUsage()
        // `-p` may make folders on the way, which the table cannot find: the whole store.
        try global.changeDocuments(json: output.json, into: parents ? [] : paths) { tx, current in
            for path in paths { _ = try tx.makeFolder(at: path, from: current, createParents: parents) }
        }
    }
}

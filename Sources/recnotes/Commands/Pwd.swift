import ArgumentParser
import RecCore

struct PrintFolder: QuickCommand {
    static let configuration = CommandConfiguration(
        commandName: "pwd",
        abstract: "Print the current folder's path.",
        discussion: "With --json, the folder as an object with the keys ls --json prints."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    /// `pwd` as people type it, read without argument-parser (`QuickArguments` says why and
    /// what it reads); nil for anything else, which argument-parser then parses.
    static func parsedQuickly(_ arguments: [String]) -> PrintFolder? {
        parsedQuickly(arguments, name: "pwd") { _, words in words.positionals.isEmpty }
    }

    static let quickFlags = ["--quiet", "--json"]
    static let quickValued = ["--store"]

    func run() throws {
        let library = try global.openLibrary(reading: [nil])
        let folder = library.state.currentFolder
        if output.json {
            print(ItemJSON.object(library.document[folder] ?? library.document.root, in: library))
        } else {
            print(library.document.path(of: folder))
        }
    }
}

import ArgumentParser
import RecCore

struct List: QuickCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List a folder's folders and recordings.",
        discussion:
            "Sorted by name as file managers sort: numbers by value (note 2 before note 10), case and accents ignored; the same name in another case or accent follows by code point, then by UUID. Every view (tree, find, browse, --json) lists in that order. On a terminal, folders end in '/' and are coloured."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The folder (or recording) to list; the current folder by default.", completion: .storePath)
    var path: String?

    @Flag(name: .customShort("l"), help: "Long format: type, duration, format, size, created date.")
    var long = false

    @Option(
        parsing: .unconditional,
        help:
            "Sort by name, date (created), duration or size (of the audio file); folders come first for duration and size."
    )
    var sort: SortKey = .name

    @Flag(help: "Reverse the order.")
    var reverse = false

    /// `ls` as people type it, read without argument-parser (`QuickArguments` says why and
    /// what it reads); nil for anything else, which argument-parser then parses.
    static func parsedQuickly(_ arguments: [String]) -> List? {
        parsedQuickly(arguments, name: "ls") { list, words in
            // A value argument-parser would refuse is its to report.
            guard let sort: SortKey? = words.converted("--sort") else { return false }
            list.path = words.positional
            list.long = words.flag("-l")
            list.sort = sort ?? .name
            list.reverse = words.flag("--reverse")
            return true
        }
    }

    static let quickFlags = ["--quiet", "--json", "-l", "--reverse"]
    static let quickValued = ["--store", "--sort"]

    func run() throws {
        let library = try global.openLibrary(reading: [path], listing: true)
        let item = try library.item(at: path)
        let items = sort.sorted(
            item.isFolder ? library.document.children(of: item.id) : [item], reverse: reverse,
            size: library.audioSize(of:))
        if output.json {
            Output.json { ItemJSON.writeArray(items, in: library, to: &$0) }
        } else if long {
            ItemRenderer(library: library).printLong(items)
        } else {
            ItemRenderer(library: library).printNames(items)
        }
    }
}

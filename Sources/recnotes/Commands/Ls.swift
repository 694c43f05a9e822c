import ArgumentParser
import RecCore
import RecStore

struct List: QuickCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List a folder's folders and recordings.",
        discussion:
            "Sorted by name as file managers sort: numbers by value (note 2 before note 10), case and accents ignored; the same name in another case or accent follows by code point, then by UUID. Every view (tree, find, browse, --json) lists in that order. On a terminal, folders end in '/' and are coloured. With several PATHs, as coreutils ls: the recordings named first, then each folder's items under a line 'PATH:', a blank line between; --json then prints an array of one object a PATH, {\"path\": PATH, \"items\": [...]}, in the order given."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The folders (or recordings) to list; the current folder by default.", completion: .storePath)
    var paths: [String] = []

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
        parsedQuickly(arguments, name: "ls", positionals: .any) { list, words in
            // A value argument-parser would refuse is its to report.
            guard let sort: SortKey? = words.converted("--sort") else { return false }
            list.paths = words.positionals
            list.long = words.flag("-l")
            list.sort = sort ?? .name
            list.reverse = words.flag("--reverse")
            return true
        }
    }

    static let quickFlags = ["--quiet", "--json", "-l", "--reverse"]
    static let quickValued = ["--store", "--sort"]

    func run() throws {
        let typed: [String?] = paths.isEmpty ? [nil] : paths
        let library = try global.openLibrary(reading: typed, listing: true)
        // Every path resolved before anything is printed: one that is not there is the error.
        let found = try typed.map { try library.item(at: $0) }
        func listed(_ items: [Item]) -> [Item] { sort.sorted(items, reverse: reverse, size: library.audioSize(of:)) }
        func contents(_ item: Item) -> [Item] {
            listed(item.isFolder ? library.document.children(of: item.id) : [item])
        }
        if output.json {
            guard typed.count > 1 else {
                return Output.json { ItemJSON.writeArray(contents(found[0]), in: library, to: &$0) }
            }
            let listings = zip(paths, found).map { (path: $0, items: contents($1)) }
            return Output.json { ItemJSON.writeListings(listings, in: library, to: &$0) }
        }
        let renderer = ItemRenderer(library: library)
        func show(_ items: [Item]) { long ? renderer.printLong(items) : renderer.printNames(items) }
        guard typed.count > 1 else { return show(contents(found[0])) }
        let recordings = listed(found.filter { !$0.isFolder })
        if !recordings.isEmpty { show(recordings) }
        for (index, (path, item)) in zip(paths, found).enumerated() where item.isFolder {
            if index > 0 || !recordings.isEmpty { print() }
            print("\(path):")
            show(contents(item))
        }
    }
}

import ArgumentParser
import RecCore

#if canImport(Glibc)
import Glibc
#endif


struct Find: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Search a folder and everything under it.",
        discussion: "Prints the absolute path of each match, parents before children, in name order. With several of --name, --iname and --type, an item must match them all."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "Where to search; the current folder by default.", completion: .storePath)
    var path: String?

    @Option(help: ArgumentHelp("Only names matching this shell pattern (*, ?, [...]).", valueName: "glob"))
    var name: String?

    @Option(help: ArgumentHelp("Like --name, but letters match in either case, accented ones included.", valueName: "glob"))
    var iname: String?

    @Option(help: "Only folders or only recordings.")
    var type: ItemKind?

    func run() throws {
        let library = try global.openLibrary()
        let top = try library.item(at: path)
        let matches = library.document.subtree(of: top.id).dropFirst().filter { item in
            (type == nil || item.kind == type) && (name == nil || fnmatch(name!, item.name, 0) == 0)
                && (iname == nil || fnmatch(iname!.lowercased(), item.name.lowercased(), 0) == 0)
        }
        if output.json {
            print(ItemJSON.array(Array(matches), in: library))
        } else {
            for item in matches { print(library.document.path(of: item.id)) }
        }
    }
}

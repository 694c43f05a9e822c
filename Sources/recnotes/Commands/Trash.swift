import ArgumentParser
import RecCore

struct Trash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, restore or empty the trash.",
        discussion: "'recnotes rm' moves items here with their audio. They stay until the trash is emptied.",
        subcommands: [ListTrash.self, RestoreTrash.self, EmptyTrash.self],
        defaultSubcommand: ListTrash.self
    )
}

/// Finds trash entries by their original path or an `@` UUID prefix; the newest wins when
/// several were removed from the same path.
private func trashEntry(_ spec: String, in library: Library) throws -> TrashEntry {
    let trash = library.document.trash
    if spec.hasPrefix("@") {
        let digits = spec.dropFirst().filter { $0 != "-" }.lowercased()
        let matches = trash.filter { $0.id.hexDigits.hasPrefix(digits) }
        guard digits.count >= PathResolver.minimumPrefix else {
            throw RecError.usage(spec, "a UUID prefix needs \(PathResolver.minimumPrefix) to 32 hex digits after '@'")
        }
        guard let match = matches.last else { throw RecError.failure(spec, "not in the trash") }
        guard matches.count == 1 else { throw RecError.failure(spec, "ambiguous UUID prefix, matching \(matches.count) items in the trash") }
        return match
    }
    let current = library.document.path(of: library.state.currentFolder)
    let absolute = spec.hasPrefix("/") ? spec : (current == "/" ? "/" : current + "/") + spec
    guard let match = trash.last(where: { $0.path == absolute }) else { throw RecError.failure(spec, "not in the trash") }
    return match
}

struct ListTrash: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List what is in the trash, newest last.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let library = try global.openLibrary()
        let trash = library.document.trash
        if output.json {
            print(RecordJSON.trash(trash, in: library))
            return
        }
        let rows = trash.map { entry -> [String] in
            let extra = entry.items.count > 1 ? "\(entry.items.count - 1) inside" : ""
            return [Format.date(entry.removed), entry.item.kind.rawValue, "@" + String(entry.id.hexDigits.prefix(8)), extra, entry.path]
        }
        for line in Terminal.table(rows) { print(line) }
    }
}

struct RestoreTrash: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put an item from the trash back where it was.",
        discussion: "When its folder is gone or its name is taken there, give --to and/or --name."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The item's original path, or @ and a UUID prefix.")
    var path: String

    @Option(help: ArgumentHelp("Restore into this folder instead.", valueName: "folder"))
    var to: String?

    @Option(help: "Restore under this name instead.")
    var name: String?

    func run() throws {
        let library = try global.openLibrary()
        let renderer = ChangeRenderer(library: library)
        let current = library.state.currentFolder
        try library.documents.transaction { tx in
            let entry = try trashEntry(path, in: library)
            let folder = try to.map { try PathResolver(document: tx.document, currentFolder: current).resolveFolder($0).id }
            try tx.restore(entry.id, into: folder, name: name)
        }
        renderer.finish(json: output.json)
    }
}

struct EmptyTrash: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "empty",
        abstract: "Delete everything in the trash for good, audio files included."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let library = try global.openLibrary()
        let renderer = ChangeRenderer(library: library)
        try library.documents.transaction { tx in _ = tx.emptyTrash() }
        renderer.finish(json: output.json)
    }
}

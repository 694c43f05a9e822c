import ArgumentParser
import RecCore
import RecSystem
import RecValues

struct Trash: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash",
        abstract: "List, restore or empty the trash.",
        discussion: "'recnotes rm' moves items here with their audio. They stay until the trash is emptied.",
        subcommands: [ListTrash.self, RestoreTrash.self, EmptyTrash.self],
        defaultSubcommand: ListTrash.self
    )
}

struct ListTrash: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List what is in the trash, newest last.")

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
            return [
                Format.date(entry.removed), entry.item.kind.rawValue, "@" + String(entry.id.hexDigits.prefix(8)), extra,
                entry.path,
            ]
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

    @Argument(help: "The item's original path, or @ and a UUID prefix.", completion: .storePath)
    var path: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Restore into this folder instead.", valueName: "folder"))
    var to: String?

    @Option(parsing: .unconditional, help: "Restore under this name instead.")
    var name: String?

    func run() throws {
        try global.changeDocuments(json: output.json) { tx, current in
            try tx.restore(path, into: to, name: name, from: current)
        }
    }
}

struct EmptyTrash: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "empty",
        abstract: "Delete everything in the trash for good, audio files included.",
        discussion: """
            This cannot be undone. At a terminal it asks first (y/N); elsewhere it refuses \
            without --yes.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Flag(name: [.customShort("y"), .long], help: "Do not ask; needed when standard input is not a terminal.")
    var yes = false

    func run() throws {
        let interactive = Terminal.isTTY(0) && Terminal.isTTY(2)
        if !yes && !interactive {
            throw RecError.usage("trash empty", "deletes the trash for good; pass --yes to do it without asking")
        }
        let library = try global.openLibrary()
        let trash = library.document.trash
        if !yes && !trash.isEmpty {
            let count = trash.reduce(0) { $0 + $1.items.count }
            Terminal.writeStderr("Delete \(Format.count(count, "item")) in the trash for good, audio included? [y/N] ")
            let answer = String((readLine(strippingNewline: true) ?? "").filter { !$0.isWhitespace }).lowercased()
            guard answer == "y" || answer == "yes" else {
                Terminal.writeStderr("The trash was left as it is.\n")
                return
            }
        }
        let renderer = ChangedItems(library: library)
        // After a question, only what it counted goes: an item trashed meanwhile stays.
        try library.documents.transaction { tx in _ = tx.emptyTrash(yes ? nil : Set(trash.map(\.id))) }
        renderer.finish(json: output.json)
    }
}

import ArgumentParser
import RecCore
import RecStore
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

struct Note: QuickCommand {
    static let configuration = CommandConfiguration(
        commandName: "note",
        abstract: "Read or write the note of a recording or folder.",
        discussion: """
            At a terminal, opens $VISUAL (else $EDITOR, else vi) on the note; saving an unchanged \
            text, or an editor that fails, changes nothing. --set TEXT writes it without an \
            editor (--set - reads standard input; --set '' removes the note). Otherwise the note \
            is printed. A note is free UTF-8 text of up to 1 MB; 'find --text' searches it.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The recording or folder.", completion: .storePath)
    var path: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Write this text as the note; - reads standard input.", valueName: "text"))
    var set: String?

    @Flag(help: "Open the editor even when not at a terminal.")
    var edit = false

    /// `note` as people type it, read without argument-parser (`QuickArguments` says why and
    /// what it reads); nil for anything else, which argument-parser then parses.
    static func parsedQuickly(_ arguments: [String]) -> Note? {
        parsedQuickly(arguments, name: "note") { note, words in
            guard let path = words.positional else { return false }
            note.path = path
            note.set = words.value("--set")
            note.edit = words.flag("--edit")
            return true
        }
    }

    static let quickFlags = ["--quiet", "--json", "--edit"]
    static let quickValued = ["--store", "--set"]

    func run() throws {
        if set != nil && edit { throw RecError.usage("--set", "cannot be combined with --edit") }
        let library = try set != nil ? global.openLibrary(changing: [path]) : global.openLibrary()
        let item = try library.item(at: path)
        if let set {
            try save(set == "-" ? try readStandardInput() : set, library: library)
        } else if edit || (Terminal.isTTY(STDIN_FILENO) && Terminal.isTTY(STDOUT_FILENO)) {
            guard let edited = try TextEditor.edit(item.annotations.note, name: item.name) else {
                Terminal.warning("\(library.document.path(of: item.id)): note unchanged")
                return
            }
            try save(edited, library: library)
        } else if output.json {
            print(ItemJSON.object(item, in: library))
        } else if !item.annotations.note.isEmpty {
            let note = item.annotations.note
            print(Terminal.shown(note), terminator: note.hasSuffix("\n") ? "" : "\n")
        }
    }

    private func save(_ text: String, library: Library) throws {
        let renderer = ChangedItems(library: library)
        let current = library.state.currentFolder
        try library.documents.transaction { tx in try tx.setNote(text, at: path, from: current) }
        renderer.finish(json: output.json)
    }

    private func readStandardInput() throws -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = System.retrying { read(STDIN_FILENO, &buffer, buffer.count) }
            if n < 0 { throw RecError.failure("stdin", systemReason(errno)) }
            if n == 0 { break }
            bytes += buffer[0..<n]
            if bytes.count > NoteRules.maxBytes {
                throw RecError.usage("--set -", "a note is at most \(NoteRules.maxBytes) bytes of UTF-8")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw RecError.usage("--set -", "the note is not valid UTF-8")
        }
        return text
    }
}

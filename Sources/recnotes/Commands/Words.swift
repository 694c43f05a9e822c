import ArgumentParser
import RecCore
import RecSystem
import RecValues

struct Words: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "words",
        abstract: "List, add or remove your words: names and terms the transcription should expect.",
        discussion: """
            Your words are kept in the store (words.txt, a word or phrase a line, which sync \
            carries and merges line by line) and told to Whisper with every recording it \
            transcribes, live words too, as the text it hears first (its initial prompt): a name \
            it would spell otherwise ("Dashwood", "Zürich") comes out as you wrote it. \
            PocketSphinx is not told them: it can only recognise words its dictionary already \
            has a pronunciation for. Words match case aside ("zürich" is "Zürich").
            """,
        subcommands: [WordsList.self, WordsAdd.self, WordsRemove.self],
        defaultSubcommand: WordsList.self
    )
}

struct WordsList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print your words, a line each.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let words = Vocabulary(storeDirectory: try global.location().directory).words
        if output.json {
            var w = JSONWriter()
            w.strings(words)
            print(String(decoding: w.bytes, as: UTF8.self))
        } else {
            for word in words { print(Terminal.shown(word)) }
        }
    }
}

struct WordsAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add words (quote a phrase).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The words: each argument one word or phrase.")
    var words: [String]

    func run() throws {
        guard words.contains(where: { $0.contains { !$0.isWhitespace } }) else {
            throw RecError.usage("words add", "needs a word")
        }
        let added = try Vocabulary(storeDirectory: try writableStore(global)).add(words)
        if added.count < words.count {
            Terminal.note("words: \(Format.count(words.count - added.count, "word")) already there")
        }
    }
}

struct WordsRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Remove words (each must be one of yours).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The words to remove.")
    var words: [String]

    func run() throws {
        guard !words.isEmpty else { throw RecError.usage("words rm", "needs a word") }
        try Vocabulary(storeDirectory: try writableStore(global)).remove(words)
    }
}

/// The store's directory, made on first use as every command that writes makes it; refused
/// when the store may not be written (a newer recnotes's).
private func writableStore(_ global: GlobalOptions) throws -> String {
    let library = try global.openLibrary()
    if library.isReadOnly { throw library.documents.readOnlyError }
    return library.location.directory
}

import ArgumentParser
import RecCore
import RecStore
import RecSystem

struct Tag: QuickCommand, TakesDashWords {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Add and remove tags on recordings and folders.",
        discussion: """
            Words starting with + add a tag, words starting with - remove one, every other word \
            is a PATH: 'recnotes tag Ideas/standup memo +work -draft'. After --, every word is a \
            PATH. A tag is one word of up to 64 bytes: no spaces, no commas, and it does not start \
            with +, - or #. 'recnotes tags' lists them; 'find --tag T' finds them.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    // Taken whole, so that -draft reaches the command instead of reading as an option.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("The items, then +TAG to add and -TAG to remove.", valueName: "path... +tag... -tag..."))
    var words: [String] = []

    /// `tag` as people type it, read without argument-parser (`QuickArguments` says why and
    /// what it reads; its `.dashWords` are this command's words); nil for anything else, which
    /// argument-parser then parses.
    static func parsedQuickly(_ arguments: [String]) -> Tag? {
        parsedQuickly(arguments, name: "tag", positionals: .dashWords) { tag, words in
            tag.words = words.positionals
            return true
        }
    }

    static let quickFlags = ["--quiet", "--json"]
    static let quickValued = ["--store"]

    func run() throws {
        let words = TagWords(self.words)
        let (paths, adding, removing) = (words.others, words.adding, words.removing)
        if paths.isEmpty { throw RecError.usage("tag", "needs at least one PATH") }
        if adding.isEmpty && removing.isEmpty {
            throw RecError.usage("tag", "needs +TAG or -TAG; 'recnotes tags' lists the tags in use")
        }
        try global.changeDocuments(json: output.json, annotating: paths) { tx, current in
            try tx.tag(paths, adding: adding, removing: removing, from: current)
        }
    }
}

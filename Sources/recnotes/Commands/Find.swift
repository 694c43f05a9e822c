import ArgumentParser
import RecCore
import RecStore
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

struct Find: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Search a folder and everything under it.",
        discussion: """
            Prints the absolute path of each match, parents before children, in name order. Every \
            filter given must match. --text matches names, notes, marker labels and transcripts \
            (see transcribe), ignoring case and accents; every word must occur. At a terminal, \
            where a word was found is shown too; --json gives it as "matches", and "time" is the \
            first matching marker's time, else when the transcript says it: \
            recnotes play "$(recnotes find --text budget --json | jq -r '.[0].path')" \
            --seek "$(recnotes find --text budget --json | jq -r '.[0].time // 0')". \
            Searches go through an index in the store's cache/ folder, which every change recnotes \
            makes keeps current; after a change made otherwise, the first search reads the store \
            itself and writes the index again. The hits are printed as they are read from \
            store.json, which find checks first is the file its index was made from; should \
            something other than recnotes (which replaces the file, never writes into it) change \
            it in place meanwhile, find stops with an error after the hits it printed.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "Where to search; the current folder by default.", completion: .storePath)
    var path: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Only names matching this shell pattern (*, ?, [...]).", valueName: "glob"))
    var name: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Like --name, but letters match in either case, accented ones included.", valueName: "glob"))
    var iname: String?

    @Option(parsing: .unconditional, help: "Only folders or only recordings.")
    var type: ItemKind?

    @Option(
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp("Only items with this tag; repeat for several (all must be there).", valueName: "tag"))
    var tag: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Words that must all occur in the name, the note, a marker label or the transcript (case and accents ignored).",
            valueName: "words"))
    var text: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only items created at or after this: 2026-11-20, 2026-11-20T14:30 (local, or with Z or +01:00), today, yesterday, 7d, 12h, 2w.",
            valueName: "date"))
    var after: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Only items created before this (same forms as --after).", valueName: "date"))
    var before: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Only recordings longer than this (90, 1:30, 5m).", valueName: "time"))
    var longer: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Only recordings shorter than this.", valueName: "time"))
    var shorter: String?

    func run() throws {
        var query = try makeQuery()
        let detailed = Terminal.isTTY(STDOUT_FILENO) && query.hasTextFilters
        query.snippets = output.json || detailed
        let found = try Finder.find(query, in: path, details: output.json || detailed, location: global.location()) {
            try global.openLibrary()
        }
        for warning in found.warnings { Terminal.warning(warning) }
        if output.json {
            try Output.json { w in try ItemJSON.writeFound(found, matches: query.hasTextFilters, to: &w) }
            return
        }
        guard detailed else {
            for path in found.paths { print(path) }
            return
        }
        try found.forEachHit { k, hit in
            print(found.paths[k])
            for field in hit.fields {
                switch field {
                case .name: continue
                case .note(let snippet): print("    note: \(Terminal.shown(snippet))")
                case .marker(let marker, let index, let seconds):
                    print("    \(Format.preciseClock(seconds))  #\(index) \(Terminal.shown(marker.label))")
                case .transcript(let seconds, let snippet):
                    print("    \(seconds.map(Format.clock) ?? "--:--")  said: \(Terminal.shown(snippet))")
                }
            }
        }
    }

    /// Every filter checked before the store is opened (`FindOptions`, which /api/find shares).
    private func makeQuery() throws -> SearchQuery {
        var options = FindOptions()
        options.name = name
        options.iname = iname
        options.type = type
        options.tags = tag
        options.text = text
        options.after = after
        options.before = before
        options.longer = longer
        options.shorter = shorter
        return try options.query()
    }
}

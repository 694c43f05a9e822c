import ArgumentParser
import RecCore
import RecSystem
import RecValues

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List recent changes to your recordings and folders, newest first.",
        discussion:
            "Read from journal.jsonl beside store.json, which keeps the last few hundred changes. Each says what changed and to which item, whichever command or key made it: 'rename /Ideas/a → /Ideas/b', 'trash /Old', 'tags on /Ideas/b: +budget', 'transcribe /Ideas/b' (one entry per recording); changes made by an older recnotes show their command line. 'recnotes undo' takes back the newest."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Option(name: [.customShort("n"), .long], parsing: .unconditional, help: "Show at most this many.")
    var limit: Int = 20

    /// Usage checks, run first by `run()`: argument-parser wraps whatever `validate()`
    /// throws, which would lose a RecError's kind and exit status.
    func checkUsage() throws {
        if limit < 1 { throw RecError.usage("--limit \(limit)", "must be at least 1") }
    }

    func run() throws {
        try checkUsage()
        let library = try global.openLibrary()
        let entries = Array(library.documents.journal.entries().suffix(limit).reversed())
        if output.json {
            print(RecordJSON.history(entries))
            return
        }
        // What changed; an entry from before that was recorded shows its command line.
        let rows = entries.map { ["#\($0.sequence)", Format.date($0.time), $0.change ?? $0.summary] }
        for line in Terminal.table(rows) { print(line) }
    }
}

import ArgumentParser
import RecCore

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List recent changes to your recordings and folders, newest first.",
        discussion: "Read from journal.jsonl beside store.json, which keeps the last few hundred changes. 'recnotes undo' takes back the newest."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Option(name: [.customShort("n"), .long], help: "Show at most this many.")
    var limit: Int = 20

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let library = try global.openLibrary()
        let entries = Array(library.documents.journal.entries().suffix(limit).reversed())
        if output.json {
            print(RecordJSON.history(entries))
            return
        }
        let rows = entries.map { ["#\($0.sequence)", Format.date($0.time), $0.summary] }
        for line in Terminal.table(rows) { print(line) }
    }
}

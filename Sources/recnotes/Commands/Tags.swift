import ArgumentParser
import RecCore

struct Tags: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags",
        abstract: "List every tag in use, with how many items carry it.",
        discussion: "Items in the trash are not counted. With --json: an array of {\"tag\", \"count\"}, by tag."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let library = try global.openLibrary()
        let counts = library.document.tagCounts()
        if output.json {
            print(ItemJSON.tagCounts(counts))
        } else {
            for line in Terminal.table(counts.map { [String($0.count), $0.tag] }, rightAligned: [0]) { print(line) }
        }
    }
}

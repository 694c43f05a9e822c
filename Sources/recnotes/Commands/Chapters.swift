import ArgumentParser
import RecCore
import RecStore
import RecSystem
import RecValues

struct ShowChapters: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chapters",
        abstract: "Find where a recording's subject changes, and offer those points as markers.",
        discussion: """
            Reads the transcript (no model): where the words of what comes before stop sharing \
            words with what comes after (TextTiling's lexical cohesion), moved to the longest \
            pause near it. Each chapter is printed with its start and its most telling words; \
            --apply adds a marker at each start, labelled with those words (undo takes them \
            back), leaving any chapter that already has a marker of that label near it.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The recording.", completion: .storePath)
    var path: String

    @Flag(help: "Add the chapters as markers.")
    var apply = false

    func run() throws {
        let library = try global.openLibrary()
        let item = try library.item(at: path)
        let chapters = try RecordingChapters.of(item, in: library)
        if apply { try RecordingChapters.apply(chapters, to: item, in: library) }
        if output.json {
            print(RecordingChapters.json(chapters))
        } else if !apply || !Output.quiet {
            for chapter in chapters {
                print(Terminal.shown("\(Format.clock(chapter.start))  \(RecordingChapters.label(chapter))"))
            }
        }
    }
}

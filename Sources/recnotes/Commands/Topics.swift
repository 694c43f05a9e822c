import ArgumentParser
import RecCore
import RecStore
import RecSystem
import RecValues

struct ShowTopics: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics",
        abstract: "Print what a recording is about: the words and phrases its transcript stands out by.",
        discussion: """
            The terms its transcript says more than the library's other transcripts do (TF-IDF: \
            how often it says a term, weighed by how few others say it; function words such as \
            "the" never count), most telling first, each with how often and when it is said. \
            A phrase of two words counts once it is said twice. No model is involved: it reads \
            the transcripts, so a recording needs one ('recnotes transcribe PATH').
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The recording.", completion: .storePath)
    var path: String

    @Option(parsing: .unconditional, help: ArgumentHelp("How many terms (10 by default).", valueName: "n"))
    var count: Int = 10

    func run() throws {
        guard count > 0 else { throw RecError.usage("--count", "must be at least 1") }
        let library = try global.openLibrary()
        let item = try library.item(at: path)
        guard item.recording != nil else { throw RecError.failure(path, "is a folder, not a recording") }
        let topics = try RecordingTopics.of(item, in: library, limit: count)
        if output.json {
            print(RecordingTopics.json(topics))
            return
        }
        let width = topics.map { $0.term.count }.max() ?? 0
        for topic in topics {
            let padded = topic.term + String(repeating: " ", count: width - topic.term.count)
            let times = topic.times.prefix(8).map { Format.duration($0) }.joined(separator: " ")
            let more = topic.times.count > 8 ? " …" : ""
            print(Terminal.shown("\(padded)  \(topic.count)×  \(times)\(more)"))
        }
    }
}

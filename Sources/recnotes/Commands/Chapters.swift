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
        guard let info = item.recording else { throw RecError.failure(path, "is a folder, not a recording") }
        let shown = library.document.path(of: item.id)
        let transcript = try TranscriptFiles(location: library.location).required(item.id, path: shown)
        let chapters = Chapters.of(transcript)
        if apply {
            if library.isReadOnly { throw library.documents.readOnlyError }
            library.documents.summary = "chapters of \(shown) added as markers"
            let rate = Double(info.sampleRate)
            try library.documents.transaction { tx in
                for chapter in chapters {
                    let label = chapter.words.joined(separator: ", ")
                    let frame = Int64((chapter.start * rate).rounded())
                    let present = tx.document[item.id]?.annotations.markers.contains {
                        $0.label == label && abs(Double($0.frame - frame)) <= rate
                    }
                    if present == true { continue }
                    try tx.addMarker(to: item.id, Marker(frame: frame, label: String(label.prefix(200))))
                }
            }
        }
        if output.json {
            var w = JSONWriter()
            w.array(chapters) { w, chapter in
                w.beginObject()
                w.field("start", (chapter.start * 1000).rounded() / 1000)
                w.key("words")
                w.strings(chapter.words)
                w.endObject()
            }
            print(String(decoding: w.bytes, as: UTF8.self))
        } else if !apply || !Output.quiet {
            for chapter in chapters {
                print(Terminal.shown("\(Format.clock(chapter.start))  \(chapter.words.joined(separator: ", "))"))
            }
        }
    }
}

import ArgumentParser
import RecCore
import RecStore
import RecSystem
import RecValues

struct ShowTranscript: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print a recording's transcript.",
        discussion: """
            As plain text (one segment a line), SRT or WebVTT subtitles, or the JSON kept in \
            transcripts/UUID.json. A recording without a transcript is an error (exit status 1): \
            run 'recnotes transcribe PATH' first.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The recording.", completion: .storePath)
    var path: String

    @Option(parsing: .unconditional, help: "txt (the default), srt, vtt or json.")
    var format: TranscriptFormat = .txt

    func run() throws {
        let library = try global.openLibrary()
        let item = try library.item(at: path)
        guard let recording = item.recording else { throw RecError.failure(path, "is a folder, not a recording") }
        let transcript = try TranscriptFiles(location: library.location).required(item.id, path: path)
        let text = format.render(transcript, duration: recording.duration)
        print(format == .json ? text : Terminal.shown(text), terminator: "")
    }
}

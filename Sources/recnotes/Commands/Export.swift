import ArgumentParser
import RecCore

#if canImport(Glibc)
import Glibc
#endif

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a recording's audio to a file or to stdout.",
        discussion: """
        FILE '-' (or no FILE, when stdout is not a terminal) writes to stdout, as WAV unless \
        --format says otherwise: recnotes export standup - | sox -t wav - -n stat. With a \
        FILE the format follows its extension (.wav .flac .opus .ogg .mp3) unless --format \
        is given; the file appears complete or not at all. Exporting in the format the \
        recording is stored in copies it without re-encoding. Audio is never written to a \
        terminal.
        """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The recording to export.", completion: .storePath)
    var path: String

    @Argument(help: ArgumentHelp("Where to write it; - for stdout.", valueName: "file"))
    var file: String?

    @Option(help: "wav, flac, opus, vorbis or mp3.")
    var format: AudioFormat?

    @Flag(help: "Only the audio between the recording's trim points ('recnotes trim'); decodes even into the stored format.")
    var trimmed = false

    @Option(help: "tty (a line on stderr), json (NDJSON events; on stderr when the audio goes to stdout) or none. Default: tty on a terminal, else none.")
    var progress: ProgressMode?

    func run() throws {
        let toStdout = file == nil || file == "-"
        if toStdout && Terminal.isTTY(STDOUT_FILENO) {
            throw RecError.failure("stdout", "is a terminal; refusing to write binary audio to it (name a FILE, or redirect or pipe stdout)")
        }
        let signals = SignalWatcher()
        let library = try global.openLibrary()
        let exporter = try Exporter(library: library, path: path, destination: toStdout ? .stream(STDOUT_FILENO) : .file(file!),
                                    format: format, trimmed: trimmed)
        let cancel = exporter.cancel
        signals.onSignal { _ in cancel.cancel() }
        // A reader that goes away (| head) ends the export the usual way, by SIGPIPE.
        if toStdout { signal(SIGPIPE, SIG_DFL) }
        let events = TranscodeEventRenderer(mode: ProgressMode.resolved(progress), toStderr: toStdout)
        let title = exporter.item.name
        try exporter.run { events.handle($0, title: title) }
    }
}

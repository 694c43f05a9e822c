import ArgumentParser
import RecAudio
import RecCore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import audio files as recordings.",
        discussion: """
            Reads anything libsndfile reads (WAV, FLAC, Ogg Vorbis, Ogg Opus, MP3, AIFF, ...). By \
            default the audio is converted to Opus; --format picks another format, and --keep \
            stores the file's own bytes when it already is WAV, FLAC, Opus, Vorbis or MP3. \
            Lossless audio with more than 16 bits per sample stays 24-bit in FLAC and WAV. A rate \
            the target cannot take (Opus and 44.1 kHz) is resampled to 48 kHz.

            The name is the file's name without its extension, or --name. '-' reads stdin: WAV, \
            FLAC and Ogg describe themselves; raw samples need --rate, --channels and --encoding.

            Every file is imported, or none: names are checked before any audio is read, and a \
            file that cannot be read leaves the store as it was. A file that ends before its \
            header says (cut off in a copy or a download), or stops decoding part way, is refused \
            unless --salvage is given: it then comes in whole as far as it is readable, and a \
            line on standard error says how much ('take.wav: salvaged 3.12 s of the 5.00 s its \
            header declares').
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: ArgumentHelp("Audio files; - for stdin.", valueName: "file"), completion: .file())
    var files: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The folder to import into; the current folder by default.", valueName: "folder"),
        completion: .storePath)
    var to: String?

    @Flag(
        name: [.short, .customLong("parents")],
        help: "With --to: create the folder and the folders on the way, as mkdir -p does.")
    var parents = false

    @Option(parsing: .unconditional, help: ArgumentHelp("The recording's name (one FILE only).", valueName: "name"))
    var name: String?

    @Option(parsing: .unconditional, help: "Store as opus (the default), flac, wav, vorbis or mp3.")
    var format: AudioFormat?

    @Flag(help: "Store the file's bytes unchanged (WAV, FLAC, Opus, Vorbis or MP3 only).")
    var keep = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Raw stdin: sample rate in Hz.", valueName: "hz"))
    var rate: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Raw stdin: channels.", valueName: "n"))
    var channels: Int?

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Raw stdin: s16, s32 or f32, little-endian.", valueName: "encoding")
    )
    var encoding: RawEncoding?

    @Option(
        parsing: .unconditional,
        help: "tty (a line on stderr), json (NDJSON events on stdout) or none. Default: tty on a terminal, else none.")
    var progress: ProgressMode?

    @Flag(help: "Once imported, transcribe the recordings in a detached process (see transcribe).")
    var transcribe = false

    @Flag(help: "Import a file that ends early or stops decoding as far as it is readable, and say how much.")
    var salvage = false

    @Flag(help: "Add the recordings enhanced: levelled and denoised when played ('recnotes enhance').")
    var enhance = false

    /// Usage checks, run first by `run()`: argument-parser wraps whatever `validate()`
    /// throws, which would lose a RecError's kind and exit status.
    func checkUsage() throws {
        if files.isEmpty { throw RecError.usage("import", "needs at least one FILE, or - for standard input") }
        if keep && format != nil { throw RecError.usage("--keep", "cannot be combined with --format") }
        if parents && to == nil { throw RecError.usage("-p", "goes with --to FOLDER") }
        if encoding != nil || rate != nil || channels != nil {
            guard encoding != nil, rate != nil, channels != nil else {
                throw RecError.usage("import", "raw audio on stdin needs all of --rate, --channels and --encoding")
            }
        }
    }

    func run() throws {
        try checkUsage()
        let raw = encoding.map { RawLayout(rate: rate ?? 0, channels: channels ?? 0, encoding: $0) }
        if files.contains("-") && Terminal.isTTY(STDIN_FILENO) {
            throw RecError.failure("stdin", "is a terminal; pipe audio into recnotes import -")
        }
        let signals = SignalWatcher()
        let library = try global.openLibrary()
        let changes = ChangedItems(library: library)
        let importer = try Importer(
            library: library, files: files, folder: to, name: name,
            storage: keep ? .keep : .transcode(format ?? .default), raw: raw,
            createParents: parents, salvage: salvage, enhance: enhance ? .all : .off)
        let cancel = importer.cancel
        signals.onSignal { _ in cancel.cancel() }
        let events = TranscodeEventRenderer(mode: ProgressMode.resolved(progress), toStderr: false)
        let names = importer.sources.map(\.name)
        let items = try importer.run { index, event in events.handle(event, title: names[index]) }
        if events.mode == .json {
            for item in items { events.line(ImportEventJSON.imported(item, in: library)) }
        }
        if events.mode == .tty && !Output.quiet {
            for item in items {
                Terminal.writeStderr(
                    "Imported \(library.document.path(of: item.id)) (\(Format.duration(item.recording?.duration ?? 0))).\n"
                )
            }
        }
        // How much of each damaged file came in, whatever the progress mode.
        for salvaged in importer.salvaged { Terminal.note("\(salvaged.source): \(salvaged)") }
        if transcribe { BackgroundTranscription.start(items, in: library) }
        changes.finish(json: output.json)
    }
}

/// Import's and export's events: NDJSON (on stdout, or on stderr when stdout carries audio),
/// a live line on stderr, or nothing.
final class TranscodeEventRenderer {
    let mode: ProgressMode
    private let fd: Int32
    private let live: ProgressRenderer

    init(mode: ProgressMode, toStderr: Bool) {
        self.mode = mode
        fd = toStderr ? STDERR_FILENO : STDOUT_FILENO
        live = ProgressRenderer(mode: mode == .tty ? .tty : .none, screen: .transcode)
    }

    func handle(_ event: AudioEvent) { handle(event, title: nil) }

    /// `title`: what the line names (the recording being imported).
    func handle(_ event: AudioEvent, title: String?) {
        if let title { live.title = title }
        switch mode {
        case .json: line(AudioEventJSON.line(event, transcoding: true))
        case .tty: live.handle(event)
        case .none: break
        }
    }

    func line(_ text: String) {
        if fd == STDERR_FILENO {
            Terminal.writeStderr(text + "\n")
        } else {
            print(text)
            Output.flush()
        }
    }
}

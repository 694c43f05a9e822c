import ArgumentParser
import RecCore
import RecStore
import RecSystem
import RecTranscripts
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

struct Transcribe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Turn recordings into searchable text, offline.",
        discussion: """
            Transcribes the recordings named (a folder means every recording under it), or every \
            recording with --all, one at a time, and keeps each transcript in \
            transcripts/UUID.json beside audio/. Recordings that have a transcript are skipped \
            unless --force is given. The engine is --engine, else $RECNOTES_TRANSCRIBER, else Whisper \
            once 'recnotes engine install whisper' has installed it (one model load serves the \
            whole command; tiny.en, or base for a --language other than en), else the \
            built-in PocketSphinx (US English; its transcripts are labelled a draft), which is \
            opened only when needed (Debian's libpocketsphinx3 and pocketsphinx-en-us; \
            $RECNOTES_POCKETSPHINX names another libpocketsphinx.so to open). An external \
            engine is pocketsphinx, whisper, or a command, split into words without a shell, in which {wav} is replaced by a \
            16 kHz mono WAV file; it prints whisper.cpp JSON, WebVTT, SRT or plain text. For \
            whisper.cpp: --engine 'whisper-cli -m MODEL -np -oj -f {wav}'. A recording enhanced \
            with 'recnotes enhance' is transcribed as it plays (levelled, denoised); --original \
            transcribes the audio as it is.

            Ctrl-C stops within about a second: the recording in progress keeps the transcript it \
            had (if any), the transcripts finished are kept, and \
            no transcript is ever half written, so 'transcribe --all --missing' goes on where a \
            stopped or killed run left off. Exit status: 0 when every recording was transcribed \
            or skipped, 1 when one failed (the others are still done) or the run was stopped, \
            64 for a usage error.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Recordings, or folders of them.", completion: .storePath)
    var paths: [String] = []

    @Flag(help: "Every recording in the store (not the trash).")
    var all = false

    @Flag(help: "Only recordings without a transcript (the default unless --force).")
    var missing = false

    @Flag(help: "Transcribe again recordings that have a transcript.")
    var force = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "pocketsphinx, whisper, or an engine command with {wav} for the audio; default $RECNOTES_TRANSCRIBER, else Whisper if installed, else PocketSphinx.",
            valueName: "engine"))
    var engine: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Whisper's model: tiny.en, base, or a CTranslate2 Whisper model directory; default tiny.en (base for a --language other than en).",
            valueName: "model"))
    var model: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The language Whisper listens for: a code (en, de, fr) or auto.", valueName: "code"))
    var language: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long an external engine may take per recording (90, 1:30, 5m); default 5 times the audio's length plus 30 s.",
            valueName: "time"))
    var timeout: String?

    @Option(
        parsing: .unconditional,
        help: "tty (a line on stderr), json (NDJSON events on stdout) or none. Default: tty on a terminal, else none.")
    var progress: ProgressMode?

    @Flag(help: "Transcribe the audio as it is, ignoring the recordings' enhancement ('recnotes enhance').")
    var original = false

    /// The live words' transcriber of a recording in progress, which `record` starts
    /// (`LiveWords`), with the rate of the recording's tap: not for users.
    @Option(name: .customLong(LiveWords.workerOption), parsing: .unconditional, help: .hidden)
    var liveWordsOf: String?

    @Option(name: .customLong(LiveWords.rateOption), parsing: .unconditional, help: .hidden)
    var liveWordsRate: Int?

    @Flag(name: .customLong(LiveWords.pageOption), help: .hidden)
    var liveWordsOfPage = false

    func checkUsage() throws {
        if all && !paths.isEmpty { throw RecError.usage("--all", "cannot be combined with PATH") }
        if !all && paths.isEmpty { throw RecError.usage("transcribe", "needs a PATH or --all") }
        if missing && force { throw RecError.usage("--missing", "cannot be combined with --force") }
    }

    func run() throws {
        if let liveWordsOf { return try transcribeLive(liveWordsOf, rate: liveWordsRate) }
        try checkUsage()
        let limit = try timeout.map { try TimeSpec.length($0, option: "--timeout") }
        let chosenEngine = try Transcription.engine(
            command: engine, timeout: limit, storeDirectory: try global.location().directory, model: model,
            language: language)
        let signals = SignalWatcher()
        let library = try global.openLibrary()
        let transcriber = try Transcriber(
            library: library, paths: paths, all: all, force: force, original: original)
        let cancel = transcriber.cancel
        signals.onSignal { _ in cancel.cancel() }
        let mode = ProgressMode.resolved(progress)
        func report(_ event: Transcriber.Event) {
            switch mode {
            case .json:
                print(TranscriptJSON.event(event, in: library))
                Output.flush()
            case .tty: TranscribeLine.show(event, in: library)
            case .none: break
            }
        }
        // Named paths that already have a transcript are worth a word; --all and --missing skip quietly.
        if !all && !missing {
            for item in transcriber.alreadyDone {
                let reason = "has a transcript already (--force makes it again)"
                if mode == .json {
                    report(.skipped(item: item, reason: reason))
                } else {
                    Terminal.note("\(library.document.path(of: item.id)): \(reason)")
                }
            }
        }
        let single = transcriber.recordings.count == 1
        var lastError: RecError?
        var done = TranscribeReport()
        done.alreadyDone = transcriber.alreadyDone.count
        let summary = transcriber.run(engine: chosenEngine) { event in
            report(event)
            if case .saved(_, let item, let transcript) = event {
                done.add(transcript, path: library.document.path(of: item.id))
            }
            guard case .failed(_, _, let error) = event else { return }
            lastError = error
            // One recording: its error is the command's own one line.
            if mode != .json && !single { Terminal.writeStderr("recnotes: \(error)\n") }
        }
        if mode == .tty { TranscribeLine.clear() }
        // On a terminal only: a script or a pipe gets no advice on stderr.
        if chosenEngine is PocketSphinxEngine, summary.saved > 0, mode == .tty {
            Terminal.note("'recnotes engine install whisper' gives better transcripts than PocketSphinx")
        }
        if summary.interrupted {
            throw RecError.failure(
                "transcribe",
                "stopped; \(summary.saved) transcript\(summary.saved == 1 ? "" : "s") saved, \(transcriber.recordings.count - summary.saved - summary.failed - summary.skipped) left ('transcribe --all --missing' goes on)"
            )
        }
        if single, let lastError { throw lastError }
        if summary.failed > 0 {
            throw RecError.failure(
                "transcribe",
                "\(summary.failed) of \(transcriber.recordings.count) recording\(transcriber.recordings.count == 1 ? "" : "s") failed"
            )
        }
        // What was done, in one line (the NDJSON events have said it already).
        if mode != .json { print(done.line) }
    }
}

/// `transcribe`'s live line on stderr: which recording of how many.
enum TranscribeLine {
    static func show(_ event: Transcriber.Event, in library: Library) {
        switch event {
        case .started(let index, let count, let item):
            line(index: index, count: count, item: item, done: 0, in: library)
        case .progress(let index, let count, let item, let done):
            line(index: index, count: count, item: item, done: done, in: library)
        case .skipped(let item, let reason):
            clear()
            Terminal.writeStderr("recnotes: \(library.document.path(of: item.id)): \(reason)\n")
        case .saved, .failed:
            clear()
        }
    }

    /// A bar of the work done (the recordings done, and of the one in progress the part of
    /// its audio decoded), then which one is being done and how far into it.
    private static func line(index: Int, count: Int, item: Item, done: Double, in library: Library) {
        let path = library.document.path(of: item.id)
        let length = item.recording?.duration ?? 0
        let bar = Format.progressBar((Double(index) + done) / Double(max(count, 1)), width: 20)
        let position = done > 0 ? "\(Format.duration(done * length)) of " : ""
        LiveLine.draw("\(bar) \(index + 1)/\(count) transcribing \(path) (\(position)\(Format.duration(length)))…")
    }

    static func clear() {
        LiveLine.clear()
    }
}

extension Transcribe {
    /// The live words' transcriber: runs until the recording is saved and its transcript too.
    private func transcribeLive(_ id: String, rate: Int?) throws {
        // The recorder may go at any time; the words are kept in their file all the same.
        signal(SIGPIPE, SIG_IGN)
        guard let recording = ItemID(id), let rate, rate > 0 else {
            throw RecError.usage(LiveWords.workerOption, "needs a recording's UUID and --\(LiveWords.rateOption)")
        }
        let location = try global.location()
        let chosen = try Transcription.engine(command: engine, storeDirectory: location.directory)
        let outcome = try LiveWordsWorker.run(
            location: location, id: recording, rate: rate, engine: chosen, fromPage: liveWordsOfPage)
        Terminal.note("live words: \(outcome)")
    }
}

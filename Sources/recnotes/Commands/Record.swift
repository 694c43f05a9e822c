import ArgumentParser
import RecAudio
import RecCore
import RecStore
import RecSystem
import RecValues
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a voice note from an ALSA device.",
        discussion: """
            PATH is a destination folder and/or name (Ideas/standup); by default the current \
            folder and the name 'Recording YYYY-MM-DD HH.MM.SS'. An existing name is refused \
            before recording starts; -p creates missing folders (once the device is open).

            Recording stops after --duration, on Ctrl-C, on SIGTERM, on 'q' at a terminal, or \
            on 'recnotes stop' from another shell; every way of stopping saves what was \
            recorded. 'recnotes pause', 'resume' and 'toggle' work from anywhere (paused time \
            is not recorded); Ctrl-Z suspends it with the terminal given back, and the time it \
            is stopped is not recorded either ('fg' goes on); with --background the recording runs detached. On a terminal, space pauses and \
            resumes, m marks the moment (M also asks for its label, the recording going on; \
            'recnotes mark [LABEL]' does it from another shell), and when no name was given you are asked for one: Enter keeps the default, \
            Esc moves the recording to the trash ('recnotes trash restore' brings it back). If recnotes is killed, the next command recovers the \
            audio as '<name> (recovered)'. A disk that fills ends the recording, and what reached \
            the disk is saved (room to save it is set aside when recording starts); should the \
            store itself be full, the audio is kept and the first command that can write saves it. With --json (and no --background) the saved recording \
            is printed as JSON when it ends, as mkdir --json prints what it made.

            --output - streams the recording to standard output instead of the store (WAV, \
            --format flac, or raw samples with --encoding), for another program to read live; \
            --progress json then writes its events to standard error. --output FILE writes a file \
            outside the store, its format following the extension. Such a recording is \
            registered too: 'recnotes status' shows it, and stop, pause, resume and toggle reach \
            it; a reader that goes away ends it by SIGPIPE.

            --start-on-voice writes nothing until someone speaks, then starts the file \
            --pre-roll (0.5 s) before the first syllable. --stop-on-silence T stops after T of \
            continuous silence; the silence stays in the file behind an out point 0.3 s after \
            the speech ('recnotes trim', 'play --untrimmed'). The live line shows 'waiting for \
            voice' and 'silence 00:03 / 00:05'. With --start-on-voice, --duration counts the \
            audio written.

            Live words: with Whisper installed ('recnotes engine install whisper'), or with \
            --transcribe, a transcriber runs beside the recorder as another process at a lower \
            priority. It reads what is written as it is written, and transcribes each stretch \
            of speech once it ends (long speech in pieces of at most 15 s). The words show on a \
            line under the live line, as 'words' events with --progress json, and in 'status \
            --json'. Once the recording is saved, the rest is finished in the background and \
            saved as its transcript ('transcript', 'find --text'). If the transcriber dies, \
            the recording goes on and is transcribed whole once saved. If the recorder is \
            killed, the transcriber keeps its words for the recovered recording. \
            --no-transcribe, or RECNOTES_LIVE_WORDS=off, turns it off.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Where to put the recording: a folder, a name, or Folder/name.", completion: .storePath)
    var path: String?

    @Flag(
        name: [.short, .customLong("parents")],
        help: "Create the folders in PATH that do not exist yet, as mkdir -p does.")
    var parents = false

    @Option(parsing: .unconditional, help: "opus (Ogg Opus, the default), flac, wav, vorbis (Ogg Vorbis) or mp3.")
    var format: AudioFormat?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Write the audio here instead of the store; '-' is standard output.", valueName: "file|-"),
        completion: .file())
    var output: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --output -: raw samples, s16, s32 or f32 (little-endian), no header.", valueName: "encoding"))
    var encoding: RawEncoding?

    @Option(parsing: .unconditional, help: ArgumentHelp("Sample rate in Hz (default 48000).", valueName: "hz"))
    var rate: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Channels (default 1).", valueName: "n"))
    var channels: Int = AudioFormat.defaultChannels

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The ALSA PCM to record from; defaults to $RECNOTES_DEVICE, then 'default'.", valueName: "name"))
    var device: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Stop after this long: 90, 90s, 1:30, 5m, 1h2m3s, 1:02:03.5.", valueName: "time"))
    var duration: String?

    @Option(
        parsing: .unconditional,
        help:
            "tty (a live line on stderr), json (NDJSON events on stdout) or none. Default: tty on a terminal, else none."
    )
    var progress: ProgressMode?

    @OptionGroup var voice: VoiceOptions

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Transcribe while recording, or not: the words show as they are heard (a line under the live line; 'words' events), and the transcript is finished in a detached process once saved. Default: on when Whisper is installed and $RECNOTES_LIVE_WORDS is not off; --transcribe takes the engine transcribe would, PocketSphinx too."
        ))
    var transcribe: Bool?

    @Flag(
        help:
            "Save the recording enhanced: levelled and denoised when played ('recnotes enhance'); kept by crash recovery too."
    )
    var enhance = false

    @OptionGroup var detached: BackgroundOptions

    /// `record` as people type it, without argument-parser (`QuickArguments`): its option set
    /// is built by reflection, a tenth of a short recording's CPU. nil for anything else
    /// (`QuickParseTests` compares with argument-parser's parse and with the help's options).
    static func parsedQuickly(_ arguments: [String]) -> Record? {
        guard arguments.first == "record",
            let words = QuickArguments(arguments.dropFirst(), flags: quickFlags, valued: quickValued)
        else { return nil }
        // The values argument-parser converts, converted as it does; one it would refuse is its to report.
        guard let format: AudioFormat? = words.converted("--format"),
            let encoding: RawEncoding? = words.converted("--encoding"), let rate: Int? = words.converted("--rate"),
            let channels: Int? = words.converted("--channels"),
            let progress: ProgressMode? = words.converted("--progress")
        else { return nil }
        var record = Record()
        record.global = words.global
        record.path = words.positional
        record.parents = words.flag("-p") || words.flag("--parents")
        record.format = format
        record.output = words.value("--output")
        record.encoding = encoding
        record.rate = rate
        record.channels = channels ?? AudioFormat.defaultChannels
        record.device = words.value("--device")
        record.duration = words.value("--duration")
        record.progress = progress
        var voice = VoiceOptions()
        voice.startOnVoice = words.flag("--start-on-voice")
        voice.preRoll = words.value("--pre-roll")
        voice.stopOnSilence = words.value("--stop-on-silence")
        voice.silenceThreshold = words.value("--silence-threshold")
        record.voice = voice
        // Both given: the last wins, which only argument-parser knows.
        if words.flag("--transcribe") && words.flag("--no-transcribe") { return nil }
        record.transcribe = words.flag("--transcribe") ? true : words.flag("--no-transcribe") ? false : nil
        record.enhance = words.flag("--enhance")
        record.detached = words.background
        return QuickArguments.validated(record) {
            try $0.global.validate()
            try $0.voice.validate()
            try $0.detached.validate()
        }
    }

    static let quickFlags = [
        "--quiet", "-p", "--parents", "--start-on-voice", "--transcribe", "--no-transcribe", "--enhance",
        "--background", "--json",
        "--background-child",
    ]
    static let quickValued = [
        "--store", "--format", "--output", "--encoding", "--rate", "--channels", "--device", "--duration", "--progress",
        "--pre-roll", "--stop-on-silence", "--silence-threshold", "--log",
    ]

    func run() throws {
        let format = self.format ?? .default
        let sampleRate = rate ?? format.defaultRate
        let frameLimit = try duration.map {
            Int64((try TimeSpec.length($0, option: "--duration") * Double(sampleRate)).rounded())
        }
        if let output {
            try checkOutputAlone()
            return try recordToOutput(output, rate: sampleRate, frameLimit: frameLimit)
        }
        if encoding != nil { throw RecError.usage("--encoding", "goes with --output -") }
        let trigger = try voice.trigger()
        try format.validate(rate: sampleRate, channels: channels)
        if try detached.detachIfAsked(command: "record", jsonAlone: true) { return }
        try recordToStore(format: format, rate: sampleRate, frameLimit: frameLimit, voice: trigger)
    }

    /// `--output` writes outside the store, so nothing that names a place in the store,
    /// or detaches, goes with it.
    private func checkOutputAlone() throws {
        if let path {
            throw RecError.usage(path, "a store PATH cannot go with --output, which writes outside the store")
        }
        if parents { throw RecError.usage("-p", "goes with a store PATH, not with --output") }
        if voice.isSet {
            throw RecError.usage(
                "--output", "cannot be combined with --start-on-voice, --stop-on-silence or --silence-threshold")
        }
        // A detached recorder has no stdout of its own to stream to, and a file outside
        // the store is what a plain 'record --background' gives better: background
        // recordings go to the store.
        if transcribe == true {
            throw RecError.usage(
                "--output", "cannot be combined with --transcribe (only recordings in the store are transcribed)")
        }
        if enhance {
            throw RecError.usage(
                "--output", "cannot be combined with --enhance (only recordings in the store keep an enhancement)")
        }
        if detached.background || detached.log != nil || detached.json {
            throw RecError.usage("--output", "cannot be combined with --background, --log or --json")
        }
    }

    /// Records into the store: capture, then a name (asked at a terminal when none was
    /// given), then save, or the trash when the user declines a name.
    private func recordToStore(format: AudioFormat, rate: Int, frameLimit: Int64?, voice: VoiceTrigger?) throws {
        let signals = SignalWatcher()
        let library = try global.openLibrary()
        let changes = ChangedItems(library: library)
        let session = try RecordingSession(
            library: library, path: path, format: format, rate: rate,
            channels: channels, device: audioDevice(device), frameLimit: frameLimit,
            createParents: parents, voice: voice, enhance: enhance ? .all : .off,
            liveWords: LiveWords.engine(asked: transcribe, location: library.location))
        signals.onSignal { [recorder = session.recorder] _ in recorder.stop() }
        let readiness = detached.readinessOnAudio(in: library)
        let renderer = ProgressRenderer(mode: ProgressMode.resolved(progress), screen: .record)
        renderer.title = session.defaultName
        try capture(session, renderer: renderer, signals: signals) { event in
            renderer.handle(event)
            readiness?.see(event)
        }
        if voice?.startOnVoice == true && session.frames == 0 {
            // Stopped while still waiting: there is nothing to keep, and no name to ask for.
            try session.discard()
            Terminal.note("record: no speech was heard, so nothing was recorded")
            return
        }
        if let name = askName(for: session, signals: signals) {
            let item = try session.save(as: name)
            renderer.reportSaved(item, in: library)
            // Without live words (or with a transcriber that died), as a whole once saved.
            if transcribe == true && (session.liveWords == nil || session.liveWordsLost) {
                BackgroundTranscription.start([item], in: library)
            }
        } else {
            // One key never loses a recording: Esc moves it to the trash.
            renderer.reportDiscarded(trashPath: try session.discardToTrash())
        }
        changes.finish(json: detached.wantsItemJSON)
    }

    /// Runs the recorder with the terminal's keys. A failure keeps what was captured (saved
    /// as cut short, or left for the next command to save when the store cannot be written)
    /// and removes an empty file; its one line says which.
    private func capture(
        _ session: RecordingSession, renderer: ProgressRenderer, signals: SignalWatcher,
        onEvent: @escaping (AudioEvent) -> Void
    ) throws {
        let keys = KeyReader.recording(session.recorder, renderer: renderer)
        signals.suspends(keys, renderer, recorder: session.recorder)
        renderer.keysActive = keys != nil
        defer { keys?.stop() }
        do {
            try session.record(onEvent: onEvent)
        } catch {
            throw session.stop(after: error)
        }
    }

    /// The name to save under: the given or default one, or what the user types at the
    /// prompt; nil when the user declines (Esc).
    private func askName(for session: RecordingSession, signals: SignalWatcher) -> String? {
        guard !session.nameGiven && Terminal.isTTY(STDIN_FILENO) && Terminal.isTTY(STDERR_FILENO) else {
            return session.defaultName
        }
        let interrupted = InterruptFlag()
        signals.onSignal { _ in interrupted.set() }
        return NamePrompt.ask(
            defaultName: session.defaultName, problem: session.nameProblem, interrupted: interrupted.isSet)
    }
}

extension Record {
    /// `--output`: the same recorder, writing to a stream or a file outside the store, and
    /// registered in the view state so that `status`, `pause` and `stop` reach it.
    func recordToOutput(_ target: String, rate: Int, frameLimit: Int64?) throws {
        let toStdout = target == "-"
        let output = try RecordingOutput(
            target: target, format: format, encoding: encoding, rate: rate, channels: channels)
        if toStdout && Terminal.isTTY(STDOUT_FILENO) {
            throw RecError.failure(
                "stdout", "is a terminal; refusing to write binary audio to it (redirect or pipe stdout)")
        }
        let signals = SignalWatcher()
        let session = try OutputRecordingSession(
            location: global.location(), output: output,
            device: audioDevice(device), frameLimit: frameLimit)
        for note in session.notes { Terminal.warning(note) }
        let recorder = session.recorder
        signals.onSignal { _ in recorder.stop() }
        let renderer = ProgressRenderer(mode: ProgressMode.resolved(progress), screen: .record, jsonToStderr: toStdout)
        let keys = KeyReader.recording(recorder, renderer: renderer)
        signals.suspends(keys, renderer, recorder: recorder)
        renderer.title = toStdout ? "to stdout" : target
        renderer.keysActive = keys != nil
        defer { keys?.stop() }
        do {
            try session.record(onEvent: renderer.handle)
        } catch {
            try? session.sink.close()
            session.unregister()
            // A reader that went away (| head) ends the recording as the end of a pipe
            // should: by SIGPIPE, once the entry is cleared.
            if toStdout && Terminal.readerIsGone(STDOUT_FILENO) {
                signal(SIGPIPE, SIG_DFL)
                raise(SIGPIPE)
            }
            throw error
        }
        try session.finish()
    }
}

/// Set from the signal thread, read by the prompt.
final class InterruptFlag: Sendable {
    private let value = Mutex(false)

    func set() { value.withLock { $0 = true } }

    func isSet() -> Bool { value.withLock { $0 } }
}

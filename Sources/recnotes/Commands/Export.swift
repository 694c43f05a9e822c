import ArgumentParser
import RecCore
import RecSystem
import RecValues

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
            is given; the file appears complete or not at all, and an existing FILE is never \
            replaced unless --force is given (as mv never replaces; stdout is never refused). \
            Exporting in the format the \
            recording is stored in copies it without re-encoding. Audio is never written to a \
            terminal.

            --markers writes the recording's markers instead, as chapters: each marker starts \
            one that runs to the next marker or the end (with a first chapter 'Start' when the \
            first marker is later than 0:00). cue is a cue sheet (shntool, cuetools; its FILE \
            names NAME.EXT in the stored format; times in CD frames of 1/75 s, each at or \
            before its marker), vtt WebVTT chapters, ffmetadata FFmpeg's \
            metadata file (ffmpeg -i audio -i chapters.txt -map_metadata 1 out.m4a) and json \
            {"name", "sampleRate", "duration", "markers": [{"index", "frame", "seconds", "label"}]}. \
            FILE '-' or none writes to stdout, a terminal included.

            --transcript also writes the recording's transcript ('recnotes transcribe') beside \
            the audio file, under FILE's name with .srt instead of the audio extension \
            (talk.flac, talk.srt), which players such as mpv and VLC pick up; \
            --transcript-format chooses txt, srt, vtt or json instead (repeat it for several). \
            With --trimmed its times count from the in point, as the exported audio does. A \
            recording without a transcript is an error, and nothing is written.

            --speed writes the audio faster or slower with its pitch kept (a voice at 1.5 \
            sounds like the same person talking faster), through the SoundTouch library \
            (libsoundtouch1, opened only then; $RECNOTES_SOUNDTOUCH names another \
            libSoundTouchDll.so to open). At 1 the audio is copied or decoded as without it. \
            It does not go with --markers or --transcript, whose times are the recording's.

            --level LUFS writes the audio at that integrated loudness (EBU R128; alone, -16, \
            the spoken-word norm of podcast platforms): one gain for all of it, from the loudness \
            stored with the recording (measured now for a trimmed export or an older store's \
            recording), and a look-ahead true-peak limiter that keeps every peak at or below \
            -1 dBTP, lowering the gain only around the peaks that need it.

            --denoise lowers steady background noise (fans, hum, hiss) under the speech, \
            through speexdsp's preprocessor (libspeexdsp1, opened only then; $RECNOTES_SPEEXDSP \
            names another libspeexdsp.so), which learns the noise from the first second and takes \
            it down by up to 12 dB, the speech's level kept. It comes first: the audio is denoised, \
            then stretched (--speed), then levelled (--level). \
            A recording enhanced with 'recnotes enhance' is written as if --level (and --denoise) were \
            given; an option typed here wins, and --original writes the file as \
            it is (copied without re-encoding in its own format). Trim points are --trimmed's \
            alone.

            --gain DB raises (or lowers) the level by that many dB, after --speed and before \
            --level's limiter: alone, samples that would pass full scale are clipped there; \
            with --level, the loudness lands DB from the target and the limiter still keeps \
            true peaks at -1 dBTP.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The recording to export.", completion: .storePath)
    var path: String

    @Argument(help: ArgumentHelp("Where to write it; - for stdout.", valueName: "file"))
    var file: String?

    @Option(parsing: .unconditional, help: "wav, flac, opus, vorbis or mp3.")
    var format: AudioFormat?

    @Option(
        name: .customLong("markdown"), parsing: .unconditional,
        help: ArgumentHelp(
            "Write the recording as a Markdown note to FILE (- for stdout); with -r, a note each into DIR.",
            valueName: "file"))
    var markdown: String?

    @Flag(
        name: [.customShort("r"), .customLong("recursive")],
        help: "With --markdown: PATH is a folder, every recording under it.")
    var recursive = false

    @Option(
        name: .customLong("link-base"), parsing: .unconditional,
        help: ArgumentHelp("With --markdown: times link to the served page there (http://host:8930).", valueName: "url")
    )
    var linkBase: String?

    @Flag(help: "With --markdown: the audio as an Obsidian wikilink, ![[file]].")
    var wikilinks = false

    @Flag(name: .customLong("copy-audio"), help: "With --markdown: copy the audio beside the note, and show it there.")
    var copyAudio = false

    @Flag(
        name: .customLong("no-chapters"),
        help: "With --markdown: no headings where the subject changes (markers still are).")
    var noChapters = false

    @Flag(
        help:
            "Only the audio between the recording's trim points ('recnotes trim'); decodes even into the stored format."
    )
    var trimmed = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Write the markers instead of the audio: cue, vtt, ffmetadata or json.", valueName: "format")
    )
    var markers: MarkerExport?

    @Flag(help: "Also write the transcript beside the audio file: FILE's name with .srt (see --transcript-format).")
    var transcript = false

    @Option(
        name: .customLong("transcript-format"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "With --transcript: txt, srt (the default), vtt or json; repeat for several.", valueName: "format"))
    var transcriptFormats: [TranscriptFormat] = []

    @Option(
        parsing: .unconditional,
        help:
            "tty (a line on stderr), json (NDJSON events; on stderr when the audio goes to stdout) or none. Default: tty on a terminal, else none."
    )
    var progress: ProgressMode?

    @Flag(help: "Replace FILE, and the transcript files beside it, when they exist.")
    var force = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Write the audio at this tempo, the pitch kept: 0.25 to 4, as 1.5, 1.5x or 150% (SoundTouch).",
            valueName: "speed"))
    var speed: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Write the audio at this loudness, -60 to -5 LUFS (alone: -16, the podcast norm), true peaks at most -1 dBTP.",
            valueName: "LUFS"))
    var level: Double?

    @Flag(help: "Write the file as it is, ignoring the recording's enhancement ('recnotes enhance').")
    var original = false

    @Flag(help: "Lower steady background noise (fans, hum, hiss) under the speech (speexdsp).")
    var denoise = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Change the level by this much, -40 to 40 dB; what would pass full scale is clipped (with --level, the limiter holds it).",
            valueName: "dB"))
    var gain: Double?

    /// `--level`'s range (play's too): quieter than -60 LUFS is near R128's gate; louder
    /// than -5 leaves the limiter nothing but peaks.
    static func checkLevel(_ level: Double?) throws {
        if let level, !(-60 ... -5).contains(level) {
            throw RecError.usage("--level", "\(level) LUFS is outside -60 to -5")
        }
    }

    /// `--gain`'s range (play's too): 40 dB either way is from a whisper to a shout.
    static func checkGain(_ gain: Double?) throws {
        if let gain, !(-40...40).contains(gain) {
            throw RecError.usage("--gain", "\(gain) dB is outside -40 to 40")
        }
    }

    func run() throws {
        if let markdown { return try exportMarkdown(to: markdown) }
        for (given, name) in [
            (recursive, "-r"), (linkBase != nil, "--link-base"), (wikilinks, "--wikilinks"),
            (copyAudio, "--copy-audio"), (noChapters, "--no-chapters"),
        ] where given {
            throw RecError.usage(name, "goes with --markdown")
        }
        try Self.checkLevel(level)
        try Self.checkGain(gain)
        if gain != nil && markers != nil {
            throw RecError.usage("--gain", "is for audio; --markers writes text")
        }
        if level != nil && markers != nil {
            throw RecError.usage("--level", "is for audio; --markers writes text")
        }
        if denoise && markers != nil {
            throw RecError.usage("--denoise", "is for audio; --markers writes text")
        }
        let toStdout = file == nil || file == "-"
        let speed = try speed.map { try PlaybackSpeed.parse($0) } ?? .normal
        if !speed.isNormal && (markers != nil || transcript) {
            throw RecError.usage(
                "--speed", "changes the audio's tempo; markers and transcripts stay in the recording's own time")
        }
        if !transcriptFormats.isEmpty && !transcript {
            throw RecError.usage("--transcript-format", "needs --transcript")
        }
        if let markers {
            if format != nil { throw RecError.usage("--markers", "writes text; --format is for audio") }
            if transcript {
                throw RecError.usage("--markers", "writes the markers; --transcript goes beside exported audio")
            }
            if progress != nil { throw RecError.usage("--markers", "writes text at once; --progress is for audio") }
            let library = try global.openLibrary()
            let (_, text) = try Exporter.markers(library: library, path: path, format: markers)
            if toStdout {
                print(text, terminator: "")
            } else {
                try Exporter.write(text: text, to: file!, replacing: force)
            }
            return
        }
        if toStdout && Terminal.isTTY(STDOUT_FILENO) {
            throw RecError.failure(
                "stdout",
                "is a terminal; refusing to write binary audio to it (name a FILE, or redirect or pipe stdout)")
        }
        let signals = SignalWatcher()
        let library = try global.openLibrary()
        let exporter = try Exporter(
            library: library, path: path, destination: toStdout ? .stream(STDOUT_FILENO) : .file(file!),
            format: format, trimmed: trimmed, replacing: force,
            effects: EffectChoices(speed: speed, level: level, denoise: denoise, gain: gain, original: original))
        // Read before any audio is written: no transcript, no export.
        let sidecars =
            transcript
            ? try exporter.transcriptSidecars(
                transcriptFormats.isEmpty ? [.srt] : transcriptFormats,
                library: library, path: path) : []
        let cancel = exporter.cancel
        signals.onSignal { _ in cancel.cancel() }
        // A reader that goes away (| head) ends the export the usual way, by SIGPIPE.
        if toStdout { signal(SIGPIPE, SIG_DFL) }
        let events = TranscodeEventRenderer(mode: ProgressMode.resolved(progress), toStderr: toStdout)
        let title = exporter.item.name
        try exporter.run { events.handle($0, title: title) }
        for sidecar in sidecars { try Exporter.write(text: sidecar.text, to: sidecar.file, replacing: force) }
    }
}

extension Export {
    /// `--markdown`: the note (or, with -r, a note for each recording under the folder).
    private func exportMarkdown(to destination: String) throws {
        let audioOptions: [(Bool, String)] = [
            (file != nil, "FILE"), (format != nil, "--format"), (markers != nil, "--markers"),
            (transcript, "--transcript"),
            (speed != nil, "--speed"), (level != nil, "--level"), (gain != nil, "--gain"), (denoise, "--denoise"),
            (trimmed, "--trimmed"), (progress != nil, "--progress"),
        ]
        if let (_, name) = audioOptions.first(where: { $0.0 }) {
            throw RecError.usage(name, "is for audio; --markdown writes a note")
        }
        if let linkBase, !(linkBase.hasPrefix("http://") || linkBase.hasPrefix("https://")) {
            throw RecError.usage("--link-base", "'\(linkBase)' is not an http:// or https:// URL")
        }
        let library = try global.openLibrary()
        let item = try library.item(at: path)
        let export = MarkdownExport(
            library: library,
            options: MarkdownNote.Options(linkBase: linkBase, wikilinks: wikilinks, chapters: !noChapters),
            copyAudio: copyAudio, replacing: force)
        if recursive {
            guard item.isFolder else {
                throw RecError.failure(path, "is a recording, not a folder (-r exports folders)")
            }
            guard destination != "-" else { throw RecError.usage("--markdown", "with -r names a directory, not -") }
            let count = try export.write(folder: item, into: destination)
            if !Output.quiet { print("exported \(Format.count(count, "note")) into \(destination)") }
            return
        }
        guard item.recording != nil else {
            throw RecError.failure(path, "is a folder, not a recording (-r exports a folder's recordings)")
        }
        if destination == "-" {
            if copyAudio { throw RecError.usage("--copy-audio", "needs a FILE to copy the audio beside") }
            print(try export.text(of: item, for: nil), terminator: "")
        } else {
            try export.write(item, to: destination)
        }
    }
}

import ArgumentParser
import RecCore
import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

struct ShowTranscript: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print a recording's transcript.",
        discussion: """
            As plain text (one segment a line), SRT or WebVTT subtitles, or the JSON kept in \
            transcripts/UUID.json. A recording without a transcript is an error (exit status 1): \
            run 'recnotes transcribe PATH' first.

            --edit opens it in $VISUAL (else $EDITOR, else vi), a segment a line; --replace OLD \
            --with NEW says OLD (one or more words, matched whole, their punctuation kept) as NEW, the \
            first time it occurs or, with --all, every time. Either way the words that stay keep \
            their times exactly, and new words take the time of the words they replace. A \
            corrected transcript is marked so ("corrected": true in its JSON); 'transcribe' \
            replaces it only with --force, and 'undo' takes the correction back.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The recording.", completion: .storePath)
    var path: String

    @Option(parsing: .unconditional, help: "txt (the default), srt, vtt or json.")
    var format: TranscriptFormat = .txt

    @Flag(help: "Correct it in $VISUAL or $EDITOR, a segment a line.")
    var edit = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Say OLD (one or more words) as --with's words, the first time it occurs.", valueName: "old")
    )
    var replace: String?

    @Option(
        name: .customLong("with"), parsing: .unconditional,
        help: ArgumentHelp("What --replace says instead (empty to take the words out).", valueName: "new"))
    var replacement: String?

    @Flag(help: "With --replace, every time it occurs.")
    var all = false

    @Flag(
        name: .customLong("add-words"), inversion: .prefixedNo,
        help: "Add the names a correction brings in to your words ('recnotes words'); at a terminal it asks.")
    var addWords: Bool?

    func run() throws {
        if edit && replace != nil { throw RecError.usage("--edit", "cannot be combined with --replace") }
        if (replace == nil) != (replacement == nil) {
            throw RecError.usage(replace == nil ? "--with" : "--replace", "--replace OLD goes with --with NEW")
        }
        if all && replace == nil { throw RecError.usage("--all", "goes with --replace") }
        if addWords != nil && !edit && replace == nil {
            throw RecError.usage("--add-words", "goes with --edit or --replace")
        }
        let library = try global.openLibrary()
        let item = try library.item(at: path)
        guard let recording = item.recording else { throw RecError.failure(path, "is a folder, not a recording") }
        let transcript = try TranscriptFiles(location: library.location).required(item.id, path: path)
        let shownPath = library.document.path(of: item.id)
        if edit {
            let text = TranscriptCorrector.editable(transcript, path: shownPath)
            guard let edited = try TextEditor.edit(text, what: "transcript", name: item.name),
                case let corrected = transcript.correcting(
                    texts: try TranscriptCorrector.texts(in: edited, for: transcript)),
                corrected != transcript
            else {
                Terminal.warning("\(shownPath): transcript unchanged")
                return
            }
            try TranscriptCorrector.save(corrected, for: item, in: library)
            try offerNames(corrected, comparedTo: transcript, library: library)
            return
        }
        if let replace, let replacement {
            let (corrected, replaced, left) = try TranscriptCorrector.replacing(
                replace, with: replacement, all: all, in: transcript)
            try TranscriptCorrector.save(corrected, for: item, in: library)
            let more = left > 0 ? "; \(left) more left, which --all replaces" : ""
            Terminal.note(
                "\(shownPath): \"\(replace)\" is now \"\(replacement)\", \(Format.count(replaced, "time"))\(more)")
            try offerNames(corrected, comparedTo: transcript, library: library)
            return
        }
        let text = format.render(transcript, duration: recording.duration)
        print(format == .json ? text : Terminal.shown(text), terminator: "")
    }

    /// The names the correction brought in, added to your words: with --add-words; at a
    /// terminal without it or --no-add-words, once asked (one question for them all).
    private func offerNames(_ corrected: Transcript, comparedTo original: Transcript, library: Library) throws {
        let vocabulary = Vocabulary(storeDirectory: library.location.directory)
        let names = TranscriptCorrector.newNames(in: corrected, comparedTo: original, vocabulary: vocabulary.words)
        guard !names.isEmpty, addWords != false else { return }
        if addWords == nil {
            guard Terminal.isTTY(STDIN_FILENO) && Terminal.isTTY(STDERR_FILENO) else { return }
            let listed = names.map { "\"\($0)\"" }.joined(separator: ", ")
            Terminal.writeStderr("Add \(listed) to your words, so that transcription expects them? [y/N] ")
            let answer = String((readLine(strippingNewline: true) ?? "").filter { !$0.isWhitespace }).lowercased()
            guard answer == "y" || answer == "yes" else { return }
        }
        _ = try vocabulary.add(names)
        Terminal.note("words: added \(names.joined(separator: ", "))")
    }
}

import ArgumentParser
import RecCore
import RecSystem
import RecTranscripts

struct Summarize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Summarize a recording's transcript with a program of your own.",
        discussion: """
            No summarizer ships with recnotes (a language model that writes summaries does not \
            install offline); this is the contract for your own, such as a script around a local \
            model. The command is --summarizer, else $RECNOTES_SUMMARIZER, split into words and \
            run without a shell. It reads the transcript on its standard input, a segment a line, \
            each after its time as [mm:ss], and prints the summary on its standard output, which \
            recnotes prints. It may take 10 minutes. --apply keeps the summary as the note's first \
            paragraph, "Summary: …", in place of the one kept before (undo takes it back). Exit \
            status: 0 when done; 1 when the recording has no transcript or the summarizer failed \
            (its exit status and last line of stderr are said), and the note is unchanged; 64 \
            when no summarizer is given.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The recording.", completion: .storePath)
    var path: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The program that reads the transcript on stdin and prints a summary; default $RECNOTES_SUMMARIZER.",
            valueName: "command"))
    var summarizer: String?

    @Flag(help: "Keep the summary as the first paragraph of the recording's note.")
    var apply = false

    func run() throws {
        let chosen = try summarizer.map { try Summarizer(command: $0) } ?? Summarizer.fromEnvironment()
        guard let chosen else {
            throw RecError.usage(
                "summarize",
                "no summarizer: give --summarizer 'COMMAND' or set \(Summarizer.environmentVariable)")
        }
        let library = try global.openLibrary()
        let item = try library.item(at: path)
        let summary = try RecordingSummary.summary(of: item, in: library, by: chosen)
        if apply { try RecordingSummary.apply(summary, to: item, in: library) }
        if !apply || !Output.quiet { print(summary) }
    }
}

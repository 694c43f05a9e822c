import ArgumentParser
import RecCore

struct Info: QuickCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show everything known about a folder or recording.",
        discussion: """
            For a recording: its format and file; its levels (peak and RMS, dBFS), its loudness \
            by EBU R128 (integrated loudness in LUFS, loudness range in LU, true peak in dBTP, \
            measured with libebur128), a waveform and its speech regions, all measured once when \
            its audio was saved; its transcript, tags, note and markers.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The item to describe.", completion: .storePath)
    var path: String

    /// `info` as people type it, read without argument-parser (`QuickArguments` says why and
    /// what it reads); nil for anything else, which argument-parser then parses.
    static func parsedQuickly(_ arguments: [String]) -> Info? {
        parsedQuickly(arguments, name: "info") { info, words in
            guard let path = words.positional else { return false }
            info.path = path
            return true
        }
    }

    static let quickFlags = ["--quiet", "--json"]
    static let quickValued = ["--store"]

    func run() throws {
        let library = try global.openLibrary(reading: [path])
        let report = library.report(on: try library.item(at: path), copies: true)
        for warning in report.warnings { Terminal.warning(warning) }
        if output.json {
            print(report.json(in: library))
        } else {
            // A note's and a transcript's text, cell by cell: the table's own text has no
            // control characters.
            let rows = report.rows(in: library).map { $0.map(Terminal.shown) }
            for line in Terminal.table(rows) { print(line) }
        }
    }
}

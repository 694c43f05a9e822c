import Foundation
import Testing

/// Every option that takes a value takes the next word, whatever it starts with, as getopt
/// does: `mark PATH --at -10s`, `import - --name -dash`, `note X --set "- maybe"`. The
/// options come from the binary's own definitions (`--experimental-dump-help`), so a new
/// option is checked without being listed here.
@Suite("Arguments: option values that start with -")
struct DashValueTests {
    struct Option: CustomStringConvertible {
        var command: [String]
        var name: String
        var parsing: String
        /// Words that satisfy the command's required positional arguments.
        var positionals: [String]
        /// The command reads unknown words itself (`tag`, `seek`): nothing is left to argument-parser.
        var takesUnrecognized: Bool
        var description: String { (command + [name]).joined(separator: " ") }
    }

    /// Every option with a value of every subcommand, from the binary's own description.
    static func options() throws -> [Option] {
        let run = try Sandbox.execute(Sandbox.binary, ["--experimental-dump-help"], environment: [:])
        let top = try #require(
            (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["command"]
                as? [String: Any])
        var found: [Option] = []
        func visit(_ command: [String: Any], path: [String]) {
            let arguments = command["arguments"] as? [[String: Any]] ?? []
            let positionals = arguments.filter { $0["kind"] as? String == "positional" }
            let required = positionals.filter { $0["isOptional"] as? Bool != true }.map { _ in "x" }
            let unrecognized = positionals.contains { $0["parsingStrategy"] as? String == "allUnrecognized" }
            for argument in arguments where argument["kind"] as? String == "option" {
                let names = argument["names"] as? [[String: Any]] ?? []
                guard let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String else {
                    continue
                }
                found.append(
                    Option(
                        command: path, name: "--" + long, parsing: argument["parsingStrategy"] as? String ?? "",
                        positionals: required, takesUnrecognized: unrecognized))
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                visit(sub, path: path + [sub["commandName"] as? String ?? ""])
            }
        }
        for sub in top["subcommands"] as? [[String: Any]] ?? [] {
            visit(sub, path: [sub["commandName"] as? String ?? ""])
        }
        return found
    }

    @Test func everyOptionTakesTheNextWordAsItsValue() throws {
        let options = try Self.options()
        #expect(options.count > 60, "the dump lists the options: \(options)")
        #expect(options.contains { $0.description == "mark --at" })
        #expect(options.contains { $0.description == "import --name" })
        for option in options {
            // One mechanism for all: argument-parser's unconditional parsing.
            #expect(option.parsing == "unconditional", "\(option) reads its value with \(option.parsing)")
        }
    }

    @Test func valuesThatStartWithADashReachTheirOption() throws {
        let sandbox = try Sandbox()
        var reachedTheEnd = 0
        for option in try Self.options() {
            for value in ["-10s", "-dash"] {
                // --skip-silence and --level may stand alone, so only what reads as a time or a
                // number is their value.
                if ["--skip-silence", "--level"].contains(option.name) && value == "-dash" { continue }
                // Parsing stops at the unknown option after the value: nothing runs.
                let arguments = option.command + option.positionals + [option.name, value, "--no-such-option"]
                let run = try sandbox.run(arguments, store: option.name != "--store")
                #expect(!run.stderr.contains("\(option.name): needs a value"), "\(run)")
                #expect(!run.stderr.contains("recnotes: \(value):"), "\(run)")
                #expect(!run.stderr.contains("missing <"), "\(run)")
                if option.takesUnrecognized { continue }
                #expect(run.status == 64, "\(run)")
                if run.stderr.hasPrefix("recnotes: --no-such-option: unknown option") {
                    reachedTheEnd += 1
                } else {
                    // Or the value was read, and judged by the option itself.
                    #expect(run.stderr.hasPrefix("recnotes: \(option.name) \(value): "), "\(run)")
                }
            }
        }
        #expect(reachedTheEnd > 40)
    }

    /// The issue's own examples, run to the end: each value lands where it was meant to.
    @Test func theValuesAreUsed() throws {
        let cli = try AudioCLI()
        let wav = try PipelineTests.wav(cli, "tone.wav", AudioCLI.tone(frames: 96_000))
        let imported = try PipelineTests.run(
            cli, ["import", "-", "--name", "-dash"], stdin: try Data(contentsOf: URL(fileURLWithPath: wav)))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try cli.recordings().map { $0["name"] as? String } == ["-dash"])
        let marked = try cli.run("mark", "./-dash", "--at", "-0.5s", "near the end")
        #expect(marked.status == 0, "\(marked.stderr)")
        let marks = try cli.run("marks", "./-dash", "--json")
        let seconds = try #require(
            (try JSONSerialization.jsonObject(with: Data(marks.stdout.utf8)) as? [[String: Any]])?.first?["seconds"]
                as? Double, "\(marks.stdout)")
        #expect(abs(seconds - 1.5) < 0.001)
        #expect(try cli.run("note", "./-dash", "--set", "- maybe not").status == 0)
        #expect(try cli.run("info", "./-dash").stdout.contains("- maybe not"))
        #expect(try cli.run("find", "--name", "-d*").lines == ["/-dash"])
        #expect(try cli.run("mkdir", "--", "-folder").status == 0)
        #expect(try cli.run("mv", "./-dash", "./-folder").status == 0)
        #expect(try cli.run("import", wav, "--to", "-folder", "--name", "-second").status == 0)
        #expect(try cli.run("find", "--text", "-second").lines == ["/-folder/-second"])
    }

    /// A marker's label is free text, as a note is: words that start with `-` are words of it
    /// (`mark PATH --at 1 - check this`), as `tag`'s are tags. A word like a long option
    /// (`--jsn`) is still refused, unless it comes after `--`.
    @Test func labelsMayStartWithADash() throws {
        let sandbox = try Sandbox()
        try sandbox.addWAVRecording("r", in: "/", frames: 96_000)
        try sandbox.succeed("mark", "r", "--at", "0.5", "- check this")
        try sandbox.succeed("mark", "r", "--at", "1", "-important", "-x")
        try sandbox.succeed("mark", "r", "--at", "1.5", "--", "--literally")
        #expect(
            try sandbox.run("marks", "r").lines == [
                "#1  00:00:00.50  - check this", "#2  00:00:01.00  -important -x", "#3  00:00:01.50  --literally",
            ])
        expectFailure(
            try sandbox.run("mark", "r", "--at", "1", "--jsn"), status: 64,
            message: "recnotes: --jsn: unknown option; see 'recnotes mark --help'")
        #expect(try sandbox.run("marks", "r", "--json").status == 0)
        // Without --at the words are the running job's label; nothing runs here.
        expectFailure(try sandbox.run("mark", "-urgent"), status: 1)
    }
}

import Foundation
import Testing

/// Examples must run. Every example in README.md's "Using it" section and in the
/// man page's EXAMPLES runs here as written, in order, each document on a fresh store, with
/// the ALSA file devices (`AudioCLI`: capture reads a few seconds of tone, then silence;
/// playback goes to a file). They are read from the files themselves, so an edited example
/// is the one tested.
///
/// - An example is one shell command line; a line ending in `\` or `|` continues on the next.
///   It runs in bash with `set -e -o pipefail`, in the sandbox's HOME, with the built
///   `recnotes` first on PATH, stdin from /dev/null (no terminal), and must exit 0 within
///   two minutes, with no note or warning of recnotes' on stderr. Exit 141 passes too: a
///   writer killed by SIGPIPE because its reader had what it wanted (`| ffprobe -` reads
///   only the header) is how a pipe ends, not a failure.
/// - An example that needs a program this machine lacks (`command -v`) is skipped by name,
///   and the skip is printed.
/// - Long or interactive examples are written to end on their own: a duration rather than a
///   key, `--background` followed by `stop`. What truly cannot run without a person is
///   marked beside it in the document, with the reason: `<!-- example not run: COMMAND —
///   why -->` in README.md, `.\" example not run: COMMAND — why` in man/sections.mdoc. A
///   marker that names no example fails the test, so the list cannot go stale.
@Suite("Documentation examples", .serialized)
struct DocExamplesTests {
    struct Example: CustomStringConvertible {
        var document: String
        var number: Int
        var command: String
        var description: String { "\(document) example \(number): `\(command)`" }
        /// The command without its trailing comments, spaces collapsed: what a marker names.
        var bare: String {
            DocExamplesTests.withoutComments(command).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
    }

    struct NotRun {
        var command: String
        var reason: String
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    // MARK: Reading the documents

    /// The ```sh blocks of README.md's "Using it" section.
    static func readmeExamples() throws -> (examples: [Example], notRun: [NotRun]) {
        let text = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        var lines: [String] = []
        var section = ""
        var inBlock = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("## ") { section = String(line.dropFirst(3)) }
            guard section == "Using it" else { continue }
            if !inBlock, line.trimmingCharacters(in: .whitespaces) == "```sh" {
                inBlock = true
                continue
            }
            if inBlock, line.trimmingCharacters(in: .whitespaces) == "```" {
                inBlock = false
                continue
            }
            if inBlock { lines.append(line) }
        }
        let notRun = markers(in: text, opening: "<!-- example not run:", closing: "-->")
        return (commands(lines).enumerated().map { Example(document: "README", number: $0 + 1, command: $1) }, notRun)
    }

    /// The literal displays of the man page's EXAMPLES section.
    static func manExamples() throws -> (examples: [Example], notRun: [NotRun]) {
        let text = try String(contentsOfFile: root + "/man/recnotes.1", encoding: .utf8)
        var lines: [String] = []
        var inSection = false
        var inBlock = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix(".Sh ") { inSection = line == ".Sh EXAMPLES" }
            guard inSection else { continue }
            if line.hasPrefix(".Bd -literal") {
                inBlock = true
                continue
            }
            if line.hasPrefix(".Ed") {
                inBlock = false
                continue
            }
            if inBlock {
                lines.append(
                    line.replacingOccurrences(of: "\\&", with: "").replacingOccurrences(of: "\\-", with: "-")
                        .replacingOccurrences(of: "\\e", with: "\\"))
            }
        }
        let notRun = markers(in: text, opening: ".\\\" example not run:", closing: nil)
        return (commands(lines).enumerated().map { Example(document: "man page", number: $0 + 1, command: $1) }, notRun)
    }

    /// Lines joined into commands: a line ending in `\` or `|` continues.
    static func commands(_ lines: [String]) -> [String] {
        var result: [String] = []
        var current: String?
        for line in lines where current != nil || !line.trimmingCharacters(in: .whitespaces).isEmpty {
            current = current.map { $0 + "\n" + line } ?? line
            let code = withoutComments(line).trimmingCharacters(in: .whitespaces)
            if code.hasSuffix("\\") || code.hasSuffix("|") { continue }
            result.append(current!)
            current = nil
        }
        if let current { result.append(current) }
        return result
    }

    /// `COMMAND — reason` after `opening`, up to `closing` or the end of the line.
    static func markers(in text: String, opening: String, closing: String?) -> [NotRun] {
        text.components(separatedBy: "\n").compactMap { line in
            guard let start = line.range(of: opening) else { return nil }
            var body = line[start.upperBound...]
            if let closing, let end = body.range(of: closing) { body = body[..<end.lowerBound] }
            let parts = body.components(separatedBy: " — ")
            return NotRun(
                command: parts[0].trimmingCharacters(in: .whitespaces),
                reason: parts.dropFirst().joined(separator: " — ").trimmingCharacters(in: .whitespaces))
        }
    }

    /// Each line without a shell comment (` #` outside quotes).
    static func withoutComments(_ command: String) -> String {
        command.components(separatedBy: "\n").map { line -> String in
            var quote: Character?
            var previous: Character = " "
            for (offset, c) in line.enumerated() {
                if let q = quote {
                    if c == q { quote = nil }
                } else if c == "'" || c == "\"" {
                    quote = c
                } else if c == "#", previous.isWhitespace {
                    return String(line.prefix(offset)).trimmingCharacters(in: .whitespaces)
                }
                previous = c
            }
            return line
        }.joined(separator: "\n")
    }

    /// The programs an example runs: the first word of each simple command, looking inside
    /// `$(…)` and past `while`, `do` and the like; single-quoted text is an argument.
    static func programs(_ command: String) -> [String] {
        var text = ""
        var inSingle = false
        for c in withoutComments(command) {
            if c == "'" {
                inSingle.toggle()
                continue
            }
            if inSingle { continue }
            text.append(c == "\"" ? " " : c)
        }
        // `)` only ends a substitution: what follows is still the outer command's arguments.
        text = text.replacingOccurrences(of: "$(", with: ";").replacingOccurrences(of: ")", with: " ")
            .replacingOccurrences(of: "\\\n", with: " ")
        let keywords: Set<String> = [
            "while", "until", "do", "done", "if", "then", "else", "elif", "fi", "for", "!", "time", "{", "}",
        ]
        var found: [String] = []
        for segment in text.split(whereSeparator: { "|&;(\n`".contains($0) }) {
            let words = segment.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let word = words.first(where: { !keywords.contains($0) && !$0.contains("=") }) else { continue }
            if !found.contains(word) { found.append(word) }
        }
        // A transcription engine is a program too, though it is written as a quoted argument
        // (`--engine 'whisper-cli …'`, `RECNOTES_TRANSCRIBER='whisper-cli …'`).
        for match in command.matches(of: /(--engine|RECNOTES_TRANSCRIBER=)\s*'([^' ]+)/)
        where !found.contains(String(match.2)) {
            found.append(String(match.2))
        }
        return found
    }

    // MARK: Running them

    final class Runner {
        let cli: AudioCLI
        var environment: [String: String]
        private var known: [String: Bool] = [:]

        init() throws {
            cli = try AudioCLI()
            // A few seconds of tone, then the device gives silence.
            try cli.writeInput(AudioCLI.tone(frames: 48_000 * 4))
            environment = cli.environment
            let binaries = URL(fileURLWithPath: AudioCLI.binary).deletingLastPathComponent().path
            environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        }

        func bash(_ script: String, timeout: Int) throws -> (run: Run, timedOut: Bool) {
            // timeout(1) signals the whole process group: a hung example leaves nothing behind.
            let child = try Spawned(
                "/usr/bin/timeout", ["-k", "5", "\(timeout)", "/bin/bash", "-c", "cd \"$HOME\"\n" + script],
                environment: environment)
            let finished = child.finish(timeout: Double(timeout + 30))
            return (finished.run, finished.timedOut || finished.run.status == 124)
        }

        func has(_ program: String) throws -> Bool {
            if let answer = known[program] { return answer }
            let answer = try bash("command -v '\(program)' >/dev/null", timeout: 10).run.status == 0
            known[program] = answer
            return answer
        }

        /// Whatever an example left running in the background (a failed one, say) is stopped.
        func stopEverything() {
            _ = try? bash("recnotes stop >/dev/null 2>&1; true", timeout: 30)
        }
    }

    /// Runs `examples` in order in one sandbox, and prints what the documents mark as not run.
    /// An example that needs a program this machine lacks is not run either, and the test is
    /// then reported as skipped, naming it (after the others have run: a failure among them
    /// still fails the test).
    static func run(_ examples: [Example], notRun: [NotRun]) throws {
        #expect(!examples.isEmpty, "no examples found: has the document's layout changed?")
        for marker in notRun {
            #expect(
                examples.contains { $0.bare == marker.command }, "a not-run marker names no example: \(marker.command)")
            #expect(!marker.reason.isEmpty, "a not-run marker gives no reason: \(marker.command)")
        }
        let runner = try Runner()
        defer { runner.stopEverything() }
        var skipped: [String] = []
        var lacking: [String] = []
        for example in examples {
            if let marker = notRun.first(where: { $0.command == example.bare }) {
                skipped.append("\(example) (not run: \(marker.reason))")
                continue
            }
            let missing = try programs(example.command).filter { try !runner.has($0) }
            if !missing.isEmpty {
                lacking.append("\(example) needs \(missing.joined(separator: ", ")), which this machine lacks")
                continue
            }
            let (run, timedOut) = try runner.bash("set -e -o pipefail\n" + example.command, timeout: 120)
            let passed = !timedOut && (run.status == 0 || run.status == 141)
            // An example that runs as written has nothing to warn about: recnotes' notes and
            // warnings (`recnotes: …` on stderr) mean it does not quite do what it says.
            let remarks = run.stderrLines.filter { $0.hasPrefix("recnotes: ") }
            #expect(remarks.isEmpty, "\(example) says:\n\(remarks.joined(separator: "\n"))")
            #expect(
                passed,
                """
                \(example) \(timedOut ? "did not finish within 120 s" : "exited \(run.status)")
                stderr:
                \(run.stderr)
                stdout:
                \(run.stdout.prefix(2000))
                """)
        }
        for line in skipped { print("skipped \(line)") }
        if !lacking.isEmpty { try Test.cancel(Comment(rawValue: lacking.joined(separator: "; "))) }
    }

    @Test("every README example runs, in order, on a fresh store")
    func readme() throws {
        let (examples, notRun) = try Self.readmeExamples()
        #expect(examples.count >= 30, "\(examples.count) examples found")
        try Self.run(examples, notRun: notRun)
    }

    @Test("every man-page example runs, in order, on a fresh store")
    func manPage() throws {
        let (examples, notRun) = try Self.manExamples()
        #expect(examples.count >= 10, "\(examples.count) examples found")
        try Self.run(examples, notRun: notRun)
    }

    @Test("examples are read as the shell reads them: continued lines, comments, the programs they need")
    func extraction() {
        #expect(
            Self.commands(["a |", "  b", "c \\", "  d   # note", "", "e"]) == ["a |\n  b", "c \\\n  d   # note", "e"])
        #expect(Self.withoutComments("recnotes ls -l   # a '#' in a comment") == "recnotes ls -l")
        #expect(Self.withoutComments("recnotes find / --iname '#tag'") == "recnotes find / --iname '#tag'")
        #expect(
            Self.programs(
                "recnotes find Work --json | jq -r '.[] | select(.x)' |\n  while read -r p; do recnotes export \"$p\" - | whisper-cli -f - ; done"
            )
                == ["recnotes", "jq", "read", "whisper-cli"])
        #expect(
            Self.programs(
                "recnotes play \"$(recnotes find / --json | jq -r '.[0].path')\" \\\n   --seek \"$(date)\"   # sox")
                == ["recnotes", "jq", "date"])
        #expect(Self.programs("FOO=1 sox -n -t wav - | recnotes import -") == ["sox", "recnotes"])
        #expect(
            Self.programs("recnotes transcribe --all --engine 'whisper-cli -m m.bin -f {wav}'") == [
                "recnotes", "whisper-cli",
            ])
        #expect(Self.programs("export RECNOTES_TRANSCRIBER='vosk-cli {wav}'") == ["export", "vosk-cli"])
    }

    // MARK: The map's names

    /// ARCHITECTURE.md and every note in docs/design/: what the map of the code is read from.
    static func mapDocuments() throws -> [(name: String, text: String)] {
        let design = root + "/docs/design"
        let notes = try FileManager.default.contentsOfDirectory(atPath: design).filter { $0.hasSuffix(".md") }.sorted()
        #expect(!notes.isEmpty, "no notes in docs/design")
        return try (["ARCHITECTURE.md"] + notes.map { "docs/design/" + $0 }).map {
            ($0, try String(contentsOfFile: root + "/" + $0, encoding: .utf8))
        }
    }

    /// The repository paths a map document names: `Sources/…` and `Tests/…` as written, and a
    /// target's folder or file named from its target down (`RecStore/Store/Journal`, the
    /// `.swift` left off). A pattern (`Rec<Layer>Tests`) names no one path and is left out.
    static func namedPaths(in text: String) -> [(named: String, candidates: [String])] {
        var found: [(String, [String])] = []
        let rooted = try! Regex(#"(?:Sources|Tests)/[A-Za-z0-9_./<>+-]*"#)
        for match in text.matches(of: rooted) {
            let path = String(text[match.range]).trimmingCharacters(in: CharacterSet(charactersIn: ".,)"))
            if !path.contains("<") { found.append((path, [path])) }
        }
        let fromTarget = try! Regex(#"`(Rec[A-Z][A-Za-z]*/[A-Za-z0-9_./]*)`"#)
        for match in text.matches(of: fromTarget) {
            let path = String(text[match.range]).trimmingCharacters(in: CharacterSet(charactersIn: "`.,)"))
            found.append((path, ["Sources/" + path, "Sources/" + path + ".swift"]))
        }
        return found
    }

    @Test("every path the map and the design notes name exists, and every note they link to")
    func mapPathsExist() throws {
        for (name, text) in try Self.mapDocuments() {
            let paths = Self.namedPaths(in: text)
            if name == "ARCHITECTURE.md" { #expect(paths.count >= 20, "\(paths.count) paths found in \(name)") }
            for (named, candidates) in paths {
                #expect(
                    candidates.contains { FileManager.default.fileExists(atPath: Self.root + "/" + $0) },
                    "\(name) names \(named), which is not in the repository")
            }
            let folder = name.contains("/") ? "/docs/design/" : "/"
            for match in text.matches(of: try Regex(#"\]\(([^)#]+)\)"#)) {
                let link = String(text[match.range].dropFirst(2).dropLast())
                #expect(
                    FileManager.default.fileExists(atPath: Self.root + folder + link),
                    "\(name) links to \(link), which is not there")
            }
        }
    }

    @Test("every test suite the map names as holding an invariant exists")
    func mapSuitesExist() throws {
        let architecture = try String(contentsOfFile: Self.root + "/ARCHITECTURE.md", encoding: .utf8)
        let suites = architecture.matches(of: try Regex(#"`([A-Z][A-Za-z]*Tests)`"#)).map {
            String(architecture[$0.range].dropFirst().dropLast())
        }
        #expect(suites.count >= 10, "\(suites.count) suites found")
        var declared = ""
        let tests = URL(fileURLWithPath: Self.root + "/Tests")
        for case let file as URL in FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)!
        where file.pathExtension == "swift" {
            declared += try String(contentsOf: file, encoding: .utf8)
        }
        for suite in Set(suites) {
            let isTarget = FileManager.default.fileExists(atPath: Self.root + "/Tests/" + suite)
            #expect(
                isTarget || declared.contains("struct \(suite) ") || declared.contains("class \(suite)"),
                "ARCHITECTURE.md names \(suite), which no test declares")
        }
    }
}

import ArgumentParser
import RecAudio
import RecBuildInfo
import RecCore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

@main
struct Recnotes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recnotes",
        abstract: "Record, organise, play and script voice notes.",
        discussion: """
            Recordings live in a folder hierarchy kept in a store directory (see --store). \
            Paths are absolute (/Work/Ideas), relative to the current folder (Ideas, ../Work), \
            or an @ followed by at least four hex digits of an item's UUID (@3f2a).

            Exit status: 0 on success, 1 when the operation failed (not found, already exists, \
            not empty, corrupt store, device or I/O error), 64 for usage errors (bad arguments, \
            bad names, bad times).
            """,
        version: "recnotes \(BuildInfo.version) (\(LibraryVersions.summary))",
        subcommands: [
            List.self, Tree.self, ChangeFolder.self, PrintFolder.self, MakeFolder.self,
            Remove.self, Move.self, Find.self, Info.self, State.self, Record.self, Play.self,
            Trash.self, Undo.self, History.self, Check.self, Import.self, Export.self, Devices.self,
            Status.self, Pause.self, Resume.self, Toggle.self, Seek.self, Speed.self, Stop.self,
            Note.self, Tag.self, Tags.self, Mark.self, Marks.self, Unmark.self, Trim.self, Enhance.self,
            Transcribe.self, ShowTranscript.self, ShowTopics.self, ShowChapters.self, Summarize.self, Words.self,
            Engine.self,
            Browse.self, Sync.self,
            Get.self, Drop.self,
            Serve.self,
        ]
    )

    /// `recnotes --store DIR ls` reads naturally, but argument-parser only knows the global
    /// options (`--store`, `--quiet`) on the subcommands. Leading ones are moved to where the
    /// subcommand will see them.
    static func hoistingGlobalOptions(_ arguments: [String]) -> [String] {
        var arguments = arguments
        var hoisted: [String] = []
        while let first = arguments.first, ["--store", "-q", "--quiet"].contains(first) || first.hasPrefix("--store=") {
            hoisted.append(arguments.removeFirst())
            if first == "--store", !arguments.isEmpty { hoisted.append(arguments.removeFirst()) }
        }
        guard !hoisted.isEmpty else { return arguments }
        // A mistyped subcommand is reported as itself, not as a misplaced --store.
        if let name = arguments.first, !name.hasPrefix("-"),
            !configuration.subcommands.contains(where: { $0._commandName == name })
        {
            return arguments
        }
        // Right after the subcommand's name(s), where no option can take them as its value
        // (`record --rate`: every option's value is the next word, whatever it is).
        var command: ParsableCommand.Type = Recnotes.self
        var at = 0
        while at < arguments.count,
            let sub = command.configuration.subcommands.first(where: { $0._commandName == arguments[at] })
        {
            command = sub
            at += 1
        }
        arguments.insert(contentsOf: hoisted, at: at)
        return arguments
    }

    /// The command line as the parse reads it: the leading global options moved after the
    /// command's name, and for `play` and `export` alone (the commands whose options may stand
    /// without a value) each value-less option given its default.
    static func preparedArguments(_ arguments: [String]) -> [String] {
        let hoisted = hoistingGlobalOptions(arguments)
        guard hoisted.first == "play" || hoisted.first == "export" else { return hoisted }
        return defaultingBareOptions(hoisted)
    }

    /// `play --skip-silence` may stand alone (1 s), and `play`/`export --level` (-16 LUFS):
    /// argument-parser has no optional option values, so one not followed by a value gets
    /// the default here.
    private static func defaultingBareOptions(_ arguments: [String]) -> [String] {
        let isPlay = arguments.first == "play"
        // A switch, not a [String: String]: a dictionary's first use instantiates its generic
        // metadata and looks up String's Hashable conformance, which every play's start-up
        // would pay (bench/results/startup.tsv).
        func defaultValue(_ option: String) -> String? {
            switch option {
            case "--skip-silence" where isPlay: "1s"
            case "--level": "\(Int(Enhancement.targetLoudness))"
            default: nil
            }
        }
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            result.append(word)
            index += 1
            if word == "--" {
                result += arguments[index...]
                break
            }
            if let value = defaultValue(word) {
                let next = index < arguments.count ? arguments[index] : nil
                if let next, Self.readsAsTime(next) {
                    result.append(next)
                    index += 1
                } else {
                    result.append(value)
                }
            }
        }
        return result
    }

    /// What `--skip-silence` and `--level` take as their value: a word that starts as a number
    /// does (`1.5s`, `2m`, `-16`, and `-10s`, refused later as a length), anything else is the
    /// next argument.
    private static func readsAsTime(_ word: String) -> Bool {
        let number = word.hasPrefix("-") || word.hasPrefix("+") ? word.dropFirst() : Substring(word)
        return number.first?.isNumber == true
    }

    /// A command line that names a command without subcommands (`play X`), parsed with that
    /// command as the root: argument-parser then builds the options of that command alone,
    /// not of the whole tree. Only the command itself is taken: help, `--generate-completion-script`
    /// and every error return nil, and the full parse runs, so that what they print names
    /// `recnotes play` exactly as before.
    static func parsedAsLeaf(_ arguments: [String]) -> ParsableCommand? {
        guard let name = arguments.first,
            let command = configuration.subcommands.first(where: { $0._commandName == name }),
            command.configuration.subcommands.isEmpty
        else { return nil }
        // A help request parses as a HelpCommand, whose usage would name `play` alone.
        // A completion-script request is the full parse's (see `leafParent`), even as an
        // option's value.
        guard !arguments.contains(where: { $0.hasPrefix("--generate-completion-script") }),
            let parsed = try? command.parseAsRoot(Array(arguments.dropFirst())), type(of: parsed) == command
        else { return nil }
        return parsed
    }

    /// The commands read without argument-parser when typed as usual (`QuickArguments`): `play`,
    /// whose start-up is measured against sox, `record`, whose CPU is measured against
    /// arecord, the changes measured against copying the store and the reads measured against
    /// `--version`. A switch on the name, so that the others' tables are not even looked at.
    static func parsedQuickly(_ arguments: [String]) -> ParsableCommand? {
        switch arguments.first {
        case "play": Play.parsedQuickly(arguments)
        case "record": Record.parsedQuickly(arguments)
        case "tag": Tag.parsedQuickly(arguments)
        case "mkdir": MakeFolder.parsedQuickly(arguments)
        case "mv": Move.parsedQuickly(arguments)
        case "note": Note.parsedQuickly(arguments)
        case "pwd": PrintFolder.parsedQuickly(arguments)
        case "status": Status.parsedQuickly(arguments)
        case "ls": List.parsedQuickly(arguments)
        case "info": Info.parsedQuickly(arguments)
        default: nil
        }
    }

    /// `play` names this as its `_superCommandName` (argument-parser's name for a command
    /// installed beside its parent, as git's are; any command without subcommands could). It
    /// changes nothing when the whole tree is parsed, whose root is `Recnotes`; parsed as its
    /// own root (`parsedAsLeaf`), argument-parser then skips its look for
    /// `--generate-completion-script`, which parses the arguments twice more as two other
    /// commands, a fifth of a one-second play's start-up even after the real parse pays the
    /// first uses the look had paid. That look is the full
    /// parse's business.
    static let leafParent = "recnotes"

    /// Parses, runs, and turns every error into one line on stderr and a documented exit code.
    static func main() {
        // Past RLIMIT_FSIZE, write() must fail with EFBIG so the error path runs, not kill us.
        signal(SIGXFSZ, SIG_IGN)
        // Before any parse, every path included: the decoded arguments have had bad bytes
        // replaced, so only the raw ones can tell.
        if let error = ArgumentBytes.invalidWord() {
            Terminal.error(error.description)
            Glibc.exit(error.exitCode)
        }
        // `--version` alone prints what argument-parser would, without its parse: that parse
        // looks for a completion-script request and builds the command tree first, half of
        // this command's work.
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(configuration.version)
            Glibc.exit(0)
        }
        let arguments = preparedArguments(Array(CommandLine.arguments.dropFirst()))
        if Sync.helpRequested(arguments) {
            print(Sync.help)
            Glibc.exit(0)
        }
        do {
            var command: ParsableCommand
            if let quick = parsedQuickly(arguments) {
                // A line read quickly has no word `ArgumentCheck` refuses (`QuickParseTests`
                // checks it), whose check would generate the command's help for a `-q` or `-p`.
                command = quick
            } else {
                try ArgumentCheck.check(arguments)
                command = try parsedAsLeaf(arguments) ?? parseAsRoot(arguments)
            }
            try GlobalOptions.inUserTerms { try command.run() }
        } catch let code as ExitCode {
            // A command that has already said what it had to (fsck's problem lines).
            Glibc.exit(code.rawValue)
        } catch let error as RecError {
            Terminal.error(error.description)
            Glibc.exit(error.exitCode)
        } catch let error as RecErrorConvertible {
            Terminal.error(error.recError.description)
            Glibc.exit(error.recError.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }
            let message = fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            Terminal.error(ArgumentCheck.voice(message, arguments: arguments))
            Glibc.exit(code.rawValue)
        }
    }
}

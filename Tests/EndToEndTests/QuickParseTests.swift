import ArgumentParser
import RecTestSupport
import Testing

@testable import recnotes

/// The command lines read without argument-parser (`Recnotes.parsedQuickly`: `play` and
/// `record`; `tag`, `mkdir`, `mv`, `note`, `pwd`, `status`, `ls` and `info`) must give the
/// command argument-parser gives, or nothing (then argument-parser parses it). The command
/// lines are generated: options in any order, `=` forms, `--`, values and words that start
/// with `-`, unknown and repeated options, groups of short flags, bad values, help and
/// completion requests, global options before the command.
@Suite("Arguments: commands read without argument-parser")
struct QuickParseTests {
    static let seed = SeededRandom.seed(20_261_128)

    /// What `Recnotes.main` parses: the arguments as it rewrites them first.
    static func prepared(_ arguments: [String]) -> [String] {
        Recnotes.preparedArguments(arguments)
    }

    /// argument-parser's command for the arguments, as `Recnotes.main` gets it without the
    /// quick path; nil when it fails or answers something else (help).
    static func reference(_ arguments: [String]) -> ParsableCommand? {
        if let leaf = Recnotes.parsedAsLeaf(arguments) { return leaf }
        return try? Recnotes.parseAsRoot(arguments)
    }

    /// Every property wrapper with its value (`*definition*` for one never set), nested groups too.
    static func described(_ command: ParsableCommand) -> String { String(describing: command) }

    static let values = [
        "5", "-10s", "-0", "1:30", "50%", "#3", "mark:intro", "", "--", "-", "-q", "--seek", "--nope", "x y", "=",
        "a=b", "-dash.wav", "--help", "-h", "--generate-completion-script", "1.5x",
    ]
    static let positionals = ["one", "/Work/one", "@3f2a", "-dash", "", "help", "1", "-10", "--", "--store"]
    static let unknown = ["--nope", "-x", "-qq", "-qd", "--seek-to", "--Seek", "-", "--version", "-help"]

    static func pick<T>(_ list: [T], _ rng: inout SeededRandom) -> T { list[Int(rng.next() % UInt64(list.count))] }

    /// One option, flag or word of a command line, as the words it is written with.
    static func piece(_ rng: inout SeededRandom) -> [String] {
        switch rng.next() % 10 {
        case 0, 1:
            let flag = pick(Play.quickFlags + ["-q"], &rng)
            return rng.next() % 8 == 0 ? [flag + "=" + pick(values, &rng)] : [flag]
        case 2, 3, 4:
            let option = pick(Play.quickValued, &rng)
            let value: String
            switch option {
            case "--progress": value = pick(["tty", "json", "none", "fast", "TTY", "", "-q"], &rng)
            case "--level": value = pick(["-16", "-5", "abc", "1e3", "nan", "-", "16.5", "inf", "-1e1", ""], &rng)
            default: value = pick(values, &rng)
            }
            // `--level` and `--skip-silence` alone take their default (`Recnotes.preparedArguments`).
            if ["--level", "--skip-silence"].contains(option), rng.next() % 4 == 0 { return [option] }
            return rng.next() % 3 == 0 ? [option + "=" + value] : [option, value]
        case 5, 6: return [pick(positionals, &rng)]
        case 7: return [pick(unknown, &rng)]
        case 8: return ["--", pick(positionals, &rng)]
        default:
            return [pick(["-h", "--help", "--generate-completion-script", "--generate-completion-script=bash"], &rng)]
        }
    }

    /// A `name` command line of up to six pieces, after global options now and then.
    static func commandLine(
        _ name: String, _ rng: inout SeededRandom, piece: (inout SeededRandom) -> [String] = piece
    ) -> [String] {
        var words: [String] = []
        // Global options before the command, which `hoistingGlobalOptions` moves after it.
        if rng.next() % 5 == 0 { words += pick([["--store", "/tmp/s"], ["-q"], ["--store=/tmp/s"]], &rng) }
        words.append(name)
        for _ in 0..<Int(rng.next() % 7) { words += piece(&rng) }
        return words
    }

    @Test func givesWhatArgumentParserGivesOrNothing() throws {
        var rng = SeededRandom(seed: Self.seed)
        let (quick, fellBack) = try Self.compare(
            4000, lines: { Self.commandLine("play", &rng) }, quick: Play.parsedQuickly)
        // Both ways are taken: most generated lines have something only argument-parser reads.
        #expect(quick > 400, "read quickly: \(quick)")
        #expect(fellBack > 400, "left to argument-parser: \(fellBack)")
    }

    /// Generated command lines read both ways: each the quick path reads must be what
    /// argument-parser gives (the same type, every property wrapper), and pass the check
    /// `Recnotes.main` skips for it. How many were read quickly, and how many left.
    static func compare(
        _ count: Int, lines: () -> [String], quick: ([String]) -> ParsableCommand?
    ) throws -> (quick: Int, fellBack: Int) {
        var read = 0
        for _ in 0..<count {
            let arguments = prepared(lines())
            guard let parsed = quick(arguments) else { continue }
            read += 1
            // `Recnotes.main` skips `ArgumentCheck` for a line read quickly.
            #expect(throws: Never.self, "seed \(seed): \(arguments)") { try ArgumentCheck.check(arguments) }
            let expected = try #require(reference(arguments), "seed \(seed): argument-parser refuses \(arguments)")
            #expect(
                type(of: expected) == type(of: parsed),
                "seed \(seed): \(arguments) is \(type(of: expected)) to argument-parser")
            #expect(described(parsed) == described(expected), "seed \(seed): \(arguments)")
        }
        return (read, count - read)
    }

    /// The shapes the quick path is for are read by it, with their values as typed.
    @Test func commonShapesAreReadQuickly() throws {
        let bench = try #require(Play.parsedQuickly(["play", "one", "--from-start", "--progress", "none"]))
        #expect(bench.path == "one" && bench.fromStart && bench.progress == ProgressMode.none)
        let fromEnd = try #require(Play.parsedQuickly(["play", "--seek", "-10s", "one", "--until=-0"]))
        #expect(fromEnd.seek == "-10s" && fromEnd.until == "-0" && fromEnd.path == "one")
        let dashed = try #require(Play.parsedQuickly(Self.prepared(["--store", "/s", "play", "--level", "--", "-x"])))
        #expect(dashed.global.store == "/s" && dashed.level == -16 && dashed.path == "-x")
        for line in [
            ["play", "--help"], ["play", "-h"], ["play", "x", "y"], ["play", "--seek"], ["play", "--nope"],
            ["play", "--progress", "fast"], ["play", "--level", "loud"], ["play", "--seek", "1", "--seek", "2"],
            ["play", "--device", "--generate-completion-script"], ["play", "-qx"], ["ls", "one"],
        ] {
            #expect(Play.parsedQuickly(line) == nil, "\(line)")
        }
    }

    /// The quick path knows every option `play` and `record` have: one added to the command
    /// and not to its tables would send every command line with it to argument-parser, and
    /// one the tables have that the command lost would be read here only.
    @Test func tablesNameEveryOptionOfPlayAndRecord() {
        let tables: [(ParsableCommand.Type, [String], [String])] = [
            (Play.self, Play.quickFlags, Play.quickValued), (Record.self, Record.quickFlags, Record.quickValued),
        ]
        for (command, flags, valued) in tables {
            let options = ArgumentCheck.Options(command)
            let help = options.flags.union(options.valued).subtracting(["-h", "--help"])
            // The detached child's flag is private: the help does not list it.
            #expect(help == Set(flags + valued + ["-q"]).subtracting(["--background-child"]), "\(command)")
            #expect(options.valued == Set(valued), "\(command)")
        }
    }

    /// One option, flag or word of a `record` line, as the words it is written with.
    static func recordPiece(_ rng: inout SeededRandom) -> [String] {
        switch rng.next() % 10 {
        case 0, 1:
            let flag = pick(Record.quickFlags + ["-q", "-pq", "-qp"], &rng)
            return rng.next() % 8 == 0 ? [flag + "=" + pick(values, &rng)] : [flag]
        case 2, 3, 4:
            let option = pick(Record.quickValued, &rng)
            let value: String
            switch option {
            case "--format": value = pick(["opus", "flac", "wav", "vorbis", "mp3", "ogg", "WAV", ""], &rng)
            case "--encoding": value = pick(["s16", "s32", "f32", "u8", ""], &rng)
            case "--rate", "--channels": value = pick(["48000", "16000", "1", "2", "0", "-1", "x", "1.5", ""], &rng)
            case "--progress": value = pick(["tty", "json", "none", "fast", ""], &rng)
            default: value = pick(values, &rng)
            }
            return rng.next() % 3 == 0 ? [option + "=" + value] : [option, value]
        case 5, 6: return [pick(positionals + ["-p"], &rng)]
        case 7: return [pick(unknown, &rng)]
        case 8: return ["--", pick(positionals, &rng)]
        default:
            return [pick(["-h", "--help", "--generate-completion-script", "--generate-completion-script=bash"], &rng)]
        }
    }

    @Test func recordGivesWhatArgumentParserGivesOrNothing() throws {
        var rng = SeededRandom(seed: Self.seed)
        let (quick, fellBack) = try Self.compare(
            4000, lines: { Self.commandLine("record", &rng, piece: Self.recordPiece) }, quick: Record.parsedQuickly)
        #expect(quick > 400, "read quickly: \(quick)")
        #expect(fellBack > 400, "left to argument-parser: \(fellBack)")
    }

    @Test func recordShapesAreReadQuickly() throws {
        let bench = try #require(
            Record.parsedQuickly(["record", "/take", "--device", "monitor", "--format", "wav", "--duration", "20"]))
        #expect(bench.path == "/take" && bench.device == "monitor" && bench.format == .wav && bench.duration == "20")
        let voiced = try #require(
            Record.parsedQuickly(["record", "-p", "A/b", "--start-on-voice", "--stop-on-silence=3", "--rate", "16000"]))
        #expect(
            voiced.parents && voiced.voice.startOnVoice && voiced.voice.stopOnSilence == "3" && voiced.rate == 16000)
        for line in [
            ["record", "--help"], ["record", "a", "b"], ["record", "--format", "aac"], ["record", "--rate", "x"],
            ["record", "--duration"], ["record", "-px"], ["record", "--nope"],
        ] {
            #expect(Record.parsedQuickly(line) == nil, "\(line)")
        }
    }

    /// One of the changes and reads read quickly: its quick parse and what its command lines are
    /// made of.
    struct QuickCase: Sendable, CustomStringConvertible {
        let name: String
        let quick: @Sendable ([String]) -> ParsableCommand?
        let flags: [String], valued: [String]
        /// Its positional words, those that start with `-` included.
        let words: [String]
        var description: String { name }

        init<Command: QuickCommand>(_ command: Command.Type, _ name: String, words: [String] = pathWords) {
            self.name = name
            quick = { Command.parsedQuickly($0) }
            flags = Command.quickFlags
            valued = Command.quickValued
            self.words = words
        }
    }

    static let pathWords = [
        "one", "/Work/one", "@3f2a", "-dash", "", "help", "1", "-10", "--", "--store", "-p", "a b", "-",
    ]

    static let quickCases = [
        QuickCase(
            Tag.self, "tag",
            words: [
                "one", "/Work/one", "@3f2a", "+t", "+work", "-draft", "-t", "-5", "-1:00", "-quick", "-hello", "-p",
                "-", "", "+", "--", "-é", "a b", "-x y", "help", "--store", "-tag-x", "-d=1", "--json", "-Q", "-H",
            ]),
        QuickCase(MakeFolder.self, "mkdir"), QuickCase(Move.self, "mv"), QuickCase(Note.self, "note"),
        // The reads measured against `--version`.
        QuickCase(PrintFolder.self, "pwd"), QuickCase(Status.self, "status"), QuickCase(List.self, "ls"),
        QuickCase(Info.self, "info"),
    ]

    static let unknownOfQuickCases = [
        "--nope", "-x", "-qq", "-qd", "-dq", "-pq", "-qp", "-pp", "-pj", "--Store", "--version", "-help", "--json=1",
        "--quiet=", "-p=1", "--nope=1", "-ht", "-th", "--set", "--edit", "-e", "-j", "---", "--stor", "-lq", "-ql",
        "-ll", "-L", "--long", "--reverse=1", "--sort", "-r",
    ]

    /// One option, flag or word of a changing command's line, as the words it is written with.
    static func piece(of command: QuickCase, _ rng: inout SeededRandom) -> [String] {
        switch rng.next() % 12 {
        case 0, 1:
            let flag = pick(command.flags + ["-q"], &rng)
            return rng.next() % 8 == 0 ? [flag + "=" + pick(values, &rng)] : [flag]
        case 2, 3:
            let option = pick(command.valued, &rng)
            let value =
                option == "--sort"
                ? pick(["name", "date", "duration", "size", "Name", "", "-l", "--reverse", "bytes"], &rng)
                : pick(values + ["b", "-", "text with spaces"], &rng)
            return rng.next() % 3 == 0 ? [option + "=" + value] : [option, value]
        case 4, 5, 6, 7: return [pick(command.words, &rng)]
        case 8: return [pick(unknownOfQuickCases, &rng)]
        case 9: return ["--", pick(command.words, &rng)]
        case 10: return [pick(command.words, &rng), pick(command.words, &rng)]
        default:
            return [pick(["-h", "--help", "--generate-completion-script", "--generate-completion-script=bash"], &rng)]
        }
    }

    static func commandLine(of command: QuickCase, _ rng: inout SeededRandom) -> [String] {
        var words: [String] = []
        if rng.next() % 5 == 0 { words += pick([["--store", "/tmp/s"], ["-q"], ["--store=/tmp/s"]], &rng) }
        words.append(command.name)
        for _ in 0..<Int(rng.next() % 7) { words += piece(of: command, &rng) }
        return words
    }

    @Test(arguments: quickCases)
    func quickCaseGivesWhatArgumentParserGivesOrNothing(_ command: QuickCase) throws {
        var rng = SeededRandom(seed: Self.seed)
        let (quick, fellBack) = try Self.compare(
            4000, lines: { Self.commandLine(of: command, &rng) }, quick: command.quick)
        // Both ways are taken (`mv` and `note` need a number of paths most lines do not have).
        #expect(quick > 200, "read quickly: \(quick)")
        #expect(fellBack > 400, "left to argument-parser: \(fellBack)")
    }

    /// The shapes the quick path is for are read by it, with their words as typed.
    @Test func commonChangesAreReadQuickly() throws {
        let tag = try #require(Tag.parsedQuickly(Self.prepared(["--store", "/s", "tag", "/x", "+t", "-draft"])))
        #expect(tag.global.store == "/s" && tag.words == ["/x", "+t", "-draft"] && !tag.output.json)
        let ended = try #require(Tag.parsedQuickly(["tag", "x", "--json", "--", "-draft", "--"]))
        #expect(ended.words == ["x", "--", "-draft", "--"] && ended.output.json)
        let mkdir = try #require(MakeFolder.parsedQuickly(["mkdir", "-p", "a", "b", "--", "-c"]))
        #expect(mkdir.parents && mkdir.paths == ["a", "b", "-c"])
        let move = try #require(Move.parsedQuickly(["mv", "-q", "a", "b", "c"]))
        #expect(move.global.quiet && move.paths == ["a", "b", "c"])
        let note = try #require(Note.parsedQuickly(["note", "x", "--set", "-"]))
        #expect(note.path == "x" && note.set == "-" && !note.edit)
        let valued = try #require(Note.parsedQuickly(["note", "--set", "--edit", "x"]))
        #expect(valued.set == "--edit" && !valued.edit)
        let list = try #require(List.parsedQuickly(["ls", "-l", "/Work", "--sort=date", "--reverse"]))
        #expect(list.long && list.paths == ["/Work"] && list.sort == .date && list.reverse && !list.output.json)
        #expect(try #require(List.parsedQuickly(["ls", "a", "b"])).paths == ["a", "b"])
        let info = try #require(Info.parsedQuickly(Self.prepared(["-q", "info", "--json", "--", "-x"])))
        #expect(info.global.quiet && info.output.json && info.path == "-x")
        #expect(try #require(PrintFolder.parsedQuickly(["pwd", "--json"])).output.json)
        #expect(try #require(Status.parsedQuickly(["status", "--store=/s"])).global.store == "/s")
        for line in [
            ["tag", "x", "-quick"], ["tag", "x", "-th"], ["tag", "x", "--nope"], ["tag", "x", "-d=1"],
            ["tag", "x", "--json=1"], ["tag", "--help"], ["mkdir"], ["mkdir", "-pq", "x"], ["mkdir", "-p", "-p", "x"],
            ["mkdir", "-x"], ["mv", "a"], ["mv", "a", "-b"], ["note"], ["note", "a", "b"], ["note", "a", "--set"],
            ["note", "a", "--set", "1", "--set", "2"], ["tag", "--store", "--", "x", "+t"], ["pwd", "x"],
            ["status", "--nope"], ["ls", "--sort", "bytes"], ["ls", "-lr"], ["info"],
            ["info", "a", "b"],
        ] {
            let quick = Recnotes.parsedQuickly(line)
            #expect(quick == nil, "\(line)")
        }
    }

    /// The quick path knows every option of each changing command: one added to the command
    /// and not to its tables would send every command line with it to argument-parser, and one
    /// the tables have that the command lost would be read here only.
    @Test func tablesNameEveryOptionOfTheChanges() {
        let tables: [(ParsableCommand.Type, [String], [String])] = [
            (Tag.self, Tag.quickFlags, Tag.quickValued),
            (MakeFolder.self, MakeFolder.quickFlags, MakeFolder.quickValued),
            (Move.self, Move.quickFlags, Move.quickValued),
            (Note.self, Note.quickFlags, Note.quickValued),
            (PrintFolder.self, PrintFolder.quickFlags, PrintFolder.quickValued),
            (Status.self, Status.quickFlags, Status.quickValued),
            (List.self, List.quickFlags, List.quickValued),
            (Info.self, Info.quickFlags, Info.quickValued),
        ]
        for (command, flags, valued) in tables {
            let options = ArgumentCheck.Options(command)
            let help = options.flags.union(options.valued).subtracting(["-h", "--help"])
            #expect(help == Set(flags + valued + ["-q"]), "\(command)")
            #expect(options.valued == Set(valued), "\(command)")
        }
    }
}

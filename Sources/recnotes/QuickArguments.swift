import ArgumentParser

/// A command line of the shapes people type, read without argument-parser: each option once,
/// by its long name (`--seek 5`, `--seek=5`), `-q`, or a short flag of the table (`-p`); a
/// valued option's value the next word whatever it starts with, as `.unconditional` parsing
/// reads it, `--` aside; the positional words (`Positionals` says how many, and whether words
/// that start with `-` are among them); `--` before positional words. Anything else (help,
/// completion requests, an unknown or repeated option, a group of short flags, a missing value,
/// an empty word) is not read here: the caller falls back to argument-parser, which answers it
/// as always.
///
/// Why: building a command's option set is reflection over its property wrappers and runtime
/// look-ups of their protocol conformances, each a scan of the binary's conformance records,
/// the largest part of a one-second `play`'s start, a twentieth of a `tag` or
/// `mkdir` on a 10,000-item store and a fifth of a `pwd`. `Recnotes.parsedQuickly` names the commands read
/// here; `QuickParseTests` checks that each gives what argument-parser gives.
struct QuickArguments {
    /// How a command takes its positional words.
    enum Positionals {
        /// `play [PATH]`, `note PATH`.
        case atMostOne
        /// `mkdir PATH...`, `mv SRC... DEST`.
        case any
        /// `tag PATH... +TAG -TAG` (`@Argument(parsing: .allUnrecognized)`): as argument-parser
        /// leaves them, a `-draft` that is not an option is a word, and so is `--` and every
        /// word after it, in order (the command reads `--` itself).
        case dashWords
    }

    /// The command's option names, with their dashes (`--quiet` stands for `-q` too).
    /// Arrays, not sets: a `Set<String>`'s first use looks up String's `Hashable`
    /// conformance in the binary's records, which is what this is here to avoid.
    let flagNames: [String], valuedNames: [String]
    /// By the index of the name: whether each flag was given, and each valued option's value.
    private var flags: [Bool]
    private var values: [String?]
    private(set) var positionals: [String] = []
    /// The one positional word of a `.atMostOne` command, if given.
    var positional: String? { positionals.first }

    /// Reads `arguments` (the command's name already dropped); nil for anything but the
    /// shapes above.
    init?(
        _ arguments: ArraySlice<String>, flags flagNames: [String], valued valuedNames: [String],
        positionals kind: Positionals = .atMostOne
    ) {
        self.flagNames = flagNames
        self.valuedNames = valuedNames
        flags = Array(repeating: false, count: flagNames.count)
        values = Array(repeating: nil, count: valuedNames.count)
        // argument-parser looks for these anywhere, an option's value included.
        if arguments.contains(where: Self.isBuiltIn) { return nil }
        var index = arguments.startIndex
        var endOfOptions = false
        while index < arguments.endIndex {
            let word = arguments[index]
            index += 1
            if endOfOptions || !word.hasPrefix("-") {
                guard !word.isEmpty, kind != .atMostOne || positionals.isEmpty else { return nil }
                positionals.append(word)
                continue
            }
            if word == "--" {
                endOfOptions = true
                if kind == .dashWords { positionals.append(word) }
                continue
            }
            let equals = word.firstIndex(of: "=")
            let name = word == "-q" ? "--quiet" : equals.map { String(word[..<$0]) } ?? word
            if let flag = flagNames.firstIndex(of: name) {
                guard equals == nil, !flags[flag] else { return nil }
                flags[flag] = true
            } else if let option = valuedNames.firstIndex(of: name), name.hasPrefix("--") {
                guard values[option] == nil else { return nil }
                if let equals {
                    let value = word[word.index(after: equals)...]
                    guard !value.isEmpty else { return nil }
                    values[option] = String(value)
                } else {
                    // argument-parser takes a `--` as the value and still ends the options at it.
                    guard index < arguments.endIndex, arguments[index] != "--" else { return nil }
                    values[option] = arguments[index]
                    index += 1
                }
            } else if kind == .dashWords, isDashWord(word) {
                positionals.append(word)
            } else {
                return nil
            }
        }
    }

    /// A word that argument-parser leaves to a `.allUnrecognized` argument for certain: one dash
    /// and no `=` (`-draft`), none of whose letters is a short option of the command (`q`,
    /// `h`, or one in the tables), which argument-parser would take out of it as out of a group
    /// of short flags (`-quick`).
    private func isDashWord(_ word: String) -> Bool {
        guard !word.hasPrefix("--"), word.count > 1, !word.contains("=") else { return false }
        return !word.dropFirst().contains { letter in
            letter == "q" || letter == "h"
                || flagNames.contains { $0.count == 2 && !$0.hasPrefix("--") && $0.last == letter }
        }
    }

    /// `command` as argument-parser would hand it over, or nil: it validates each option
    /// group (`validateGroups`), then the command, after decoding, and a failure is its to
    /// report.
    static func validated<Command: ParsableCommand>(
        _ command: Command, _ validateGroups: (inout Command) throws -> Void
    ) -> Command? {
        var command = command
        do {
            try validateGroups(&command)
            try command.validate()
            return command
        } catch {
            return nil
        }
    }

    /// Words argument-parser answers itself: help, `--version`, the completion machinery and
    /// its JSON description of the commands.
    private static func isBuiltIn(_ word: String) -> Bool {
        guard word.hasPrefix("-") else { return false }
        return word == "-h" || word == "-help" || word == "--help" || word == "--version"
            || word.hasPrefix("--generate-completion-script") || word.hasPrefix("---")
            || word.hasPrefix("--experimental")
    }

    /// Whether the flag was given; `name` must be one of the table's.
    func flag(_ name: String) -> Bool { flags[flagNames.firstIndex(of: name)!] }

    /// The option's value, if it was given; `name` must be one of the table's.
    func value(_ name: String) -> String? { values[valuedNames.firstIndex(of: name)!] }

    /// The option's value converted as argument-parser converts it (`ExpressibleByArgument`):
    /// `.some(nil)` when it was not given, nil when it was and does not convert.
    func converted<Value: ExpressibleByArgument>(_ name: String) -> Value?? {
        guard let text = value(name) else { return .some(nil) }
        return Value(argument: text).map { .some($0) }
    }

    /// `--store` and `-q`/`--quiet`, which every table has.
    var global: GlobalOptions {
        var global = GlobalOptions()
        global.store = value("--store")
        global.quiet = flag("--quiet")
        return global
    }

    /// `--background`, `--log`, `--json` and the detached child's flag, in the tables of
    /// `record` and `play`.
    var background: BackgroundOptions {
        var detached = BackgroundOptions()
        detached.background = flag("--background")
        detached.log = value("--log")
        detached.json = flag("--json")
        detached.child = flag("--background-child")
        return detached
    }

    /// `--json`, in the tables of the commands that take it.
    var output: JSONOption {
        var output = JSONOption()
        output.json = flag("--json")
        return output
    }
}

/// A command with `--store`, `-q` and `--json` and no option group beside them (the changes and
/// the reads), read quickly through `parsedQuickly(_:name:positionals:_:)`.
protocol QuickCommand: ParsableCommand {
    var global: GlobalOptions { get set }
    var output: JSONOption { get set }
    /// The command's option names as `QuickArguments` takes them; `QuickParseTests` checks
    /// them against the command's help.
    static var quickFlags: [String] { get }
    static var quickValued: [String] { get }
    /// The command as people type it, or nil for argument-parser to parse (each command
    /// through the extension's `parsedQuickly(_:name:positionals:_:)`).
    static func parsedQuickly(_ arguments: [String]) -> Self?
}

extension QuickCommand {
    /// The command named `name` read from `arguments` with its tables: the global options and
    /// `--json` set here, the rest by `read`, which returns false for a line it leaves to
    /// argument-parser; then validated as argument-parser validates.
    static func parsedQuickly(
        _ arguments: [String], name: String, positionals: QuickArguments.Positionals = .atMostOne,
        _ read: (inout Self, QuickArguments) -> Bool
    ) -> Self? {
        guard arguments.first == name,
            let words = QuickArguments(
                arguments.dropFirst(), flags: quickFlags, valued: quickValued, positionals: positionals)
        else { return nil }
        var command = Self()
        command.global = words.global
        command.output = words.output
        guard read(&command, words) else { return nil }
        return QuickArguments.validated(command) {
            try $0.global.validate()
            try $0.output.validate()
        }
    }
}

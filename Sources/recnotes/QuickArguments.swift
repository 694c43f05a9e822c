import ArgumentParser

/// A command line of the shapes people type, read without argument-parser: each option once,
/// by its long name (`--seek 5`, `--seek=5`) or `-q`; a valued option's value the next word
/// whatever it starts with, as `.unconditional` parsing reads it, `--` aside; at most one
/// positional word; `--` before positional words. Anything else (help, completion requests,
/// an unknown or repeated option, a group of short flags, a missing value) is not read here:
/// the caller falls back to argument-parser, which answers it as always.
///
/// Why: building a command's option set is reflection over its property wrappers and runtime
/// look-ups of their protocol conformances, each a scan of the binary's conformance records,
/// the largest part of a one-second `play`'s start (issue 22). `Play.parsedQuickly` is the
/// one user; `QuickParseTests` checks that it gives what argument-parser gives.
struct QuickArguments {
    /// The command's option names, with their dashes (`--quiet` stands for `-q` too).
    /// Arrays, not sets: a `Set<String>`'s first use looks up String's `Hashable`
    /// conformance in the binary's records, which is what this is here to avoid.
    let flagNames: [String], valuedNames: [String]
    /// By the index of the name: whether each flag was given, and each valued option's value.
    private var flags: [Bool]
    private var values: [String?]
    private(set) var positional: String?

    /// Reads `arguments` (the command's name already dropped); nil for anything but the
    /// shapes above.
    init?(_ arguments: ArraySlice<String>, flags flagNames: [String], valued valuedNames: [String]) {
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
                guard positional == nil, !word.isEmpty else { return nil }
                positional = word
                continue
            }
            if word == "--" {
                endOfOptions = true
                continue
            }
            let equals = word.firstIndex(of: "=")
            let name = word == "-q" ? "--quiet" : equals.map { String(word[..<$0]) } ?? word
            guard name.hasPrefix("--") else { return nil }
            if let flag = flagNames.firstIndex(of: name) {
                guard equals == nil, !flags[flag] else { return nil }
                flags[flag] = true
            } else if let option = valuedNames.firstIndex(of: name) {
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
            } else {
                return nil
            }
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
}

import ArgumentParser
import RecCore
import RecSystem

/// What argument-parser does not do for us: a word that looks like options but is not
/// (`-dash.wav`, which it would read as `-d -a -s -h` and answer with the help), and its
/// messages said in recnotes' voice (`recnotes: <what>: <why>`). An option's value is the
/// word after it, whatever it starts with, as getopt has it (`--at -10s`, `--name -dash`):
/// every `@Option` is declared `parsing: .unconditional` (DashValueTests checks them all),
/// and this check skips the word after a valued option.
/// A command whose arguments include words that start with `-` (`tag PATH -draft`); it reads
/// them itself, and `ArgumentCheck` leaves them alone.
protocol TakesDashWords {}

enum ArgumentCheck {
    /// The options a command takes, read from its own help (hidden ones included).
    struct Options {
        /// Names with their dashes: `-q`, `--quiet`.
        var flags: Set<String> = []
        var valued: Set<String> = []

        init(_ command: ParsableCommand.Type) {
            for line in command.helpMessage(includeHidden: true, columns: 10_000).split(separator: "\n") {
                // Option lines start with two spaces and a dash: `  -q, --quiet`, `  --to <folder>`.
                guard line.hasPrefix("  -") else { continue }
                let words = line.drop { $0 == " " }.split(separator: " ", omittingEmptySubsequences: false)
                var index = 0
                while index < words.count, words[index].hasPrefix("-") {
                    let shown = words[index].hasSuffix(",") ? words[index].dropLast() : words[index]
                    let takesValue = index + 1 < words.count && words[index + 1].hasPrefix("<")
                    // A flag and its inversion are one entry: `--transcribe/--no-transcribe`.
                    for name in shown.split(separator: "/").map(String.init) {
                        if takesValue { valued.insert(name) } else { flags.insert(name) }
                    }
                    index += takesValue ? 2 : 1
                    if index < words.count, words[index].isEmpty { break }
                }
            }
        }
    }

    /// The command the arguments name (`trash restore` → RestoreTrash) and its path.
    static func command(for arguments: [String]) -> (type: ParsableCommand.Type, names: [String]) {
        var current: ParsableCommand.Type = Recnotes.self
        var names: [String] = []
        var skipNext = false
        for word in arguments {
            // No word names a command below one without subcommands (`tag`): reading its options
            // to skip their values would generate its help for nothing, most of the cost of a
            // `tag X -draft` after `--store`.
            if current.configuration.subcommands.isEmpty { break }
            if skipNext {
                skipNext = false
                continue
            }
            if word == "--" { break }
            if word.hasPrefix("-") {
                skipNext = Options(current).valued.contains(word)
                continue
            }
            guard let sub = current.configuration.subcommands.first(where: { $0._commandName == word }) else { break }
            current = sub
            names.append(word)
        }
        // `sync -q`: what follows a command with a default subcommand is that subcommand's.
        while let fallback = current.configuration.defaultSubcommand { current = fallback }
        return (current, names)
    }

    /// Refuses a word that starts with one dash, is longer than one option, and is not a
    /// group of the command's flags: a file name, most likely.
    static func check(_ arguments: [String]) throws {
        // Most command lines have no such word, and reading a command's options means
        // generating its help (a few milliseconds of every start): only then is it done.
        guard arguments.prefix(while: { $0 != "--" }).contains(where: isShortOptionLike) else { return }
        let (command, _) = command(for: arguments)
        // `tag PATH -draft`: there a dash word is the command's own, not an option.
        if command is TakesDashWords.Type { return }
        let options = Options(command)
        var skipNext = false
        for word in arguments {
            if skipNext {
                skipNext = false
                continue
            }
            if word == "--" { return }
            guard word.hasPrefix("-"), word != "-" else { continue }
            if word.hasPrefix("--") {
                skipNext = !word.contains("=") && options.valued.contains(word)
                continue
            }
            if options.valued.contains(word) {
                skipNext = true
                continue
            }
            // -5s, -1:00: times from the end, which some options and arguments take.
            if let second = word.dropFirst().first, second.isNumber { continue }
            if word.dropFirst().allSatisfy({ options.flags.contains("-\($0)") }) { continue }
            throw RecError.usage(
                word, "unknown option; a file or name that starts with - is written ./\(word) or after --")
        }
    }

    /// `-x`, `-dash.wav`: one dash, then something that is not a digit (`-5s` is a time).
    private static func isShortOptionLike(_ word: String) -> Bool {
        guard word.hasPrefix("-"), !word.hasPrefix("--"), let second = word.dropFirst().first else { return false }
        return !second.isNumber
    }

    /// argument-parser's message for a usage error, said as `<what>: <why>`.
    static func voice(_ message: String, arguments: [String]) -> String {
        let names = command(for: arguments).names
        let help = names.isEmpty ? "'recnotes help'" : "'recnotes \(names.joined(separator: " ")) --help'"
        var text = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
        if text.hasSuffix(".") { text.removeLast() }
        func quoted(_ s: Substring) -> [String] {
            s.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
                String($0.element)
            }
        }
        // The value 'size' is invalid for '--sort <sort>'. Please provide one of 'name', 'date' or 'duration'
        if text.hasPrefix("The value '") {
            let parts = text.split(
                separator: ". Please provide one of ", maxSplits: 1, omittingEmptySubsequences: false
            ).map(String.init)
            let head = quoted(Substring(parts[0]))
            guard head.count >= 2 else { return text }
            let value = head[0]
            let option = head[1].split(separator: " ").first.map(String.init) ?? head[1]
            let placeholder = head[1].split(separator: " ").dropFirst().joined(separator: " ")
            if parts.count > 1 {
                let choices = quoted(Substring(parts[1]))
                let list =
                    choices.count > 1
                    ? choices.dropLast().joined(separator: ", ") + " or " + choices.last! : choices.joined()
                return "\(option) \(value): must be \(list)"
            }
            if let colon = parts[0].firstRange(of: "': ") {
                return "\(option) \(value): \(parts[0][colon.upperBound...])"
            }
            return "\(option) \(value): not a valid \(placeholder.isEmpty ? "value" : placeholder)"
        }
        if text.hasPrefix("Missing value for '") {
            let spec = quoted(Substring(text)).first ?? ""
            let parts = spec.split(separator: " ", maxSplits: 1)
            return "\(parts.first ?? ""): needs a value" + (parts.count > 1 ? " (\(parts[1]))" : "")
        }
        if text.hasPrefix("Unknown option '") {
            return "\(quoted(Substring(text)).first ?? ""): unknown option; see \(help)"
        }
        if text.hasPrefix("Unexpected argument '") || text.contains("unexpected arguments: '") {
            let word = quoted(Substring(text)).first ?? ""
            if names.isEmpty { return "\(word): not a recnotes command; see 'recnotes help'" }
            return "\(word): unexpected argument; see \(help)"
        }
        if text.hasPrefix("Missing expected argument '") {
            return "\(names.last ?? "recnotes"): missing \(quoted(Substring(text)).first ?? "an argument"); see \(help)"
        }
        // Our own validate() messages: "--keep cannot be combined with --format".
        if text.hasPrefix("-"), let space = text.firstIndex(of: " ") {
            return "\(text[..<space]): \(text[text.index(after: space)...])"
        }
        let subject = names.last ?? "recnotes"
        return text.hasPrefix(subject + " ")
            ? "\(subject): \(text.dropFirst(subject.count + 1))" : "\(subject): \(text)"
    }
}

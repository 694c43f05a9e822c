import ArgumentParser
import RecCore
import RecStore
import RecSync

#if canImport(Glibc)
    import Glibc
#endif

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "The store directory.",
            discussion: "Defaults to $RECNOTES_HOME, then $XDG_DATA_HOME/recnotes, then ~/.local/share/recnotes.",
            valueName: "dir"))
    var store: String?

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        Output.quiet = quiet
    }

    /// Opens both stores and prints whatever warnings loading them produced.
    /// Every command first recovers a recording whose process died (unless `recover` is
    /// false, for fsck, which reports it first). When the store cannot be written for it
    /// (a full disk), the command goes on without and says why, once: reading works as on
    /// a read-only store, and a change fails with its own error.
    func openLibrary(recover: Bool = true) throws -> Library {
        let location = try location()
        SyncRun.restoreAfterKilledSync(location)
        let library = try Library(location: location)
        Self.opened = library
        for warning in library.warnings { Terminal.warning(warning) }
        library.documents.summary = Self.commandSummary(CommandLine.arguments)
        // A read-only store cannot be repaired here; fsck reports what it finds.
        if recover, !library.isReadOnly {
            do {
                if let note = try library.recoverInterruptedRecording() { Terminal.warning(note) }
            } catch let waiting as RecoveryWaits {
                Terminal.warning(waiting.description)
            }
        }
        return library
    }

    /// The library for a reading command: read through the reads' table when it can answer
    /// (`Library.reading`: `paths` are the paths the command resolves, `listing` that it
    /// lists a folder's children), else the whole store; once the command has succeeded (a
    /// failed command changes no file) the table is kept for the next read.
    func openLibrary(reading paths: [String?], listing: Bool = false, recover: Bool = true) throws -> Library {
        let location = try location()
        SyncRun.restoreAfterKilledSync(location)
        guard let library = Library.reading(location, paths: paths, listing: listing) else {
            let library = try openLibrary(recover: recover)
            Self.keepsTable = true
            return library
        }
        Self.opened = library
        Self.keepsTable = true
        for warning in library.warnings { Terminal.warning(warning) }
        return library
    }

    /// The library for a command that changes only the annotations of the items at `paths`
    /// (`tag`, `note --set`): a few items read through the reads' table when it can answer
    /// (`Library.changing`; the change is spliced into `store.json` and the table and
    /// `find`'s index patched), else the whole store, after which the table is kept for the
    /// next such command. `into`: the destinations of `mkdir` and `mv`, whose changes are
    /// spliced the same way.
    func openLibrary(changing paths: [String], into destinations: [String] = []) throws -> Library {
        let location = try location()
        SyncRun.restoreAfterKilledSync(location)
        guard let library = Library.changing(location, paths: paths, into: destinations) else {
            let library = try openLibrary()
            Self.keepsTable = true
            return library
        }
        Self.opened = library
        for warning in library.warnings { Terminal.warning(warning) }
        library.documents.summary = Self.commandSummary(CommandLine.arguments)
        return library
    }

    /// The store this run opened (the main thread's, set once by `openLibrary`).
    nonisolated(unsafe) private static var opened: Library?
    /// Whether this is a reading command: the reads' table is kept after it succeeds
    /// (`Library.keepReadTable`).
    nonisolated(unsafe) private static var keepsTable = false

    /// Runs a command so that what it throws names what the user knows, not a file inside
    /// the store (`Library.inUserTerms`): whatever path an error took to get here.
    static func inUserTerms(_ body: () throws -> Void) throws {
        do { try body() } catch { throw opened?.inUserTerms(error) ?? error }
        if keepsTable { opened?.keepReadTable() }
    }

    func location() throws -> StoreLocation {
        try StoreLocation.resolve(explicit: store)
    }

    /// The command line as `history` shows it: quoted where needed, without `--store`, and
    /// as the user typed it: a `--background` job's detached child shows `--background`, not
    /// its internal flag.
    static func commandSummary(_ arguments: [String]) -> String {
        var words: [String] = ["recnotes"]
        var skipNext = false
        var endOfOptions = false
        for word in arguments.dropFirst() {
            if skipNext {
                skipNext = false
                continue
            }
            if word == "--" { endOfOptions = true }
            if !endOfOptions && word == "--store" {
                skipNext = true
                continue
            }
            if !endOfOptions && word.hasPrefix("--store=") { continue }
            if !endOfOptions && word == Background.childFlag {
                words.append("--background")
                continue
            }
            let plain = !word.isEmpty && word.unicodeScalars.allSatisfy(isPlain)
            words.append(
                plain
                    ? word
                    : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
                        + "'")
        }
        // Not `joined(separator:)`: its first call looks up an associated type's witness
        // through the binary's conformance records, which every command would pay.
        var line = ""
        for word in words {
            if !line.isEmpty { line += " " }
            line += word
        }
        return line
    }

    /// A character `history` shows unquoted: a letter or digit of any script, or one of
    /// `-_./@:%+=,`. ASCII is answered without the Unicode property tables, whose first look-up
    /// would cost every command that prints a history line.
    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "/", "@", ":", "%", "+", "=", ",": return true
            default: return false
            }
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }
}

/// `--json` for commands that print data.
struct JSONOption: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of text (keys are listed in recnotes(1)).")
    var json = false
}

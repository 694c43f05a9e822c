import ArgumentParser
import RecCore
import RecSync
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "One library on every machine, through git and git-annex.",
        discussion: """
            git carries the documents (store.json and transcripts/), git-annex the audio. \
            'recnotes sync init' makes the store directory a repository first. With no \
            subcommand, syncs with the REMOTEs named (all remotes when none is): commits what \
            changed here, fetches, merges (nothing a person did on either machine is lost; \
            each conflict resolved is named), pushes, then moves audio both ways with git-annex \
            unless --no-content. The store lock is held only while committing and merging, \
            never while the network is used. A second sync of the same store refuses while one \
            runs. Each sync that moved anything is a history entry, which undo does not take back.
            """,
        subcommands: [SyncNow.self, SyncInit.self, SyncRemote.self, SyncClone.self, SyncMergeDriver.self],
        defaultSubcommand: SyncNow.self
    )
}

/// `recnotes sync [REMOTE…]`, the default subcommand of sync: arguments that name no
/// subcommand come here.
struct SyncNow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now",
        abstract: "Sync with the remotes named, or all of them (the default: 'recnotes sync [REMOTE…]').",
        discussion: """
            Commits what changed here, fetches, merges, pushes, then moves audio both ways \
            unless --no-content, and prints one summary: items received and sent, audio moved, \
            each conflict resolved. On a terminal, while audio moves, one line on standard \
            error counts the files and bytes moved of those to move ('audio: 3/12 files, 1.2 MB \
            / 4.5 MB') and names the remote, redrawn in place and cleared at the end; not on a \
            terminal, or with --json or --quiet, nothing is added to standard error. A remote \
            whose store.json a newer recnotes wrote is refused in one line, with nothing changed \
            here: upgrade recnotes on this machine. A remote that cannot be reached (a disk \
            unplugged, a host down) does not stop the others: what changed here is committed, \
            every remote reached is synced, the summary names each one not reached, and the \
            exit status is 75; the next sync tries it again.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    @Flag(name: .customLong("no-content"), help: "Sync the documents only; leave the audio where it is.")
    var noContent = false

    @Argument(help: ArgumentHelp("Remotes to sync with (default: all).", valueName: "remote"))
    var remotes: [String] = []

    func run() throws {
        let live = TransferLine.observer(json: output.json)
        // Ctrl-C (or SIGTERM) on a terminal: the live line goes and stays gone, one line says
        // what was left, then the process ends (git and git-annex, in the terminal's process
        // group, get the signal too); whatever the sync had not done, the next one does.
        // Set up before any thread starts, as SignalWatcher needs.
        let onTerminal = Terminal.isTTY(STDIN_FILENO) || Terminal.isTTY(STDERR_FILENO)
        let signals = onTerminal ? SignalWatcher() : nil
        signals?.onSignal { signal in
            TransferLine.clearOnSignal()
            Terminal.error("sync: interrupted; the next sync finishes it")
            if signal == SIGINT { _exit(130) }
            SignalWatcher.end(by: signal)
        }
        defer { withExtendedLifetime(signals) {} }
        let report: SyncRun.Report
        do {
            defer { live.line?.clear() }
            report = try SyncRun.run(
                global.location(), remotes: remotes, content: !noContent, observer: live.observer)
        }
        if output.json {
            print(report.json)
        } else if !Output.quiet {
            for line in report.lines { print(line) }
        }
        if report.audioIn.failed + report.audioOut.failed > 0 { throw ExitCode(1) }
        if let unreached = report.unreachedError { throw unreached }
    }
}

struct SyncRemote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Add, list or remove the places this library syncs with (alone: list them).",
        subcommands: [SyncRemoteAdd.self, SyncRemoteList.self, SyncRemoteRemove.self],
        defaultSubcommand: SyncRemoteList.self
    )
}

struct SyncRemoteAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a remote: a path, ssh://host/path or host:path.",
        discussion: """
            A path that is missing or an empty directory becomes a bare git and git-annex \
            repository (a USB disk, an NFS share). An ssh remote must hold a repository already, \
            and is reached once to check. Refused, with nothing changed, for a name in use, a \
            path under a regular file or a directory that holds something else.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The remote's name, as sync and info show it.") var name: String
    @Argument(help: "Where it is: a path, ssh://host/path or host:path.") var url: String

    func run() throws {
        let git = try SyncRemotes.requireSetUp(global.location(), command: "sync remote add")
        let said = try SyncRemotes.add(git, name: name, url: url, currentDirectory: SyncRemotes.currentDirectory)
        for line in said where !Output.quiet { print("sync remote add: \(line)") }
    }
}

struct SyncRemoteList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the remotes: name and URL, one a line.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let git = try SyncRemotes.requireSetUp(global.location(), command: "sync remote list")
        let remotes = try SyncRemotes.list(git)
        if output.json {
            print(SyncRemotes.json(remotes))
        } else {
            for remote in remotes { print("\(remote.name)\t\(remote.url)") }
        }
    }
}

struct SyncRemoteRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Forget a remote (what it holds is not touched).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The remote's name.") var name: String

    func run() throws {
        let git = try SyncRemotes.requireSetUp(global.location(), command: "sync remote remove")
        try SyncRemotes.remove(git, name: name)
        if !Output.quiet { print("sync remote remove: removed remote '\(name)'") }
    }
}

struct SyncClone: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone",
        abstract: "Start the library on this machine from a remote.",
        discussion: """
            Clones URL into the store directory (--store, RECNOTES_HOME or the default), which \
            must not hold a library yet, and sets it up as 'sync init' does. The documents come \
            at once; the audio stays where it is until 'recnotes sync' or 'recnotes get' brings it.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("This machine's name, as merged notes and 'info' copies show it.", valueName: "machine"))
    var name: String?

    @Argument(help: "Where the library is: a path, ssh://host/path or host:path.") var url: String

    func run() throws {
        let said = try SyncSetup.clone(
            url: url, into: global.location(), machine: name, currentDirectory: SyncRemotes.currentDirectory)
        for line in said where !Output.quiet { print("sync clone: \(line)") }
    }
}

struct SyncInit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make the store directory a git and git-annex repository.",
        discussion: """
            Idempotent: does only what is not done yet and says what it did. Writes a .gitignore \
            of what never travels (the view state, cache/, lock files, the journal and undo/, \
            which stay per machine), a .gitattributes that gives audio/ to git-annex \
            (annex.largefiles) and store.json and transcripts/ to recnotes' merge, and names \
            this machine (git config recnotes.machine; --name, else the host name).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("This machine's name, as merged notes and 'info' copies show it.", valueName: "machine"))
    var name: String?

    func run() throws {
        let said = try SyncSetup.initialize(global.location(), machine: name)
        if said.isEmpty {
            if !Output.quiet { print("sync init: already set up") }
        } else {
            for line in said where !Output.quiet { print("sync init: \(line)") }
        }
    }
}

/// Plumbing: git's merge driver of store.json (`merge.recnotes.driver`, written by sync).
struct SyncMergeDriver: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-driver",
        abstract: "Plumbing: git's three-way merge of store.json (%O %A %B %P).",
        discussion: """
            Merges base, ours and theirs by recnotes' rules and writes the result over ours \
            atomically; each conflict it resolved is appended to $GIT_DIR/recnotes/merge-report.jsonl. \
            A file that is not a store, or a store of a newer version, is refused with nothing written. \
            With --transcript, the files are a recording's transcript (transcripts/<uuid>.json, or its \
            index <uuid>.txt): changed on both sides, the better one stays (an engine's beats the built-in \
            draft; otherwise the newer), reported as "transcript".
            """,
        shouldDisplay: false
    )

    @Argument(help: "The common ancestor (%O).") var base: String
    @Argument(help: "Ours, overwritten with the result (%A).") var ours: String
    @Argument(help: "Theirs (%B).") var theirs: String
    @Argument(help: "The file's path in the repository (%P).") var path: String?
    @Flag(help: "The files are a transcript (transcripts/**), not store.json.") var transcript = false

    func run() throws {
        // git sets GIT_DIR for drivers; it runs them at the top of the work tree.
        let gitDirectory = Environment.value("GIT_DIR") ?? ".git"
        if transcript {
            try TranscriptMerge.run(
                base: base, ours: ours, theirs: theirs, repositoryPath: path,
                report: gitDirectory + "/recnotes/merge-report.jsonl",
                oursName: MergeDriver.machineName(gitDirectory: gitDirectory) ?? "this machine",
                theirsName: MergeDriver.otherMachineName() ?? "other machine")
            return
        }
        try MergeDriver.run(
            base: base, ours: ours, theirs: theirs, report: gitDirectory + "/recnotes/merge-report.jsonl",
            oursName: MergeDriver.machineName(gitDirectory: gitDirectory) ?? "this machine",
            theirsName: MergeDriver.otherMachineName() ?? "other machine")
    }
}

extension Sync {
    /// `sync --help` and `help sync`: sync's own help, with the options and arguments of a
    /// plain `recnotes sync` (its default subcommand's), which argument-parser would show
    /// either alone (after `--store DIR`) or not at all.
    static func helpRequested(_ arguments: [String]) -> Bool {
        if arguments == ["help", "sync"] { return true }
        guard arguments.first == "sync", arguments.contains(where: { $0 == "--help" || $0 == "-h" }) else {
            return false
        }
        // `sync remote --help` is the subcommand's.
        return !arguments.dropFirst().contains { word in configuration.subcommands.contains { $0._commandName == word }
        }
    }

    static var help: String {
        let own = Recnotes.helpMessage(for: Sync.self).split(separator: "\n\n").map(String.init)
        let now = Recnotes.helpMessage(for: SyncNow.self).split(separator: "\n\n").map(String.init)
        var parts: [String] = []
        for part in own {
            if part.hasPrefix("USAGE: "), let usage = now.first(where: { $0.hasPrefix("USAGE: ") }) {
                parts.append(usage.replacing("recnotes sync now", with: "recnotes sync"))
                parts[parts.count - 1] += "\n       recnotes sync <subcommand>"
            } else if part.hasPrefix("OPTIONS:") {
                for section in now where section.hasPrefix("ARGUMENTS:") || section.hasPrefix("OPTIONS:") {
                    var trimmed = section
                    while trimmed.hasSuffix("\n") { trimmed.removeLast() }
                    parts.append(trimmed)
                }
            } else {
                parts.append(part)
            }
        }
        return parts.joined(separator: "\n\n")
    }
}

import ArgumentParser
import RecCore
import RecSync

struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "One library on every machine, through git and git-annex.",
        discussion: """
            git carries the documents (store.json and transcripts/), git-annex the audio. \
            'recnotes sync init' makes the store directory a repository first.
            """,
        subcommands: [SyncInit.self, SyncMergeDriver.self]
    )
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
                theirsName: "other machine")
            return
        }
        try MergeDriver.run(
            base: base, ours: ours, theirs: theirs, report: gitDirectory + "/recnotes/merge-report.jsonl",
            oursName: MergeDriver.machineName(gitDirectory: gitDirectory) ?? "this machine",
            theirsName: "other machine")
    }
}

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
        subcommands: [SyncInit.self]
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

    @Option(help: ArgumentHelp("This machine's name, as merged notes and 'info' copies show it.", valueName: "machine"))
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

import ArgumentParser
import RecCore

struct Status: QuickCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what is recording or playing.",
        discussion: """
            One line per running job: recording or playing, the item, the position (and a \
            playback's speed when it is not 1), running, \
            paused or suspended (stopped by Ctrl-Z until 'fg'; "suspended": true in --json), and \
            the pid. While a job runs, its position is carried forward on the clock from its \
            last report (every few seconds), so readings a moment apart differ by that \
            moment; a paused or suspended job reads exactly where it stopped. A job whose process has died is reported and cleared (a \
            recording is recovered). With nothing running: exit status 1, and with --json the \
            object {"recording": null, "playing": null} on standard output.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    /// `status` as people type it, read without argument-parser (`QuickArguments` says why
    /// and what it reads); nil for anything else, which argument-parser then parses.
    static func parsedQuickly(_ arguments: [String]) -> Status? {
        parsedQuickly(arguments, name: "status") { _, words in words.positionals.isEmpty }
    }

    static let quickFlags = ["--quiet", "--json"]
    static let quickValued = ["--store"]

    func run() throws {
        let library = try global.openLibrary(reading: [], recover: false)
        let control = RemoteControl(library: library)
        for note in try control.clearDead() { Terminal.warning(note) }
        let running = control.running()
        guard !running.isEmpty else {
            if output.json { print(ItemJSON.status(running)) }
            throw RemoteControl.nothingRunning
        }
        if output.json {
            print(ItemJSON.status(running))
        } else {
            for status in running { print(status.line) }
        }
    }
}

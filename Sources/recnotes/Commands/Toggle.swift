import ArgumentParser
import RecCore

struct Toggle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toggle",
        abstract: "Pause whatever is running, or resume it if it is paused.",
        discussion: """
            Acts on a 'record' or 'play' running in any shell (the recording, if both run). \
            Made for a hotkey: one key for both. It returns once the running process has applied it, and prints the \
            state it reached. With nothing running: exit status 1.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        try RemoteCommand.run(global, json: output.json, action: .toggle) { try $0.send(.toggle) }
    }
}

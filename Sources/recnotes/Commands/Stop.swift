import ArgumentParser
import RecCore

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "End the running recording (saved, as with Ctrl-C) or playback.",
        discussion: """
            Acts on a 'record' or 'play' running in any shell (the recording, if both run). \
            Returns once the recording is saved, so the next command sees it. It returns once the running process has applied it, and prints the \
            state it reached. With nothing running: exit status 1.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        try RemoteCommand.run(global, json: output.json, action: .stop) { try $0.send(.stop) }
    }
}

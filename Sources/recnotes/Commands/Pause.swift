import ArgumentParser
import RecCore

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause the running recording or playback.",
        discussion: """
            Acts on a 'record' or 'play' running in any shell (the recording, if both run). \
            Paused time is not recorded. A paused playback keeps its place. It returns once the running process has applied it, and prints the \
            state it reached. With nothing running: exit status 1.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        try RemoteCommand.run(global, json: output.json, action: .pause) { try $0.send(.pause) }
    }
}

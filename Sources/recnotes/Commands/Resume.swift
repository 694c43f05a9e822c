import ArgumentParser
import RecCore

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused recording or playback.",
        discussion: """
            Acts on a 'record' or 'play' running in any shell (the recording, if both run). \
             It returns once the running process has applied it, and prints the \
            state it reached. With nothing running: exit status 1.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        try RemoteCommand.run(global, json: output.json, action: .resume) { try $0.send(.resume) }
    }
}

import ArgumentParser
import RecCore
import RecSystem

struct Speed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speed",
        abstract: "Change the speed of the running playback.",
        discussion: """
            SPEED is written as for 'play --speed' (1.5, 1.5x, 150%; from 0.25 to 4), or +0.25 / \
            -0.25 to change it from wherever the player is when it applies it (held inside 0.25 \
            to 4; two at once change it twice). Returns once the player plays at it, and prints \
            its status. The speed is kept: the next 'play' without --speed plays at it. With \
            nothing playing, or without the SoundTouch library (libsoundtouch1) for a speed other \
            than 1: exit status 1; a speed out of range: exit status 64.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    // Captured unparsed, so that -0.25 is a change and not an unknown option.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("The speed: 1.5, 1.5x, 150%, +0.25, -0.25.", valueName: "speed"))
    var speed: [String] = []

    func run() throws {
        let speed = self.speed.filter { $0 != "--" }
        guard speed.count == 1, let text = speed.first else {
            throw RecError.usage(
                "speed",
                speed.isEmpty ? "give the speed, such as 1.5, 150% or +0.25" : "give one speed, not \(speed.count)")
        }
        let action = try RemoteControl.speedAction(text)
        try RemoteCommand.run(global, json: output.json, action: action) { try $0.send(action) }
    }
}

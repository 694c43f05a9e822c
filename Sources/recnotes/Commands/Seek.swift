import ArgumentParser
import RecCore

struct Seek: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seek",
        abstract: "Move the running playback to another time.",
        discussion: """
        TIME is written as for 'play --seek' (90, 1:30, 50%), or +5s / -5s to move from \
        wherever the player is when it applies it (two at once move twice). Returns once \
        the player has moved, and prints where it is. With nothing playing: exit status 1.
        """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    // Captured unparsed, so that -5s is a time and not an unknown option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Where to go: 1:30, 2m30s, 50%, +5s, -5s.", valueName: "time"))
    var time: [String] = []

    func run() throws {
        let time = self.time.filter { $0 != "--" }
        guard time.count == 1, let text = time.first else {
            throw RecError.usage("seek", time.isEmpty ? "give the time to seek to, such as 1:30, 50% or +5s" : "give one time, not \(time.count)")
        }
        let spec = try TimeSpec.parse(text, allowRelative: true)
        try RemoteCommand.run(global, json: output.json, action: .seek(to: 0)) { try $0.seek(spec, text: text) }
    }
}

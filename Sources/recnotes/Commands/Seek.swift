import ArgumentParser
import RecCore
import RecStore
import RecSystem

struct Seek: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seek",
        abstract: "Move the running playback to another time.",
        discussion: """
            TIME is written as for 'play --seek' (90, 1:30, 50%), or +5s / -5s to move from \
            wherever the player is when it applies it (two at once move twice). Returns once \
            the player has moved, and prints where it is. With nothing playing: exit status 1. \
            next-mark and prev-mark move to the recording's next or previous marker (back to \
            the one before when within half a second after one; before the first: the start).
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: JSONOption

    // Captured unparsed, so that -5s is a time and not an unknown option.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("Where to go: 1:30, 2m30s, 50%, +5s, -5s, next-mark, prev-mark.", valueName: "time"))
    var time: [String] = []

    func run() throws {
        let time = self.time.filter { $0 != "--" }
        guard time.count == 1, let text = time.first else {
            throw RecError.usage(
                "seek",
                time.isEmpty ? "give the time to seek to, such as 1:30, 50% or +5s" : "give one time, not \(time.count)"
            )
        }
        if text == "next-mark" || text == "prev-mark" {
            let forward = text == "next-mark"
            return try RemoteCommand.run(global, json: output.json, action: .seekMark(forward: forward, frames: [])) {
                try $0.seekMark(forward: forward)
            }
        }
        let spec = try TimeSpec.parse(text, allowRelative: true)
        try RemoteCommand.run(global, json: output.json, action: .seek(to: 0)) { try $0.seek(spec, text: text) }
    }
}

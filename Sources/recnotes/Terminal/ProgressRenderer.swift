import RecCore

#if canImport(Glibc)
import Glibc
#endif

/// Draws a recorder's or player's events: a live line on stderr, NDJSON on stdout, or
/// nothing. All three read the same event stream.
final class ProgressRenderer {
    enum Screen { case record, play }

    let mode: ProgressMode
    let screen: Screen
    /// NDJSON goes to stderr when stdout carries audio (`record --output -`).
    let jsonToStderr: Bool
    private var paused = false
    private var lastLine = ""
    private var drewLine = false

    init(mode: ProgressMode, screen: Screen, jsonToStderr: Bool = false) {
        self.mode = mode
        self.screen = screen
        self.jsonToStderr = jsonToStderr
    }

    func handle(_ event: AudioEvent) {
        switch mode {
        case .none: return
        case .json: printLine(AudioEventJSON.line(event, time: Self.wallClock()))
        case .tty: draw(event)
        }
    }

    static func wallClock() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    func printLine(_ line: String) {
        if jsonToStderr {
            if !Output.quiet { Terminal.writeStderr(line + "\n") }
            return
        }
        print(line)
        Output.flush()
    }

    private func draw(_ event: AudioEvent) {
        switch event {
        case let .started(s):
            if screen == .play, let total = s.total {
                update("▶ \(Format.clock(s.position.seconds)) / \(Format.clock(total.seconds)) \(Format.progressBar(total.frames > 0 ? Double(s.position.frames) / Double(total.frames) : 0))")
            } else {
                update("● \(Format.clock(0))")
            }
        case let .progress(p):
            if screen == .play, let total = p.total {
                let fraction = total.frames > 0 ? Double(p.position.frames) / Double(total.frames) : 0
                update("▶ \(Format.clock(p.position.seconds)) / \(Format.clock(total.seconds)) \(Format.progressBar(fraction))")
            } else {
                var line = "● \(Format.clock(p.position.seconds))  \(Format.levelBar(p.level.peak)) \(Format.decibels(p.level.peak))"
                if p.level.isClipping { line += "  " + Terminal.styled("CLIP", .warning, enabled: true) }
                if let bytes = p.bytes { line += "  \(Format.size(bytes))" }
                update(line)
            }
        case let .paused(p):
            paused = true
            update("❚❚ \(Format.clock(p.seconds))  paused (space resumes)")
        case let .resumed(p):
            paused = false
            update("\(screen == .play ? "▶" : "●") \(Format.clock(p.seconds))")
        case let .seeked(_, to):
            // While playing, the next progress line shows where it went; paused, nothing
            // else would.
            if paused { update("❚❚ \(Format.clock(to.seconds))  paused (space resumes)") }
        case let .xrun(_, count):
            Terminal.writeStderr("\r\u{1B}[K")
            Terminal.warning("audio device xrun (\(count) so far)")
            drewLine = false
        case .finished:
            if drewLine { Terminal.writeStderr("\n") }
            drewLine = false
        case .failed:
            if drewLine { Terminal.writeStderr("\n") }
            drewLine = false
        }
    }

    private func update(_ line: String) {
        guard line != lastLine || !drewLine else { return }
        lastLine = line
        drewLine = true
        Terminal.writeStderr("\r\u{1B}[K" + line)
    }
}

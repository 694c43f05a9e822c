import RecAudio
import RecCore
import RecStore
import RecValues
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Draws a recorder's or player's events: a live line on stderr, NDJSON on stdout, or
/// nothing. All three read the same event stream.
final class ProgressRenderer {
    enum Screen { case record, play, transcode }

    let mode: ProgressMode
    let screen: Screen
    /// NDJSON goes to stderr when stdout carries audio (`record --output -`).
    let jsonToStderr: Bool
    private var paused = false
    private var lastLine = ""
    private var drewLine = false
    /// Live words: all heard so far, and whether their line is drawn under the live line.
    private var heard = ""
    private var wordsShown = false

    init(mode: ProgressMode, screen: Screen, jsonToStderr: Bool = false) {
        self.mode = mode
        self.screen = screen
        self.jsonToStderr = jsonToStderr
    }

    /// The label prompt's line (`M`) while it is open: it takes the live line's place. The
    /// key thread sets it while the audio thread draws, so both write under `screen`.
    private var prompt: String?
    private let screenLock = Mutex(())

    /// Opens, redraws (`text`) or closes (nil) the label prompt on the live line.
    func showPrompt(_ text: String?) {
        guard mode == .tty else { return }
        screenLock.withLock { _ in
            prompt = text
            drewLine = true
            LiveLine.draw(text ?? lastLine)
        }
    }

    /// Ends the live line before the process stops (Ctrl-Z), so the shell's prompt starts
    /// on a line of its own; the next event redraws it after `fg`.
    func suspend() {
        guard mode == .tty else { return }
        screenLock.withLock { _ in
            closeLines()
            lastLine = ""
        }
    }

    func handle(_ event: AudioEvent) {
        switch mode {
        case .none: return
        case .json: printLine(AudioEventJSON.line(event, time: Self.wallClock()))
        case .tty: screenLock.withLock { _ in draw(event) }
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

    /// The end of a recording into the store: its item as JSON, or one line at a terminal.
    func reportSaved(_ item: Item, in library: Library) {
        switch mode {
        case .json: printLine(AudioEventJSON.saved(item, in: library))
        case .tty:
            Terminal.writeStderr(
                "Saved \(library.document.path(of: item.id)) (\(Format.duration(item.recording?.duration ?? 0))).\n")
        case .none: break
        }
    }

    /// A recording the user declined to name, now in the trash, and how to get it back.
    func reportDiscarded(trashPath: String) {
        if mode == .json { printLine(AudioEventJSON.discarded(trashPath: trashPath)) }
        if mode != .json && !Output.quiet {
            Terminal.writeStderr(
                "Discarded to the trash; `recnotes trash restore \(Format.shellQuoted(trashPath))` brings it back.\n")
        }
    }

    /// What the line shows beside the time: the item's name, and the keys when they work.
    var title: String?
    var keysActive = false
    private var total: AudioPosition?
    /// The speed when other than 1× (`play --speed`, keys, `recnotes speed`), shown beside the time.
    private var speed: PlaybackSpeed?

    private var hints: String? {
        guard keysActive else { return nil }
        switch screen {
        case .record: return paused ? "space resumes · m mark · q stop" : "space pause · m mark · q stop"
        case .play:
            return paused
                ? "space resumes · ←→ 5s · {}= speed · m mark · [] marks · q quit"
                : "space pause · ←→ 5s · {}= speed · m mark · [] marks · q quit"
        case .transcode: return nil
        }
    }

    private func time(_ position: AudioPosition) -> String {
        let shown = speed.map { "  \($0)" } ?? ""
        guard let total else { return Format.clock(position.seconds) + shown }
        return "\(Format.clock(position.seconds)) / \(Format.clock(total.seconds))" + shown
    }

    private func fraction(_ position: AudioPosition) -> Double? {
        guard let total else { return nil }
        return total.frames > 0 ? Double(position.frames) / Double(total.frames) : 0
    }

    private var running: String {
        switch screen {
        case .record: return "●"
        case .play: return "▶"
        case .transcode: return "⇣"
        }
    }

    private func draw(_ event: AudioEvent) {
        switch event {
        case .started(let s):
            total = screen == .record ? nil : s.total
            speed = s.speed.flatMap { $0.isNormal ? nil : $0 }
            update(
                StatusLine(
                    symbol: running, time: time(s.position), fraction: fraction(s.position), name: title, hints: hints))
        case .progress(let p):
            if screen == .record {
                var extras = [Format.decibels(p.level.peak)]
                if p.level.isClipping { extras.append(Terminal.styled("CLIP", .warning, enabled: true)) }
                if let bytes = p.bytes { extras.append(Format.size(bytes)) }
                if let voice = p.voice, let text = Format.voice(voice) {
                    if voice.waiting {
                        update(
                            StatusLine(
                                symbol: "…", time: time(p.position), level: p.level.peak, name: title, state: text,
                                hints: hints))
                        return
                    }
                    extras.append(text)
                }
                update(
                    StatusLine(
                        symbol: running, time: time(p.position), level: p.level.peak, extras: extras, name: title,
                        hints: hints))
            } else {
                update(
                    StatusLine(
                        symbol: running, time: time(p.position), fraction: fraction(p.position), name: title,
                        hints: hints))
            }
        case .paused(let p):
            paused = true
            update(
                StatusLine(
                    symbol: "❚❚", time: time(p), fraction: fraction(p), name: title, state: "paused", hints: hints))
        case .resumed(let p):
            paused = false
            update(StatusLine(symbol: running, time: time(p), fraction: fraction(p), name: title, hints: hints))
        case .seeked(_, let to):
            // While playing, the next progress line shows where it went; paused, nothing
            // else would.
            if paused {
                update(
                    StatusLine(
                        symbol: "❚❚", time: time(to), fraction: fraction(to), name: title, state: "paused", hints: hints
                    ))
            }
        case .speedChanged(let p, let new):
            speed = new.isNormal ? nil : new
            update(
                StatusLine(
                    symbol: paused ? "❚❚" : running, time: time(p), fraction: fraction(p), name: title,
                    state: paused ? "paused" : nil, hints: hints))
        case .marked(let p, let label):
            // A line of its own above the live line, which the next event redraws.
            clearWords()
            LiveLine.clear()
            Terminal.writeStderr("marked \(Format.preciseClock(p.seconds))\(label.isEmpty ? "" : "  " + label)\n")
            drewLine = false
        case .xrun(_, let count):
            clearWords()
            LiveLine.clear()
            Terminal.warning("audio device xrun (\(count) so far)")
            drewLine = false
        case .finished, .failed:
            closeLines()
        case .words(let segment):
            heard += (heard.isEmpty ? "" : " ") + segment.text
            let width = max(Terminal.columns(STDERR_FILENO) - 3, 1)
            let line = "  " + Terminal.styled(TextWidth.tail(heard, to: width), .dim, enabled: Terminal.colorOnStderr)
            if !drewLine { update(lastLine) }
            LiveLine.drawBelow(line, opening: !wordsShown)
            wordsShown = true
        }
    }

    /// Before a line is written above the live line: the words' line goes, and comes back
    /// with the next words.
    private func clearWords() {
        if wordsShown { LiveLine.clearBelow() }
        wordsShown = false
    }

    /// The live line ended, and the words' line under it kept: the shell goes on below.
    private func closeLines() {
        if drewLine || wordsShown { Terminal.writeStderr(wordsShown ? "\n\n" : "\n") }
        drewLine = false
        wordsShown = false
    }

    private func update(_ line: StatusLine) {
        update(line.render(width: Terminal.columns(STDERR_FILENO)))
    }

    private func update(_ line: String) {
        guard line != lastLine || !drewLine else { return }
        lastLine = line
        drewLine = true
        LiveLine.draw(prompt ?? line)
    }
}

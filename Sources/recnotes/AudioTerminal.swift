import RecCore

#if canImport(Glibc)
import Glibc
#endif

/// Where `record` and `play` report progress.
enum ProgressMode: String, CaseIterable {
    /// A live line on stderr (the default when stderr is a terminal).
    case tty
    /// NDJSON events on stdout.
    case json
    /// Nothing.
    case none

    static func resolved(_ mode: ProgressMode?) -> ProgressMode {
        mode ?? (Terminal.isTTY(STDERR_FILENO) ? .tty : .none)
    }
}

/// `--device`, else `$RECNOTES_DEVICE`, else ALSA's `default`.
func audioDevice(_ option: String?) -> String {
    if let option, !option.isEmpty { return option }
    if let env = getenv("RECNOTES_DEVICE"), env.pointee != 0 { return String(cString: env) }
    return "default"
}

/// SIGINT and SIGTERM, taken by a thread of their own with `sigwait`, so they stop a
/// recording or playback cleanly instead of killing the process. Must be installed before
/// any other thread starts, so that every thread inherits the blocked mask.
final class SignalWatcher: @unchecked Sendable {
    private var handler: (@Sendable (Int32) -> Void)?
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var thread = pthread_t()

    init() {
        pthread_mutex_init(lock, nil)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
        let unmanaged = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { raw in
            let watcher = Unmanaged<SignalWatcher>.fromOpaque(raw!).takeRetainedValue()
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            while true {
                var signal: Int32 = 0
                if sigwait(&set, &signal) != 0 { continue }
                pthread_mutex_lock(watcher.lock)
                let handler = watcher.handler
                pthread_mutex_unlock(watcher.lock)
                handler?(signal)
            }
        }, unmanaged)
        pthread_detach(thread)
    }

    /// What to do on the next signals (replaces the previous handler).
    func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        pthread_mutex_lock(lock)
        self.handler = handler
        pthread_mutex_unlock(lock)
    }
}

/// The keys `record` and `play` understand on a terminal.
enum Key: Equatable {
    var isQuit: Bool { self == .character("q") || self == .character("Q") }

    case space, left, right, enter, escape, backspace, interrupt
    case character(String)
}

/// Puts the terminal in character-at-a-time mode without echo and reads keys on a thread
/// of its own, until stopped. The terminal is restored on `stop()`.
final class KeyReader: @unchecked Sendable {
    private var saved = termios()
    private var thread = pthread_t()
    private var running = true
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var handler: (Key) -> Void

    /// nil when stdin is not a terminal.
    init?(_ handler: @escaping (Key) -> Void) {
        guard Terminal.isTTY(STDIN_FILENO), tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        self.handler = handler
        pthread_mutex_init(lock, nil)
        Self.enterRawMode(saved)
        let unmanaged = Unmanaged.passUnretained(self).toOpaque()
        pthread_create(&thread, nil, { raw in
            let reader = Unmanaged<KeyReader>.fromOpaque(raw!).takeUnretainedValue()
            reader.loop()
            return nil
        }, unmanaged)
    }

    static func enterRawMode(_ saved: termios) {
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }

    private var isRunning: Bool {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return running
    }

    private func loop() {
        while isRunning {
            guard let key = Self.readKey(timeoutMilliseconds: 100) else { continue }
            if isRunning { handler(key) }
        }
    }

    /// One key from stdin, or nil if none came in time (or stdin closed).
    static func readKey(timeoutMilliseconds: Int32) -> Key? {
        guard let byte = readByte(timeoutMilliseconds) else { return nil }
        switch byte {
        case 0x20: return .space
        case 0x0A, 0x0D: return .enter
        case 0x7F, 0x08: return .backspace
        case 0x03: return .interrupt
        case 0x1B:
            // A lone Esc, or the start of an arrow key (ESC [ C / ESC [ D).
            guard let next = readByte(30) else { return .escape }
            guard next == UInt8(ascii: "["), let final = readByte(30) else { return .escape }
            switch final {
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            default: return nil
            }
        default:
            // The rest of a UTF-8 sequence, if any.
            var bytes = [byte]
            let extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : 0
            for _ in 0..<extra { if let b = readByte(30) { bytes.append(b) } }
            return .character(String(decoding: bytes, as: UTF8.self))
        }
    }

    private static func readByte(_ timeout: Int32) -> UInt8? {
        var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, timeout) > 0 else { return nil }
        var byte: UInt8 = 0
        guard read(STDIN_FILENO, &byte, 1) == 1 else {
            usleep(UInt32(timeout) * 1000)
            return nil
        }
        return byte
    }

    /// Stops reading (within a tenth of a second) and restores the terminal.
    func stop() {
        pthread_mutex_lock(lock)
        let wasRunning = running
        running = false
        pthread_mutex_unlock(lock)
        guard wasRunning else { return }
        pthread_join(thread, nil)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    deinit { stop() }
}

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
        fflush(stdout)
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

/// The "Save recording" alert: asks for a name on the terminal. Enter keeps the default
/// (or takes what was typed), Esc discards. Returns nil for discard.
enum NamePrompt {
    static func ask(defaultName: String, problem: (String) -> String?, interrupted: () -> Bool) -> String? {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return defaultName }
        KeyReader.enterRawMode(saved)
        defer { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        var typed = ""
        func redraw() {
            Terminal.writeStderr("\r\u{1B}[KSave recording as [\(defaultName)] (Esc discards): \(typed)")
        }
        redraw()
        while true {
            if interrupted() {
                Terminal.writeStderr("\n")
                return defaultName
            }
            guard let key = KeyReader.readKey(timeoutMilliseconds: 100) else { continue }
            switch key {
            case .enter:
                let name = typed.isEmpty ? defaultName : typed
                if let why = problem(name) {
                    Terminal.writeStderr("\n")
                    Terminal.error("\(NameRules.quoted(name)): \(why)")
                    typed = ""
                    redraw()
                    continue
                }
                Terminal.writeStderr("\n")
                return name
            case .escape:
                Terminal.writeStderr("\n")
                return nil
            case .interrupt:
                Terminal.writeStderr("\n")
                return defaultName
            case .backspace:
                if !typed.isEmpty { typed.removeLast() }
            case .space:
                typed += " "
            case let .character(c):
                typed += c
            case .left, .right:
                break
            }
            redraw()
        }
    }
}

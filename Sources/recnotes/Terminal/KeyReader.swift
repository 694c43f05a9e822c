import Synchronization
import RecCore

#if canImport(Glibc)
import Glibc
#endif

/// The keys `record` and `play` understand on a terminal.
enum Key: Equatable {
    var isQuit: Bool { self == .character("q") || self == .character("Q") }

    case space, left, right, enter, escape, backspace, interrupt
    /// For line editing: Home/End (also Ctrl-A/E), Delete, Ctrl-U, Ctrl-W.
    case home, end, delete, deleteToStart, deleteWord
    case character(String)
}

/// Puts the terminal in character-at-a-time mode without echo and reads keys on a thread
/// of its own, until stopped. The terminal is restored on `stop()`.
// @unchecked Sendable: `running` is behind a Mutex; `handler` is called only on the
// reader thread; `saved` and `thread` are written in init and read after the join in stop.
final class KeyReader: @unchecked Sendable {
    private var saved = termios()
    private var thread = pthread_t()
    private let running = Mutex(true)
    private var handler: (Key) -> Void

    /// nil when stdin is not a terminal.
    init?(_ handler: @escaping (Key) -> Void) {
        guard Terminal.isTTY(STDIN_FILENO), tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        self.handler = handler
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
        running.withLock { $0 }
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
        case 0x01: return .home
        case 0x05: return .end
        case 0x15: return .deleteToStart
        case 0x17: return .deleteWord
        case 0x1B:
            // A lone Esc, or the start of a key's sequence: ESC [ C, ESC [ D, ESC [ H,
            // ESC [ F, ESC O H, ESC O F, ESC [ 1 ~, ESC [ 3 ~, ESC [ 4 ~ …
            guard let next = readByte(30) else { return .escape }
            guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O"), var final = readByte(30) else { return .escape }
            var number = 0
            while (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(final) {
                number = number * 10 + Int(final - UInt8(ascii: "0"))
                guard let more = readByte(30) else { return nil }
                final = more
            }
            switch final {
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            case UInt8(ascii: "H"): return .home
            case UInt8(ascii: "F"): return .end
            case UInt8(ascii: "~"):
                switch number {
                case 1, 7: return .home
                case 4, 8: return .end
                case 3: return .delete
                default: return nil
                }
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
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        pthread_join(thread, nil)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    deinit { stop() }
}

extension KeyReader {
    /// The recorder's keys: space pauses and resumes, q and Ctrl-C stop (and save).
    /// A recorder's keys: space pauses, m marks, M marks and asks for a label, q stops.
    static func recording(_ recorder: Recorder, renderer: ProgressRenderer) -> KeyReader? {
        let prompt = LabelPrompt(renderer: renderer) { label, frame in recorder.mark(label: label, at: frame) }
        return KeyReader { key in
            if prompt.handle(key) { return }
            switch key {
            case .space: recorder.togglePause()
            case .character("m"): recorder.mark()
            case .character("M"): prompt.open(at: recorder.controls.state.frames)
            case .interrupt: recorder.stop()
            default: if key.isQuit { recorder.stop() }
            }
        }
    }
}

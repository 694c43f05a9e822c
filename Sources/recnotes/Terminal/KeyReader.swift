import RecCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

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
        pthread_create(
            &thread, nil,
            { raw in
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
        return Key.decode(first: byte, next: readByte)
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

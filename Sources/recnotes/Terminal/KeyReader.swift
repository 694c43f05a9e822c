import RecAudio
import RecCore
import RecSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Puts the terminal in character-at-a-time mode without echo and reads keys on a thread
/// of its own, until stopped or until the handler says it wants no more (the key that ends
/// the session: what is typed after it is left for the next reader, the name prompt). The
/// terminal is restored on `stop()`.
// @unchecked Sendable: `running` is behind a Mutex; `handler` is called only on the
// reader thread; `mode` and `thread` are written in init and read after the join in stop.
final class KeyReader: @unchecked Sendable {
    private let mode: RawMode
    private var thread: JoinableThread?
    private let running = Mutex(true)
    private var handler: (Key) -> Bool

    /// nil when stdin is not a terminal. `handler` returns false for the last key it wants.
    init?(_ handler: @escaping (Key) -> Bool) {
        guard let mode = RawMode(.keys) else { return nil }
        self.mode = mode
        self.handler = handler
        mode.enter()
        // Unowned: the reader is stopped (and its thread joined) before it goes away.
        thread = try? JoinableThread { [unowned self] in loop() }
    }

    private var isRunning: Bool {
        running.withLock { $0 }
    }

    private func loop() {
        while isRunning {
            guard let (key, bytes) = TerminalInput.readKey(timeout: 100) else {
                holdRawMode()
                continue
            }
            // Read as the reader was being stopped: the next reader gets it.
            guard isRunning else {
                TerminalInput.unread(bytes)
                return
            }
            if let key, !handler(key) { return }
        }
    }

    /// One key from stdin (or typed ahead), or nil if none came in time (or stdin closed).
    static func readKey(timeoutMilliseconds: Int32) -> Key? {
        TerminalInput.readKey(timeout: timeoutMilliseconds)?.key
    }

    /// Takes raw mode again if something set line mode under it. After `fg`, the shell may
    /// restore its own terminal modes after it has continued this process (bash does, racing
    /// with `resume`), so the reader looks again whenever it is idle (every 0.1 s).
    private func holdRawMode() {
        guard isRunning, RawMode.inForeground, mode.isLost else { return }
        mode.enter()
    }

    /// Gives the terminal back in the mode it had (for a Ctrl-Z); `resume` takes it again.
    func suspend() { mode.leave() }

    func resume() {
        if isRunning && RawMode.inForeground { mode.enter() }
    }

    /// Stops reading (within a tenth of a second) and restores the terminal.
    func stop() {
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        thread?.join()
        mode.leave()
    }

    deinit { stop() }
}

extension KeyReader {
    /// The recorder's keys: space pauses and resumes, q and Ctrl-C stop (and save).
    /// A recorder's keys: space pauses, m marks, M marks and asks for a label, q stops.
    static func recording(_ recorder: Recorder, renderer: ProgressRenderer) -> KeyReader? {
        let prompt = LabelPrompt(renderer: renderer) { label, frame in recorder.mark(label: label, at: frame) }
        return KeyReader { key in
            if prompt.handle(key) { return true }
            switch key {
            case .space: recorder.togglePause()
            case .character("m"): recorder.mark()
            case .character("M"): prompt.open(at: recorder.controls.state.frames)
            case .interrupt:
                recorder.stop()
                return false
            default:
                if key.isQuit {
                    recorder.stop()
                    return false
                }
            }
            return true
        }
    }
}

extension SignalWatcher {
    /// Ctrl-Z while `keys` reads the terminal and `renderer` draws the live line: the line is
    /// ended and line mode given back before the process stops; `fg` takes raw mode again,
    /// and the next progress event redraws the line.
    func suspends(_ keys: KeyReader?, _ renderer: ProgressRenderer, recorder: Recorder? = nil) {
        // The renderer draws under its own lock, from whichever thread calls it.
        nonisolated(unsafe) let renderer = renderer
        onSuspend(
            before: {
                recorder?.suspending()
                renderer.suspend()
                keys?.suspend()
            },
            after: {
                recorder?.resumed()
                keys?.resume()
            })
    }
}

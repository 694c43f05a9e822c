import RecCore
import RecStore
import RecSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal side of `browse`: raw mode and the alternate screen, keys, signals, the store
/// directory's changes, and frames written as the cells that changed. Everything else is
/// `BrowseUpdate` (what to do), `BrowseView` (what to show) and `BrowseRuntime` (doing it).
final class BrowseTerminal {
    private let mode: RawMode
    private var active = false
    private let color: Bool
    private let inbox: Inbox
    private let signals: SignalDescriptor
    /// `RECNOTES_BROWSE_TRACE=FILE`: a line per frame (when, bytes, what caused it and how
    /// long after the key it was on screen), for the benchmarks in bench/browse.sh.
    private let trace: OpenFile?
    /// When the command started (before the store was read): the first frame's time counts from here.
    private let started = MonotonicClock.now()

    /// Refuses (exit 64) where a full-screen view cannot work: not at a terminal, or TERM=dumb.
    init() throws {
        guard Terminal.isTTY(STDIN_FILENO), Terminal.isTTY(STDOUT_FILENO) else {
            throw RecError.usage(
                "browse", "needs a terminal on stdin and stdout; in scripts use ls, find, info, play and record")
        }
        if Environment.value("TERM") == "dumb" {
            throw RecError.usage(
                "browse", "TERM=dumb cannot show a full-screen view; use ls, cd, info, find, play and record instead")
        }
        guard let mode = RawMode(.fullScreen) else {
            throw RecError.failure("browse", "cannot read the terminal's modes: \(systemReason(errno))")
        }
        self.mode = mode
        color = Environment.value("NO_COLOR")?.isEmpty ?? true
        // Signals are taken by a descriptor, in the loop, and blocked before any thread starts.
        // Ctrl-C is a key in raw mode; SIGINT from elsewhere, SIGTERM and SIGHUP (the terminal
        // closed) end the browser as q does; SIGWINCH resizes it; SIGTSTP (Ctrl-Z is a key
        // here, this is one sent from elsewhere) suspends it as Ctrl-Z does.
        signals = try SignalDescriptor([SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGQUIT, SIGTSTP])
        WakeSignal.block()
        signal(SIGPIPE, SIG_IGN)
        inbox = Inbox(wake: try WakePipe())
        trace = Environment.value("RECNOTES_BROWSE_TRACE").flatMap { OpenFile($0, O_WRONLY | O_CREAT | O_APPEND) }
    }

    deinit {
        leave()
    }

    // MARK: Terminal modes

    /// Raw mode (no echo, no line editing, no signals from keys: Ctrl-C is a key) and the
    /// alternate screen, so the shell's screen comes back as it was.
    private func enter() {
        mode.enter()
        output("\u{1B}[?1049h\u{1B}[?25l")
        active = true
    }

    /// Back to the shell's screen and modes; on every way out.
    private func leave() {
        guard active else { return }
        active = false
        output("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        mode.leave()
    }

    /// After `fg`, bash may set its own modes on the terminal after it has continued this
    /// process (racing with `enter`), which would leave browse in line mode; for a moment
    /// after a resume the loop looks every 0.1 s and takes raw mode back.
    private var holdRawUntil = 0.0
    private static let holdRawSeconds = 2.0

    private func holdRawMode() {
        guard active, mode.isLost else { return }
        active = false
        enter()
        shown = nil
    }

    private func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Writes all of `text` (its byte count is returned, for the trace); a terminal that went
    /// away (SIGHUP) is not an error here.
    @discardableResult
    private func output(_ text: String) -> Int {
        let bytes = Array(text.utf8)
        try? System.writeAll(STDOUT_FILENO, bytes)
        return bytes.count
    }

    // MARK: The loop

    /// Messages posted by the audio threads (and the runtime), and a pipe that wakes the loop
    /// for them.
    private final class Inbox: Sendable {
        private let messages = Mutex<[BrowseMessage]>([])
        let wake: WakePipe

        init(wake: WakePipe) { self.wake = wake }

        /// From any thread; the loop takes it at once.
        func post(_ message: BrowseMessage) {
            messages.withLock { $0.append(message) }
            wake.wake()
        }

        func next() -> BrowseMessage? {
            messages.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
    }

    func run(library: Library, device: String) throws {
        let watch = DirectoryWatch(library.location.directory)
        let (width, height) = size()
        var state = BrowseState(
            width: width, height: height, document: library.document, folder: library.state.currentFolder,
            selected: library.state.selection?.recording)
        let runtime = BrowseRuntime(
            library: library, device: device,
            editNote: { [unowned self] text, name in
                leave()
                defer {
                    enter()
                    shown = nil
                }
                return try TextEditor.edit(text, name: name)
            }, post: { [inbox] in inbox.post($0) })
        enter()
        defer {
            runtime.shutdown()
            leave()
        }

        func dispatch(_ message: BrowseMessage) {
            runtime.received(message)
            let (next, effects) = BrowseUpdate.update(state, message)
            state = next
            for effect in effects { runtime.run(effect) }
        }
        func drainInbox() {
            while let message = inbox.next() { dispatch(message) }
        }

        // cache/live/, watched while another process's recording is shown: its words as they
        // come (its view state entry changes only every few seconds). Made by the first
        // recording with live words, so looked for again when the jobs change.
        var liveWatch: DirectoryWatch?
        func jobsChanged() {
            dispatch(.jobsChanged(jobs(runtime.library)))
            if liveWatch == nil, state.jobs.contains(where: { $0.kind == .recording }) {
                liveWatch = DirectoryWatch(LiveWordsFiles(location: library.location).directory)
            }
        }

        jobsChanged()
        // The first selected recording's details, without waiting for a key.
        drainInbox()
        var cause = "start"
        var inputAt = started
        while !state.quitting {
            drainInbox()
            draw(state, cause: cause, since: inputAt, started: started)
            if state.quitting { break }
            let ticking = runtime.isRunningAudio
            var fds = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: inbox.wake.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: watch?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: liveWatch?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let holding = MonotonicClock.now() < holdRawUntil
            let timeout = ticking ? Self.tickMilliseconds : holding ? 100 : -1
            let polled = Result { () throws(Errno) in try System.waitUntilReady(&fds, timeout: timeout) }
            if holding { holdRawMode() }
            inputAt = MonotonicClock.now()
            cause = "tick"
            if case .failure(let failure) = polled { throw RecError.failure("browse", "poll: \(failure)") }
            if fds[1].revents != 0 {
                for signal in signals.drain() {
                    if signal == SIGWINCH {
                        let (w, h) = size()
                        dispatch(.resized(width: w, height: h))
                        cause = "resize"
                    } else if signal == SIGTSTP {
                        suspend(dispatch)
                        cause = "resume"
                    } else {
                        // Ctrl-C from another shell, SIGTERM, or the terminal closed (SIGHUP):
                        // out as with q, a recording saved.
                        state.quitting = true
                    }
                }
            }
            if state.quitting { break }
            if fds[0].revents & Int16(POLLIN) != 0 {
                cause = "key"
                readKeys(dispatch, until: { state.quitting })
            } else if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 {
                break
            }
            if fds[2].revents != 0 { inbox.wake.drain() }
            if let watch, fds[3].revents != 0 {
                let names = watch.drain()
                let any = names.contains(DirectoryWatch.overflowName)
                if any || names.contains(FileSystem.baseName(of: library.location.storeFile)) {
                    do {
                        if try runtime.storeChanged() { dispatch(.documentChanged(runtime.library.document)) }
                    } catch {
                        dispatch(.failed("\(error)"))
                    }
                    cause = "store"
                }
                if any || names.contains(FileSystem.baseName(of: library.location.viewStateFile)) {
                    do {
                        if try runtime.viewStateChanged() { dispatch(.documentChanged(runtime.library.document)) }
                    } catch {
                        dispatch(.failed("\(error)"))
                    }
                    jobsChanged()
                    if cause != "store" { cause = "viewstate" }
                }
            }
            if let live = liveWatch, fds[4].revents != 0 {
                _ = live.drain()
                jobsChanged()
                cause = "words"
            }
            if ticking, let tick = runtime.tick() { dispatch(tick) }
        }
        draw(state, cause: "quit", since: inputAt, started: started)
    }

    /// Up to 33 frames a second while audio plays, so that at least 20 reach the screen on a
    /// loaded machine (at 40 ms, 20.4 a second were measured under load).
    static let tickMilliseconds: Int32 = 30

    private var shown: Screen?

    private func draw(_ state: BrowseState, cause: String, since input: Double, started: Double) {
        let screen = BrowseView.render(state)
        guard screen != shown else { return }
        let bytes = output(ScreenDiff.update(from: shown, to: screen, color: color))
        shown = screen
        if let trace {
            let now = MonotonicClock.now()
            let line = "\(Self.milliseconds(started, now)) \(bytes) \(cause) \(Self.milliseconds(input, now))\n"
            trace.withDescriptor { try? System.writeAll($0, Array(line.utf8)) }
        }
    }

    private static func milliseconds(_ from: Double, _ to: Double) -> String {
        String(Double(Int((to - from) * 1e6)) / 1000)
    }

    /// Every key waiting on stdin (a byte read too far after an Esc comes back as a key),
    /// up to the key that quits: what was typed after q is left unread, for the shell (keys
    /// are read a byte at a time), not taken as browse's keys (e would open the editor).
    private func readKeys(_ dispatch: (BrowseMessage) -> Void, until quitting: () -> Bool) {
        while !quitting(), let (key, _) = TerminalInput.readKey(timeout: 0) {
            if key == .suspend {
                suspend(dispatch)
            } else if let key {
                dispatch(.key(key))
            }
        }
    }

    /// Ctrl-Z: the shell's screen and modes back, then stopped as the key would stop any
    /// program; after `fg`, raw mode and the alternate screen again, redrawn whole (at the
    /// terminal's size then). Audio that plays or records goes on when continued.
    private func suspend(_ dispatch: (BrowseMessage) -> Void) {
        leave()
        kill(getpid(), SIGSTOP)
        enter()
        shown = nil
        holdRawUntil = MonotonicClock.now() + Self.holdRawSeconds
        let (width, height) = size()
        dispatch(.resized(width: width, height: height))
    }

    /// The recordings and playbacks of other processes that are running.
    private func jobs(_ library: Library) -> [BrowseState.Job] {
        guard let state = ViewStateStore.peek(library.location) else { return [] }
        let me = getpid()
        return RemoteControl(library: library).statuses(state)
            .filter { $0.pid != me && processIsAlive($0.pid) }
            .map {
                BrowseState.Job(
                    kind: $0.job, id: $0.id, path: $0.path, pid: $0.pid, paused: $0.paused, position: $0.position,
                    words: $0.words ?? "")
            }
    }
}

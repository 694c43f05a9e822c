import RecCore
import RecSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM, taken by a thread of their own with `sigwait`, so they stop a
/// recording or playback cleanly instead of killing the process; and SIGTSTP (Ctrl-Z), so
/// that the terminal is given back in line mode before the process stops, and taken again
/// when `fg` continues it. Must be installed before any other thread starts, so that every
/// thread inherits the blocked mask. It blocks `WakeSignal` too, for the remote-control
/// follower's signalfd.
// @unchecked Sendable: the handlers are behind Mutexes.
final class SignalWatcher: @unchecked Sendable {
    private let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)
    private let suspension = Mutex<(before: @Sendable () -> Void, after: @Sendable () -> Void)?>(nil)

    init() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGTSTP)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        WakeSignal.block()
        signal(SIGPIPE, SIG_IGN)
        // It lives as long as the process, so it is never joined; it keeps the watcher.
        try? JoinableThread.detach { [self] in
            let watcher = self
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            sigaddset(&set, SIGTSTP)
            while true {
                var signal: Int32 = 0
                if sigwait(&set, &signal) != 0 { continue }
                if signal == SIGTSTP {
                    watcher.suspend()
                    continue
                }
                let handler = watcher.handler.withLock { $0 }
                handler?(signal)
            }
        }
    }

    /// What to do on the next signals (replaces the previous handler).
    func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// What to do around a Ctrl-Z: `before` gives the terminal back (line mode, the live
    /// line ended), then the process stops; `after` runs once `fg` continues it (raw mode
    /// again, the line redrawn).
    func onSuspend(before: @escaping @Sendable () -> Void, after: @escaping @Sendable () -> Void) {
        suspension.withLock { $0 = (before, after) }
    }

    /// Ends the process as `signal` would have had it not been taken: its default action,
    /// unblocked for this thread, so that a shell sees the process killed by it.
    static func end(by signal: Int32) -> Never {
        Glibc.signal(signal, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signal)
        _exit(128 + signal)
    }

    /// Stops the whole process as Ctrl-Z would have, with the terminal given back first.
    /// SIGSTOP cannot be caught, so the process stops right here and goes on from here.
    private func suspend() {
        let hooks = suspension.withLock { $0 }
        hooks?.before()
        kill(getpid(), SIGSTOP)
        hooks?.after()
    }
}

import CRecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// SIGURG, meaning "look at the view state": what a remote command sends the process it
/// queued a command for, so that a running `record` or `play` wakes at once without an
/// inotify watch. Tearing an inotify instance down waits for a kernel grace period
/// (17 ms measured here, at every exit: more than all of sox's one-second play), while
/// a signalfd closes at once.
///
/// SIGURG is ignored by default, so a process that does not expect it (or an unrelated
/// one that reused a dead recorder's pid) is not disturbed.
package enum WakeSignal {
    package static let number = SIGURG

    /// Blocks the signal in the calling thread and every thread it starts afterwards, so
    /// that it stays pending for `descriptor()`. Call it before any other thread starts.
    package static func block() {
        var set = Self.set
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Whether the calling thread blocks it (without that, a signalfd never sees it).
    package static var isBlocked: Bool {
        var current = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &current)
        return sigismember(&current, number) == 1
    }

    /// Wakes `pid`'s watcher; a process that is gone is not an error.
    package static func send(to pid: Int32) {
        guard pid > 0 else { return }
        _ = kill(pid, number)
    }

    /// A non-blocking descriptor that is readable while the signal is pending, or nil
    /// when the signal is not blocked here or the system has none to give.
    package static func descriptor() -> Int32? {
        guard isBlocked else { return nil }
        var set = Self.set
        let fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        return fd >= 0 ? fd : nil
    }

    /// Takes the pending signals off `fd`; true if there was one.
    package static func drain(_ fd: Int32) -> Bool { !SignalDescriptor.drain(fd).isEmpty }

    private static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        return set
    }
}

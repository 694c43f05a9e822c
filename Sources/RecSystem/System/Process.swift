#if canImport(Glibc)
    import Glibc
#endif

/// Whether a process with this pid is running. One we may not signal still runs; a zombie
/// (killed, not yet reaped by its parent) does not.
package func processIsAlive(_ pid: Int32) -> Bool {
    guard pid > 0 else { return false }
    guard kill(pid, 0) == 0 || errno == EPERM else { return false }
    guard let state = processState(pid) else { return true }
    return state != UInt8(ascii: "Z") && state != UInt8(ascii: "X")
}

/// Whether the process is stopped by a signal (Ctrl-Z at its terminal, SIGSTOP): alive,
/// and doing nothing until it is continued (`fg`, SIGCONT).
package func processIsStopped(_ pid: Int32) -> Bool {
    guard pid > 0, let state = processState(pid) else { return false }
    return state == UInt8(ascii: "T")
}

/// The state letter of /proc/PID/stat ("PID (command) STATE ...": it follows the last ')').
private func processState(_ pid: Int32) -> UInt8? {
    guard let stat = try? FileSystem.read("/proc/\(pid)/stat"),
        let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count
    else { return nil }
    return stat[close + 2]
}

/// How a child ended, from waitpid's status word: the one decoder of it.
package struct WaitStatus: Equatable, Sendable {
    /// Its exit status, or nil when a signal ended it.
    package var code: Int32?
    /// The signal that ended it, or nil when it exited.
    package var signal: Int32?

    package init(_ status: Int32) {
        let signalled = status & 0x7F
        code = signalled == 0 ? (status >> 8) & 0xFF : nil
        signal = signalled == 0 ? nil : signalled
    }

    /// As a shell reports it: the exit status, or 128 + the signal.
    package var shellStatus: Int32 { code ?? 128 + (signal ?? 0) }

    /// Whether a child has ended, asked without waiting (`check`).
    package enum Check: Equatable, Sendable {
        case running
        case ended(WaitStatus)
        /// Not a child of ours (or reaped already).
        case notAChild
    }

    /// Reaps `pid` if it has ended; never waits.
    package static func check(_ pid: pid_t) -> Check {
        var status: Int32 = 0
        let reaped = System.retrying { waitpid(pid, &status, WNOHANG) }
        if reaped == pid { return .ended(WaitStatus(status)) }
        return reaped == 0 ? .running : .notAChild
    }

    /// Waits for `pid` to end (through interruptions); nil when it is not our child.
    package static func wait(for pid: pid_t) -> WaitStatus? {
        var status: Int32 = 0
        guard System.retrying({ waitpid(pid, &status, 0) }) == pid else { return nil }
        return WaitStatus(status)
    }
}

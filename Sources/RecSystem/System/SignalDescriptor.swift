import CRecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Signals taken as a readable descriptor (signalfd), to be polled with others in one
/// loop instead of interrupting it. The signals are blocked in the calling thread and every
/// thread it starts afterwards: make one before any other thread starts.
package final class SignalDescriptor {
    package let descriptor: Int32

    package init(_ signals: [Int32]) throws {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        descriptor = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard descriptor >= 0 else {
            throw RecError.failure("signals", "cannot take them as a descriptor: \(systemReason(errno))")
        }
    }

    deinit { close(descriptor) }

    /// The signals that arrived since the last call, in order.
    package func drain() -> [Int32] { Self.drain(descriptor) }

    package static func drain(_ fd: Int32) -> [Int32] {
        var info = signalfd_siginfo()
        var signals: [Int32] = []
        while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            signals.append(Int32(info.ssi_signo))
        }
        return signals
    }
}

/// A pipe that wakes a thread waiting in poll: `wake` from any thread (one non-blocking
/// write, safe on an audio thread), `drain` in the waiter.
package final class WakePipe: Sendable {
    package let readEnd: Int32
    private let writeEnd: Int32

    package init() throws {
        let ends: (read: Int32, write: Int32)
        do throws(Errno) { ends = try System.closeOnExecPipe() } catch {
            throw RecError.failure("pipe", "cannot make one: \(error)")
        }
        for end in [ends.read, ends.write] { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        readEnd = ends.read
        writeEnd = ends.write
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    package func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe; true if something had woken it.
    @discardableResult
    package func drain() -> Bool {
        var sink = [UInt8](repeating: 0, count: 64)
        var woken = false
        while read(readEnd, &sink, sink.count) > 0 { woken = true }
        return woken
    }
}

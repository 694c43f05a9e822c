import CRecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The C library's conventions, wrapped once: a call interrupted by a signal is made
/// again; a short write is continued; a failure becomes an `Errno`.
package enum System {
    /// Calls `body` again for as long as it fails with EINTR, and returns its last result.
    /// For calls that report failure as -1 with `errno` set (read, write, poll, flock,
    /// waitpid, sem_timedwait ...); not for those that return the error (pthread_*).
    @inlinable
    package static func retrying<Result: BinaryInteger>(_ body: () -> Result) -> Result {
        while true {
            let result = body()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    /// As `retrying`, but a failure is thrown as its `Errno`.
    @inlinable
    package static func checked<Result: BinaryInteger>(_ body: () -> Result) throws(Errno) -> Result {
        let result = retrying(body)
        if result == -1 { throw Errno.current }
        return result
    }

    /// Writes every byte to `fd`, continuing after short writes and interruptions.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = retrying { write(fd, base + offset, bytes.count - offset) }
            if n < 0 && errno == EAGAIN {
                // A non-blocking descriptor (a terminal a program left so) that is full: wait.
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 100)
                continue
            }
            if n < 0 { throw Errno.current }
            // write(2) of a non-empty buffer returns 0 only on a broken device.
            if n == 0 { throw Errno.ioError }
            offset += n
        }
    }

    /// `writeAll` of an array.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        // withUnsafeBytes rethrows untyped; keep the typed error by carrying it out.
        var failure: Errno?
        bytes.withUnsafeBytes { raw in
            do throws(Errno) { try writeAll(fd, raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// poll(2) of `fds`: how many are ready, 0 when `timeout` (milliseconds, -1 for none)
    /// passed or a signal ended the wait, for the caller's loop to look again: unlike a read,
    /// a wait is not made again, so that the loop sees what the signal changed.
    package static func waitUntilReady(_ fds: inout [pollfd], timeout: Int32) throws(Errno) -> Int {
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready == -1 && errno == EINTR { return 0 }
        if ready < 0 { throw Errno.current }
        return Int(ready)
    }

    /// Leaves one CPU to everything else: the calling thread, and every process and thread
    /// it starts from now on, run on the others. Nothing changes with a single CPU. Returns
    /// how many CPUs are left to it (nil when they cannot be told).
    @discardableResult
    package static func leaveOneProcessor() -> Int? {
        let left = csystem_leave_one_cpu()
        return left < 0 ? nil : Int(left)
    }

    /// A pipe whose two ends close on exec (`pipe2` is a GNU extension Swift does not
    /// import): only what a child is given explicitly (a `dup2` onto 1 or 2) reaches it.
    package static func closeOnExecPipe() throws(Errno) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Errno.current }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Where `needle` first occurs in `haystack`'s `count` bytes, or nil: glibc's `memmem`, a
    /// two-way search far faster than a byte loop on megabytes (Swift's Glibc module does
    /// not show it: glibc declares it only under _GNU_SOURCE).
    package static func firstOccurrence(
        of needle: UnsafeRawPointer, count needleCount: Int, in haystack: UnsafeRawPointer, count: Int
    ) -> UnsafeRawPointer? {
        csystem_memmem(haystack, count, needle, needleCount)
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// How a captured child ended and what it wrote (`ProcessLaunch.capture`).
package struct CapturedRun: Sendable {
    package var ended: WaitStatus
    package var stdout: [UInt8]
    /// Its standard error, or the last `stderrLimit` bytes of it.
    package var stderr: [UInt8]

    /// As a shell reports it: the exit status, or 128 + the signal.
    package var status: Int32 { ended.shellStatus }
}

/// Why a captured run gave no `CapturedRun`. In every case but `cannotStart` the child (its
/// group too, when it has its own) was killed and reaped.
package enum CaptureFailure: Error, Equatable, Sendable {
    case cannotStart(Errno)
    case timedOut
    case outputTooLong
    case cancelled
}

extension ProcessLaunch {
    /// Runs the program with its standard output and error captured through pipes, read as
    /// they come so that neither can fill and block the child, and waits for it to end.
    /// `timeout` (seconds) and `isCancelled` (looked at every 0.2 s) kill it; so does more
    /// than `outputLimit` bytes on stdout. Only the last `stderrLimit` bytes of stderr are
    /// kept, for an error message. `started` is told its pid once it runs; `received` is
    /// given each piece of stdout as it is read, for a caller that shows progress while the
    /// child runs (git-annex's `--json-progress`); it is all in `stdout` at the end too.
    package func capture(
        timeout: Double = .infinity, outputLimit: Int = 64 << 20, stderrLimit: Int = 8192,
        isCancelled: (() -> Bool)? = nil, started: (pid_t) -> Void = { _ in },
        received: (ArraySlice<UInt8>) -> Void = { _ in }
    ) throws(CaptureFailure) -> CapturedRun {
        let outPipe: (read: Int32, write: Int32)
        let errPipe: (read: Int32, write: Int32)
        do throws(Errno) {
            outPipe = try System.closeOnExecPipe()
            do throws(Errno) { errPipe = try System.closeOnExecPipe() } catch {
                close(outPipe.read)
                close(outPipe.write)
                throw error
            }
        } catch {
            throw .cannotStart(error)
        }
        var readEnds = [outPipe.read, errPipe.read]
        defer { for fd in readEnds where fd >= 0 { close(fd) } }
        var launch = self
        launch.output = .descriptor(outPipe.write)
        launch.errors = .descriptor(errPipe.write)
        let pid: pid_t
        do throws(Errno) {
            defer {
                close(outPipe.write)
                close(errPipe.write)
            }
            pid = try launch.start()
        } catch {
            throw .cannotStart(error)
        }
        started(pid)

        let deadline = MonotonicClock.now() + timeout
        func killAll() {
            if ownProcessGroup { _ = kill(-pid, SIGKILL) }
            _ = kill(pid, SIGKILL)
            _ = WaitStatus.wait(for: pid)
        }
        /// Why to stop now, if it must.
        func mustStop() -> CaptureFailure? {
            if MonotonicClock.now() >= deadline { return .timedOut }
            if isCancelled?() == true { return .cancelled }
            return nil
        }

        var out: [UInt8] = []
        var err: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while readEnds[0] >= 0 || readEnds[1] >= 0 {
            if let failure = mustStop() {
                killAll()
                throw failure
            }
            var fds = readEnds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let left = (deadline - MonotonicClock.now()) * 1000
            let wait = min(left, isCancelled == nil ? 60_000 : 200)
            let ready = poll(&fds, nfds_t(fds.count), Int32(max(wait, 0)) + 1)
            if ready <= 0 { continue }  // EINTR or nothing yet: the deadline decides
            for k in 0..<2 where readEnds[k] >= 0 && fds[k].revents != 0 {
                let n = System.retrying { read(readEnds[k], &buffer, buffer.count) }
                if n < 0 && errno == EAGAIN { continue }
                if n <= 0 {
                    close(readEnds[k])
                    readEnds[k] = -1
                } else if k == 0 {
                    out += buffer[0..<n]
                    received(buffer[0..<n])
                    if out.count > outputLimit {
                        killAll()
                        throw .outputTooLong
                    }
                } else {
                    err += buffer[0..<n]
                    if err.count > 2 * stderrLimit { err.removeFirst(err.count - stderrLimit) }
                }
            }
        }
        // Both pipes closed: it is ending (or closed them and lingers, until the deadline).
        while true {
            switch WaitStatus.check(pid) {
            case .ended(let status):
                return CapturedRun(ended: status, stdout: out, stderr: Array(err.suffix(stderrLimit)))
            case .notAChild:
                return CapturedRun(ended: WaitStatus(0), stdout: out, stderr: Array(err.suffix(stderrLimit)))
            case .running:
                if let failure = mustStop() {
                    killAll()
                    throw failure
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
                nanosleep(&pause, nil)
            }
        }
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// One run of an external engine: argv without a shell (`posix_spawnp` finds the program on
/// PATH), stdin from /dev/null, stdout and stderr captured, a deadline. The child leads a
/// process group of its own, so that a timeout kills whatever it started too (a wrapper
/// script's decoder), not only the program named.
struct EngineProcess {
    struct Outcome {
        /// The exit status, or nil when a signal ended it.
        var status: Int32?
        var signal: Int32?
        var stdout: [UInt8]
        var stderr: [UInt8]
    }

    enum Failure: Error, Equatable {
        case cannotStart(Int32)
        case timedOut
        case outputTooLong
        /// `cancel` was set: the engine's group was killed.
        case cancelled
    }

    /// More than this on stdout is not a transcript.
    static let outputLimit = 64 << 20
    /// The tail of stderr that is kept, for the error message.
    static let stderrLimit = 8192

    /// `started` is told the engine's pid (its process group's too) once it runs.
    /// Once `cancel` is set, the engine's group is killed within about 0.2 s.
    static func run(
        _ argv: [String], timeout seconds: Double, cancel: CancelFlag? = nil, started: (pid_t) -> Void = { _ in }
    ) throws(Failure) -> Outcome {
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
            throw .cannotStart(error.rawValue)
        }
        var readEnds = [outPipe.read, errPipe.read]
        defer { for fd in readEnds where fd >= 0 { close(fd) } }

        // Nothing else of ours (closeInherited): a descriptor inherited by mistake (a caller's
        // pipe) would keep that pipe open for as long as the engine, or an orphan of it, runs.
        // Its own process group, so that a timeout kills whatever it started too.
        var launch = ProcessLaunch(argv)
        launch.input = .null
        launch.output = .descriptor(outPipe.write)
        launch.errors = .descriptor(errPipe.write)
        launch.ownProcessGroup = true
        launch.closeInherited = true
        let pid: pid_t
        do throws(Errno) {
            defer {
                close(outPipe.write)
                close(errPipe.write)
            }
            pid = try launch.start()
        } catch {
            throw .cannotStart(error.rawValue)
        }
        started(pid)

        let deadline = MonotonicClock.now() + seconds
        func killAll() {
            _ = kill(-pid, SIGKILL)
            _ = kill(pid, SIGKILL)
            _ = WaitStatus.wait(for: pid)
        }

        var out: [UInt8] = []
        var err: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while readEnds[0] >= 0 || readEnds[1] >= 0 {
            let left = deadline - MonotonicClock.now()
            if left <= 0 {
                killAll()
                throw .timedOut
            }
            if cancel?.isCancelled == true {
                killAll()
                throw .cancelled
            }
            var fds = readEnds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let wait = cancel == nil ? min(left * 1000, 60_000) : min(left * 1000, 200)
            let ready = poll(&fds, nfds_t(fds.count), Int32(wait) + 1)
            if ready <= 0 { continue }  // EINTR or nothing yet: the deadline decides
            for k in 0..<2 where readEnds[k] >= 0 && fds[k].revents != 0 {
                let n = System.retrying { read(readEnds[k], &buffer, buffer.count) }
                if n < 0 && errno == EAGAIN { continue }
                if n <= 0 {
                    close(readEnds[k])
                    readEnds[k] = -1
                } else if k == 0 {
                    out += buffer[0..<n]
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
        var ended = WaitStatus(0)
        while true {
            switch WaitStatus.check(pid) {
            case .ended(let status): ended = status
            case .notAChild: break
            case .running:
                if MonotonicClock.now() >= deadline {
                    killAll()
                    throw .timedOut
                }
                if cancel?.isCancelled == true {
                    killAll()
                    throw .cancelled
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
                nanosleep(&pause, nil)
                continue
            }
            break
        }
        return Outcome(status: ended.code, signal: ended.signal, stdout: out, stderr: err)
    }
}

import Foundation
import Testing

@testable import RecSystem

@Suite("System: errno values, write-all, clock, semaphore")
struct SystemTests {
    @Test func errnoRendersTheCLibraryText() {
        #expect(Errno(ENOENT).description == "No such file or directory")
        #expect(systemReason(EACCES) == "Permission denied")
        #expect(Errno(ENOENT) == .noSuchFile)
    }

    @Test func writeAllWritesEverythingAndThrowsTheErrno() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        // More than a pipe holds at once (64 KiB), read on another thread: short writes.
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let reader = ends[0]
        final class Sink: @unchecked Sendable { var data: [UInt8] = [] }  // @unchecked: read after join
        let sink = Sink()
        let thread = try JoinableThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = System.retrying { read(reader, &buffer, buffer.count) }
                if n <= 0 { break }
                sink.data += buffer[0..<n]
            }
        }
        try System.writeAll(ends[1], bytes)
        close(ends[1])
        thread.join()
        close(ends[0])
        #expect(sink.data == bytes)
        // -1, not the closed end: a test running alongside may have reused its number.
        #expect(throws: Errno(EBADF)) { try System.writeAll(-1, [1, 2, 3]) }
    }

    @Test func semaphoreTimesOutOrWakes() {
        let semaphore = Semaphore()
        let before = MonotonicClock.now()
        #expect(semaphore.wait(milliseconds: 30) == false)
        #expect(MonotonicClock.now() - before >= 0.025)
        semaphore.signal()
        #expect(semaphore.wait(milliseconds: 5_000) == true)
        #expect(MonotonicClock.now() - before < 2)
    }

    @Test func aChildsEndIsDecodedOnceAsTheShellReportsIt() throws {
        #expect(try ChildProcess.run(["sh", "-c", "exit 3"]) == 3)
        #expect(try ChildProcess.run(["sh", "-c", "kill -TERM $$"]) == 128 + SIGTERM)
        #expect(WaitStatus(3 << 8) == WaitStatus(3 << 8))
        #expect(WaitStatus(3 << 8).code == 3 && WaitStatus(3 << 8).signal == nil)
        #expect(WaitStatus(SIGKILL).code == nil && WaitStatus(SIGKILL).signal == SIGKILL)
        // Every child starts with no signal blocked, whatever this process blocks.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        var old = sigset_t()
        pthread_sigmask(SIG_BLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        #expect(try ChildProcess.run(["sh", "-c", "kill -TERM $$; exit 0"]) == 128 + SIGTERM)
    }

    @Test func aLaunchGivesTheChildItsDescriptorsGroupAndSession() throws {
        let ends = try System.closeOnExecPipe()
        defer { close(ends.read) }
        // The child reports its pid, process group and session on descriptor 1 (the pipe) and
        // on descriptor 5 (the same pipe, given as an extra): both lines arrive.
        var launch = ProcessLaunch(["sh", "-c", "set -- $(cat /proc/$$/stat); echo $1 $5 $6; echo extra >&5"])
        launch.input = .null
        launch.output = .descriptor(ends.write)
        launch.extraDescriptors = [(child: 5, parent: ends.write)]
        launch.ownProcessGroup = true
        let pid = try launch.start()
        close(ends.write)
        let text = String(decoding: DetachedProcess.readToEnd(ends.read, within: 10) ?? [], as: UTF8.self)
        #expect(WaitStatus.wait(for: pid)?.code == 0)
        let fields = text.split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(fields.count == 4)
        #expect(fields.first == String(pid))
        #expect(fields.dropFirst().first == String(pid))  // it leads a group of its own
        #expect(fields.dropFirst(2).first != String(pid))  // but not a session
        #expect(fields.last == "extra")
        #expect(throws: Errno.noSuchFile) { try ProcessLaunch(["/nonexistent/program"]).start() }
    }

    @Test("a capture hands over stdout as it comes, while the child still runs")
    func aCaptureStreamsItsOutput() throws {
        // The child writes a line, then waits for a line on its stdin, which is sent only
        // once that first line has been received: a capture that kept its output until the
        // end would time out.
        var input: [Int32] = [0, 0]
        #expect(pipe(&input) == 0)
        defer { close(input[0]) }
        var launch = ProcessLaunch(["sh", "-c", "echo first; read answer; echo \"then $answer\""])
        launch.input = .descriptor(input[0])
        var pieces: [String] = []
        var answered = false
        defer { if !answered { close(input[1]) } }
        let run = try launch.capture(
            timeout: 60,
            received: { piece in
                pieces.append(String(decoding: piece, as: UTF8.self))
                if !answered, pieces.joined().contains("first\n") {
                    answered = true
                    _ = "go\n".withCString { write(input[1], $0, 3) }
                    close(input[1])
                }
            })
        #expect(run.status == 0)
        #expect(answered)
        #expect(String(decoding: run.stdout, as: UTF8.self) == "first\nthen go\n")
        #expect(pieces.joined() == "first\nthen go\n")
    }

    @Test func aCaptureReadsBothStreamsAndKillsTheGroupOnTimeout() throws {
        // More than a pipe holds on each stream: read as they come, or the child would block.
        var launch = ProcessLaunch(["sh", "-c", "head -c 200000 /dev/zero; head -c 100000 /dev/zero >&2; exit 4"])
        launch.input = .null
        let run = try launch.capture(stderrLimit: 1000)
        #expect(run.status == 4)
        #expect(run.stdout.count == 200_000)
        #expect(run.stderr.count == 1000)
        // A timeout kills the child's whole group: the sleep it started too.
        let pidFile = FileManager.default.temporaryDirectory.appending(path: "capture-\(getpid()).pid").path
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        var slow = ProcessLaunch(["sh", "-c", "sleep 30 & echo $! > '\(pidFile)'; wait"])
        slow.ownProcessGroup = true
        // 3 s: time enough for sh to start the sleep and write its pid on a loaded machine.
        #expect(throws: CaptureFailure.timedOut) { try slow.capture(timeout: 3) }
        let sleeper = try #require(
            Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Killed: gone once the kernel has delivered the signal, so allow it a moment (a zombie
        // until init reaps it counts as gone).
        var alive = processIsAlive(sleeper)
        for _ in 0..<100 where alive {
            usleep(20_000)
            alive = processIsAlive(sleeper)
        }
        #expect(!alive)
        #expect(throws: CaptureFailure.cannotStart(.noSuchFile)) { try ProcessLaunch(["/nonexistent/x"]).capture() }
    }

    @Test func aCloseOnExecPipeReachesNoChild() throws {
        let ends = try System.closeOnExecPipe()
        defer {
            close(ends.read)
            close(ends.write)
        }
        #expect(fcntl(ends.read, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(ends.write, F_GETFD) & FD_CLOEXEC != 0)
    }
}

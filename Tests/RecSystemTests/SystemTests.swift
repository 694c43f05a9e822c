import Foundation
import Testing

@testable import RecSystem

@Suite("System: errno values, write-all, clock, semaphore", .tags(.threads))
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

    @Test("copyRange copies a file's bytes by the kernel, and through a buffer across file systems")
    func copyRangeCopiesTheBytes() throws {
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let here = FileManager.default.temporaryDirectory.appending(path: "copy-range-\(getpid())").path
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: here) }
        // /dev/shm is another file system (tmpfs): copy_file_range refuses (EXDEV), the
        // buffer copies. Where there is none, both sources are on the same one.
        var sources = [here + "/source"]
        if FileManager.default.isWritableFile(atPath: "/dev/shm") { sources.append("/dev/shm/copy-range-\(getpid())") }
        for source in sources {
            try FileSystem.writeAtomically(bytes, to: source, durable: false)
            defer { unlink(source) }
            let input = open(source, O_RDONLY | O_CLOEXEC)
            #expect(input >= 0)
            defer { close(input) }
            let made = try FileSystem.writeAtomically(to: here + "/copy", durable: false) { fd in
                try FileSystem.copyRange(from: input, at: 1000, count: 200_000, to: fd, path: "copy")
                try FileSystem.writeAll(fd, [1, 2, 3], path: "copy")
                try FileSystem.copyRange(from: input, at: 0, count: 10, to: fd, path: "copy")
            }
            #expect(try FileSystem.read(here + "/copy") == Array(bytes[1000..<201_000]) + [1, 2, 3] + bytes[0..<10])
            #expect(made.info.st_size == 200_013)
            // Past the end: an error, and the file is left as it was.
            #expect(throws: RecError.self) {
                try FileSystem.writeAtomically(to: here + "/copy", durable: false) { fd in
                    try FileSystem.copyRange(from: input, at: 299_000, count: 2000, to: fd, path: "copy")
                }
            }
            #expect(try FileSystem.read(here + "/copy")?.count == 200_013)
        }
    }

    @Test("a stamped file's identity changes with any later write to it, even within the clock's tick")
    func aStampedTimeIsNeverAWritesTime() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "stamp-\(getpid())").path
        defer { unlink(path) }
        for round in 0..<200 {
            let made = try FileSystem.writeAtomically(to: path, durable: false, stamping: true) { fd in
                try FileSystem.writeAll(fd, Array("round \(round)".utf8), path: path)
            }
            // The test's file system keeps nanoseconds; the stamp holds there.
            #expect(made.stamped, "round \(round)")
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let stamped = made.info.st_mtim
            #expect((stamped.tv_sec, stamped.tv_nsec) < (now.tv_sec, now.tv_nsec), "round \(round)")
            // The same size, at once, in place: what an identity alone could miss.
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            #expect(pwrite(fd, "R", 1, 0) == 1)
            var after = stat()
            #expect(fstat(fd, &after) == 0)
            close(fd)
            #expect(after.st_size == made.info.st_size && after.st_ino == made.info.st_ino)
            #expect(
                (after.st_mtim.tv_sec, after.st_mtim.tv_nsec) != (stamped.tv_sec, stamped.tv_nsec), "round \(round)")
        }
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

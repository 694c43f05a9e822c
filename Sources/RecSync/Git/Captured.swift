import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A program's exit status and what it wrote, for the git and git-annex commands whose
/// output sync reads (remote lists, `--json` transfer records) or whose error it reports.
public struct Captured: Sendable {
    public var status: Int32
    public var output: String
    public var errors: String

    public var succeeded: Bool { status == 0 }
    public var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// The last line git or git-annex wrote to stderr, the one that says why.
    public var reason: String {
        let lines = errors.split(separator: "\n").map { $0.trimmingPrefix("fatal: ") }.filter { !$0.isEmpty }
        let said = lines.last(where: { !$0.hasPrefix("hint:") }) ?? "exit status \(status)"
        return String(said)
    }

    /// A pipe whose ends the child does not inherit (it gets dup2'ed copies).
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Runs `arguments[0]` (looked up in PATH) with its stdin on /dev/null and waits, reading
    /// stdout and stderr through pipes as they come, so neither can fill and block the child.
    public static func run(_ arguments: [String]) throws -> Captured {
        var out: [Int32] = [0, 0]
        var err: [Int32] = [0, 0]
        guard makePipe(&out) else { throw RecError.failure(arguments[0], "cannot start: \(Errno.current)") }
        guard makePipe(&err) else {
            close(out[0])
            close(out[1])
            throw RecError.failure(arguments[0], "cannot start: \(Errno.current)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = withSpawnAttributes(flags: 0) { posix_spawnp(&pid, arguments[0], &actions, &$0, argv, environ) }
        close(out[1])
        close(err[1])
        defer {
            close(out[0])
            close(err[0])
        }
        guard result == 0 else { throw RecError.failure(arguments[0], "cannot start: \(systemReason(result))") }
        var collected: [[UInt8]] = [[], []]
        var open = [true, true]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open[0] || open[1] {
            var fds = [
                pollfd(fd: open[0] ? out[0] : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: open[1] ? err[0] : -1, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<2 where open[i] && fds[i].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    collected[i].append(contentsOf: buffer[0..<n])
                } else if n == 0 || errno != EINTR {
                    open[i] = false
                }
            }
        }
        let status = WaitStatus.wait(for: pid)?.shellStatus ?? ExitStatus.failure
        return Captured(
            status: status, output: String(decoding: collected[0], as: UTF8.self),
            errors: String(decoding: collected[1], as: UTF8.self))
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// A program run in the foreground, on this process's terminal and standard streams, as an
/// editor is: recnotes waits for it and gets its exit status.
public enum ChildProcess {
    /// Runs `arguments[0]` (looked up in PATH) and waits. Returns its exit status, or
    /// 128 + the signal that ended it. Throws when it cannot be started.
    public static func run(_ arguments: [String]) throws -> Int32 {
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = withSpawnAttributes(flags: 0) { posix_spawnp(&pid, arguments[0], nil, &$0, argv, environ) }
        guard result == 0 else { throw RecError.failure(arguments[0], "cannot start: \(systemReason(result))") }
        return WaitStatus.wait(for: pid)?.shellStatus ?? ExitStatus.failure
    }
}

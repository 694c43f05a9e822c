#if canImport(Glibc)
    import Glibc
#endif

/// A program run in the foreground, on this process's terminal and standard streams, as an
/// editor is: recnotes waits for it and gets its exit status.
public enum ChildProcess {
    /// Runs `arguments[0]` (looked up in PATH) and waits. Returns its exit status, or
    /// 128 + the signal that ended it. Throws when it cannot be started.
    /// With `quiet`, its standard output goes to /dev/null (a tool's chatter, such as
    /// `git annex init`'s "ok"); its errors still reach the user.
    public static func run(_ arguments: [String], quiet: Bool = false) throws -> Int32 {
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
        let result = withSpawnAttributes(flags: 0) { posix_spawnp(&pid, arguments[0], &actions, &$0, argv, environ) }
        guard result == 0 else { throw RecError.failure(arguments[0], "cannot start: \(systemReason(result))") }
        return WaitStatus.wait(for: pid)?.shellStatus ?? ExitStatus.failure
    }
}

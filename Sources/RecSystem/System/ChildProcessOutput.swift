#if canImport(Glibc)
    import Glibc
#endif

extension ChildProcess {
    /// `run`, with the program's standard output written to the file at `path` (created or
    /// truncated): what a caller reads back, such as a blob from `git cat-file`.
    public static func run(_ arguments: [String], outputTo path: String) throws -> Int32 {
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let result = withSpawnAttributes(flags: 0) { posix_spawnp(&pid, arguments[0], &actions, &$0, argv, environ) }
        guard result == 0 else { throw RecError.failure(arguments[0], "cannot start: \(systemReason(result))") }
        return WaitStatus.wait(for: pid)?.shellStatus ?? ExitStatus.failure
    }
}

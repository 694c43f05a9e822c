#if canImport(Glibc)
    import Glibc
#endif

/// Where one of a child's standard descriptors comes from.
package enum ChildStream: Sendable, Equatable {
    /// This process's own descriptor (its terminal, its pipe).
    case inherit
    /// /dev/null.
    case null
    /// A descriptor of this process, duplicated into the child.
    case descriptor(Int32)
}

/// How to start one child process: the one place recnotes starts programs (an editor, git, an
/// external transcription engine, its own detached recorder). Every child gets the same signal
/// set-up (`withSpawnAttributes`), argv without a shell, and the descriptors it is given here.
package struct ProcessLaunch: Sendable {
    /// argv; `arguments[0]` is looked up on PATH unless `executable` names the file.
    package var arguments: [String]
    /// The program's path, when it must not be looked up (recnotes' own executable).
    package var executable: String?
    package var input: ChildStream = .inherit
    package var output: ChildStream = .inherit
    package var errors: ChildStream = .inherit
    /// Further descriptors: `parent` appears in the child as `child`.
    package var extraDescriptors: [(child: Int32, parent: Int32)] = []
    /// A session of its own: no controlling terminal, so no SIGHUP or Ctrl-C from the shell.
    package var ownSession = false
    /// A process group of its own, which it leads: killing the group stops whatever it started.
    package var ownProcessGroup = false
    /// Marks every descriptor this process inherited close-on-exec first (see
    /// `closeInheritedOnExec`): for children that may outlive the command.
    package var closeInherited = false

    package init(_ arguments: [String], executable: String? = nil) {
        self.arguments = arguments
        self.executable = executable
    }

    /// glibc's POSIX_SPAWN_SETSID, which Swift does not import (it is a GNU extension).
    private static let spawnSetsid: Int32 = 0x80

    /// Starts it; returns its pid. Throws the spawn's error number (ENOENT: no such program).
    package func start() throws(Errno) -> pid_t {
        if closeInherited { Self.closeInheritedOnExec() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target) in [(input, Int32(0)), (output, 1), (errors, 2)] {
            switch stream {
            case .inherit: break
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        for extra in extraDescriptors { posix_spawn_file_actions_adddup2(&actions, extra.parent, extra.child) }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let flags = (ownSession ? Self.spawnSetsid : 0) | (ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0)
        let result = withSpawnAttributes(flags: flags, processGroup: ownProcessGroup) {
            if let executable {
                return posix_spawn(&pid, executable, &actions, &$0, argv, environ)
            }
            return posix_spawnp(&pid, arguments[0], &actions, &$0, argv, environ)
        }
        guard result == 0 else { throw Errno(result) }
        return pid
    }

    /// Whatever this process inherited without close-on-exec (a pipe from the shell or a
    /// test harness) must not reach a long-lived child: whoever reads that pipe would wait
    /// for its end as long as the child runs. (An external transcription engine too.)
    package static func closeInheritedOnExec() {
        // Listed first: the listing's own descriptor is closed by the time these are marked.
        for name in FileSystem.entries(of: "/proc/self/fd") {
            guard let fd = Int32(name), fd > 2 else { continue }
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
    }
}

/// The `posix_spawnattr_t` every child recnotes starts gets: no blocked signals, and the
/// signals this process handles itself (SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT) back to
/// their defaults, so that a child is stopped the way any program is. `flags` adds, for
/// example, a session or process group of its own.
private func withSpawnAttributes<T>(flags: Int32, processGroup: Bool = false, _ body: (inout posix_spawnattr_t) -> T)
    -> T
{
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    if processGroup { posix_spawnattr_setpgroup(&attributes, 0) }
    posix_spawnattr_setflags(&attributes, Int16(flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return body(&attributes)
}

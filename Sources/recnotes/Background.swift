import ArgumentParser
import RecCore

#if canImport(Glibc)
import Glibc
#endif

/// `record --background` and `play --background`: the same command runs again as a
/// detached child (its own session, stdin from /dev/null, stdout and stderr to `--log` or
/// /dev/null), and the parent returns only once the child has registered itself in the
/// view state, so that a `status` run right after sees it.
///
/// The child reports through a pipe on descriptor 3: its warnings and errors until it is
/// registered (the parent prints them, and exits with the child's status if it failed),
/// then the job's path and JSON, then it closes the pipe.
enum Background {
    /// The hidden flag that marks the child.
    static let childFlag = "--background-child"
    private static let statusDescriptor: Int32 = 3
    /// glibc's POSIX_SPAWN_SETSID, which Swift does not import (it is a GNU extension).
    private static let spawnSetsid: Int32 = 0x80
    /// Set in the child until it is registered: messages go to the parent too.
    nonisolated(unsafe) private static var reporting = false

    /// What the child said when it was ready.
    struct Ready {
        var path: String
        var json: String
    }

    /// Starts the detached child and waits for it to be registered.
    static func detach(command: String, log: String?) throws -> Ready {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        arguments = arguments[..<end].filter { $0 != "--background" } + [childFlag] + arguments[end...]
        let executable = resolvedExecutable()

        let output: Int32
        if let log {
            output = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard output >= 0 else { throw RecError.failure(log, "cannot open the log: \(systemReason(errno))") }
        } else {
            output = open("/dev/null", O_WRONLY | O_CLOEXEC)
        }
        defer { close(output) }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw RecError.failure(command, "cannot start in the background: \(systemReason(errno))") }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var readEnd = ends[0]
        defer { close(readEnd) }

        closeInheritedOnExec()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        posix_spawn_file_actions_adddup2(&actions, ends[1], statusDescriptor)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own session: no terminal, so no SIGHUP or Ctrl-C from the shell that started
        // it. The signal state this process set up for itself is not passed on.
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(spawnSetsid | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(ends[1])
        guard result == 0 else { throw RecError.failure(command, "cannot start in the background: \(systemReason(result))") }

        // Up to 30 s for the device to open: a hung child must not hang the shell.
        var received: [UInt8] = []
        let deadline = monotonicNow() + 30
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline - monotonicNow()
            if left <= 0 {
                kill(pid, SIGKILL)
                _ = waitpid(pid, nil, 0)
                throw RecError.failure(command, "the background process did not start within 30 s")
            }
            var fds = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, Int32(left * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { continue }
            let n = read(readEnd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        close(readEnd)
        readEnd = -1
        var path: String?, json: String?
        for line in String(decoding: received, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("path\t") { path = String(line.dropFirst(5)) }
            else if line.hasPrefix("json\t") { json = String(line.dropFirst(5)) }
            else if line.hasPrefix("msg\t") { Terminal.writeStderr(line.dropFirst(4) + "\n") }
        }
        if let path, let json { return Ready(path: path, json: json) }
        // It failed before registering: its message was printed above; its status is ours.
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : ExitStatus.failure
        throw ExitCode(code == 0 ? ExitStatus.failure : code)
    }

    /// In the child, before anything can fail.
    static func beginChild() {
        reporting = fcntl(statusDescriptor, F_GETFD) >= 0
        if reporting { _ = fcntl(statusDescriptor, F_SETFD, FD_CLOEXEC) }
    }

    /// In the child, once registered: tells the parent, and stops reporting to it.
    static func ready(path: String, json: String) {
        guard reporting else { return }
        send("path\t\(path)\njson\t\(json)\n")
        reporting = false
        close(statusDescriptor)
    }

    /// A warning or error line, passed on while the parent is still waiting.
    static func relay(_ line: String) {
        guard reporting else { return }
        send("msg\t\(line)\n")
    }

    private static func send(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(statusDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Whatever this process inherited without close-on-exec (a pipe from the shell or a
    /// test harness) must not reach the long-lived child: whoever reads that pipe would
    /// wait for its end as long as the recording runs. This process execs nothing else.
    private static func closeInheritedOnExec() {
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd > 2, fd != own else { continue }
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
    }

    private static func resolvedExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        buffer[n] = 0
        return String(cBuffer: buffer)
    }

    private static func monotonicNow() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// The options `record` and `play` share for running detached.
struct BackgroundOptions: ParsableArguments {
    @Flag(help: "Detach and return at once, printing the item's path; 'recnotes stop' ends it.")
    var background = false

    @Option(help: ArgumentHelp("With --background: append the detached process's output and errors to this file.", valueName: "file"))
    var log: String?

    @Flag(help: "With --background: print the job as JSON (as 'status --json' shows it) instead of its path. For record without --background: print the saved recording, as mkdir --json does.")
    var json = false

    @Flag(name: .customLong("background-child"), help: .private)
    var child = false

    /// In the parent: detaches, prints, and returns true (the caller returns). In the
    /// child: starts reporting to the parent and returns false. Otherwise false.
    /// `jsonAlone`: the command gives `--json` a meaning of its own without `--background`.
    func detachIfAsked(command: String, jsonAlone: Bool = false) throws -> Bool {
        if child {
            Background.beginChild()
            return false
        }
        if !background {
            if log != nil { throw RecError.usage("--log", "is only for --background") }
            if json && !jsonAlone { throw RecError.usage("--json", "is only for --background; for events use --progress json") }
            return false
        }
        let ready = try Background.detach(command: command, log: log)
        print(json ? ready.json : ready.path)
        return true
    }

    /// In the child, once registered in the view state.
    /// Whether `--json` asks for the saved item (not detaching, not the detached child).
    var wantsItemJSON: Bool { json && !background && !child }

    func registered(_ job: ViewState.Job, in library: Library) {
        guard child, let status = RemoteControl(library: library).statuses(library.viewState.state).first(where: { $0.job == job }) else { return }
        Background.ready(path: status.path, json: ItemJSON.status(status))
    }
}

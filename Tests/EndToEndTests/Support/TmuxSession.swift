import Foundation
import RecCore
import RecSystem
import Testing

/// A real terminal for the end-to-end tests of full-screen commands: a tmux server of its
/// own (its socket in a directory of its own, no user configuration), one detached session of a given size
/// running one command. Keys go in with `send-keys`; the screen comes out with
/// `capture-pane`. Waits poll the screen with a watchdog (generous: CI is loaded), so a
/// test waits for what it expects to see, never for a time.
final class TmuxSession {
    static let tmux = "/usr/bin/tmux"

    /// tmux must be there: CI installs it (scripts/install-deps.sh), so a missing tmux fails
    /// the test with this message rather than skipping it.
    static func requireInstalled(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: tmux),
            "tmux is not installed at \(tmux): scripts/install-deps.sh installs it", sourceLocation: sourceLocation)
    }

    let target = "browse"
    /// The session's own files (configuration, client output, exit status), apart from the
    /// test's directory, which may be removed first when the test ends.
    private let directory = NSTemporaryDirectory() + "recnotes-tmux-" + UUID().uuidString
    /// The server's socket, in that directory: no other server is reached, and it goes with it.
    private var socket: String { directory + "/socket" }
    /// The server's pid, for when kill-server cannot reach it.
    private var serverPID: Int32 = 0
    /// Where the command's exit status is written when it ends (tmux's own `pane_dead_status`
    /// is sometimes left empty when the pane's output ends before its exit is reaped).
    private let statusFile: String
    private let configuration: String

    /// Starts `command` (run directly, not through a shell) in a `width`×`height` window with
    /// exactly `environment` (plus the LANG that tmux needs for UTF-8). The pane stays after
    /// the command exits, so `exitStatus` can read it.
    /// `directory` is the command's working directory.
    init(
        width: Int = 80, height: Int = 24, directory workingDirectory: String, environment: [String: String],
        command: [String]
    ) throws {
        try Self.requireInstalled()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        statusFile = directory + "/status"
        configuration = directory + "/tmux.conf"
        // No status bar (the window is the whole terminal); an Esc goes to the application at
        // once. (No clients attach, so only new-session and resize-window size the window;
        // `window-size manual` in the configuration makes tmux 3.3a's server exit.)
        try """
        set -g status off
        set -g remain-on-exit on
        set -g escape-time 0
        set -g default-terminal tmux-256color
        set -g history-limit 0
        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        var env = environment
        env["LC_ALL"] = "C.UTF-8"
        env["TERM"] = env["TERM"] ?? "tmux-256color"
        let assignments = env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let started = try run(
            [
                "new-session", "-d", "-s", target, "-x", "\(width)", "-y", "\(height)", "-c", workingDirectory, "--",
                "/usr/bin/env", "-i",
            ] + assignments
                + ["/bin/sh", "-c", "\"$@\"; echo $? > \"$0\"", statusFile] + command)
        serverPID = format("#{pid}").flatMap { Int32($0) } ?? 0
        try #require(started.status == 0 && serverPID > 0, "tmux new-session: \(started)")
    }

    /// The server goes, and with it the pane's processes (SIGHUP); SIGKILL if it lingers.
    deinit {
        _ = try? run(["kill-server"])
        if serverPID > 0 {
            for _ in 0..<100 where processIsAlive(serverPID) { usleep(20_000) }
            if processIsAlive(serverPID) { kill(serverPID, SIGKILL) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a tmux client command against this server. Spawned with posix_spawn and waited
    /// for with waitpid, its output in files: the server that `new-session` forks keeps the
    /// client's descriptors, so neither a pipe nor Foundation's `Process` (which watches a
    /// socket its child inherits) would ever see the client end.
    @discardableResult
    func run(_ arguments: [String]) throws -> Run {
        let out = directory + "/" + UUID().uuidString + ".out"
        let err = out + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: err)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else: a pipe of another test's process kept open by the server would stall it.
        _ = Self.closeFrom?(&actions, 3)
        let argv = ([Self.tmux, "-u", "-S", socket, "-f", configuration] + arguments).map { strdup($0) } + [nil]
        let environment: [String] = ["LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin", "HOME=" + directory]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The test runner's signal mask and ignored signals are not tmux's: a server that
        // inherited a blocked SIGCHLD would never see its panes end, nor exit.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, Self.tmux, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw RecError.failure("tmux", "cannot start: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        func text(_ path: String) -> String {
            String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        }
        // The exit status, or 128 + the signal that ended it.
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Run(arguments: arguments, status: code, stdout: text(out), stderr: text(err))
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc does not
    /// import.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
        {
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// Keys by tmux's names: "j", "Enter", "BSpace", "Escape", "Space", "Left", "C-u".
    func send(_ keys: String...) throws {
        let result = try run(["send-keys", "-t", target] + keys)
        try #require(result.status == 0, "tmux send-keys \(keys): \(result)")
    }

    /// Text typed as it is, each character a key.
    func type(_ text: String) throws {
        let result = try run(["send-keys", "-t", target, "-l", text])
        try #require(result.status == 0, "tmux send-keys -l \(text): \(result)")
    }

    /// The visible screen as plain text, one string per row (trailing spaces dropped);
    /// `styled`, with the escape sequences of its colours and attributes.
    func lines(styled: Bool = false) -> [String] {
        guard let result = try? run(["capture-pane", "-p"] + (styled ? ["-e"] : []) + ["-t", target]),
            result.status == 0
        else { return [] }
        return result.lines
    }

    func screen() -> String { lines().joined(separator: "\n") }

    /// Polls the screen every 50 ms until `condition` holds; false when the watchdog ran out.
    @discardableResult
    func waitUntil(timeout: Double = 10, _ condition: ([String]) throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try condition(lines()) { return true }
            if Date() > deadline { return false }
            usleep(50_000)
        }
    }

    /// Waits for `text` to show anywhere on the screen; a failed expectation (with the
    /// screen) when it does not within `timeout` seconds.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let seen = waitUntil(timeout: timeout) { $0.contains { $0.contains(text) } }
        #expect(
            seen, "\(text.debugDescription) did not show within \(timeout) s; the screen:\n\(screen())",
            sourceLocation: sourceLocation)
        return seen
    }

    /// Waits for `text` to be gone from the screen.
    @discardableResult
    func waitForGone(_ text: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let gone = waitUntil(timeout: timeout) { !$0.contains { $0.contains(text) } }
        #expect(
            gone, "\(text.debugDescription) still showed after \(timeout) s; the screen:\n\(screen())",
            sourceLocation: sourceLocation)
        return gone
    }

    /// The window's new size; the pane's program gets SIGWINCH.
    func resize(width: Int, height: Int) throws {
        let result = try run(["resize-window", "-t", target, "-x", "\(width)", "-y", "\(height)"])
        try #require(result.status == 0, "tmux resize-window: \(result)")
    }

    private func format(_ format: String) -> String? {
        guard let result = try? run(["display-message", "-p", "-t", target, format]), result.status == 0 else {
            return nil
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pid of the pane's process (the command, or the shell that runs it).
    var panePID: Int32? { format("#{pane_pid}").flatMap { Int32($0) } }

    /// The command's exit status once it has ended, nil while it runs.
    var exitStatus: Int32? {
        guard let text = try? String(contentsOfFile: statusFile, encoding: .utf8), text.hasSuffix("\n") else {
            return nil
        }
        return Int32(text.dropLast())
    }

    /// Waits for the command to end; its exit status, or nil if it still ran after `timeout` s.
    func waitForExit(timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = exitStatus { return status }
            usleep(50_000)
        }
        return exitStatus
    }

    /// The processes under `pid` (children, theirs, …) named `name`, from /proc: e.g. the
    /// program a shell in the pane runs.
    static func descendants(of pid: Int32, named name: String) -> [Int32] {
        var parents: [Int32: (parent: Int32, name: Substring)] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let id = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = Int32(fields[1]) else { continue }
            parents[id] = (parent, stat[stat.index(after: open)..<close])
        }
        func under(_ id: Int32) -> Bool {
            var current = id
            for _ in 0..<64 {
                guard let parent = parents[current]?.parent, parent > 1 else { return false }
                if parent == pid { return true }
                current = parent
            }
            return false
        }
        return parents.filter { $0.value.name == name && under($0.key) }.map(\.key)
    }
}

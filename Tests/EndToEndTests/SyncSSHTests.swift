import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An sshd of the test's own on 127.0.0.1 at a free port, run as the current user with host
/// and user keys it makes, and the ssh client configuration that reaches it.
final class TestSSHServer {
    static let sshd = "/usr/sbin/sshd"
    /// A Host alias in `ssh_config` for the `host:path` form of a URL.
    static let alias = "recnotes-hub"

    let directory: String
    private(set) var port = 0
    private var pid: pid_t?

    /// What git and git-annex need to reach the server: GIT_SSH_COMMAND alone, as a user sets
    /// it for git. git-annex follows it only with GIT_ANNEX_USE_GIT_SSH=1 (git-annex(1)), which
    /// recnotes sets itself when the user has not (left unset here, so that the audio's
    /// arriving over ssh shows that it did); with it, git-annex does not cache ssh connections
    /// (no control sockets in the temp dir).
    var environment: [String: String?] {
        ["GIT_SSH_COMMAND": "ssh -F \(directory)/ssh_config", "GIT_ANNEX_USE_GIT_SSH": nil]
    }

    /// `ssh://127.0.0.1:PORT/path`.
    func url(_ path: String) -> String { "ssh://127.0.0.1:\(port)\(path)" }

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for key in ["host_key", "user_key"] {
            let made = try Sandbox.execute(
                "/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", directory + "/" + key],
                environment: ["PATH": "/usr/bin:/bin"])
            #expect(made.status == 0, "\(made)")
        }
        try FileManager.default.copyItem(atPath: directory + "/user_key.pub", toPath: directory + "/authorized_keys")
        // sshd run by root checks for its privilege separation directory, which Debian's
        // ssh.service makes at boot (RuntimeDirectory); a container may not have it.
        if geteuid() == 0, !FileManager.default.fileExists(atPath: "/run/sshd") {
            mkdir("/run/sshd", 0o755)
        }
        // A port found free may be taken before sshd binds it: try another.
        var log = ""
        for _ in 0..<3 {
            port = try Self.freePort()
            if try start(log: &log) { return }
        }
        Issue.record("sshd did not start: \(log)")
        throw CocoaError(.featureUnsupported)
    }

    deinit { stop() }

    /// Stops the server by its pid (its sessions end with their connections).
    func stop() {
        guard let pid else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        self.pid = nil
    }

    var log: String { (try? String(contentsOfFile: directory + "/sshd.log", encoding: .utf8)) ?? "" }

    private func start(log: inout String) throws -> Bool {
        let config = """
            ListenAddress 127.0.0.1
            Port \(port)
            HostKey \(directory)/host_key
            PidFile \(directory)/sshd.pid
            AuthorizedKeysFile \(directory)/authorized_keys
            UsePAM no
            StrictModes no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password

            """
        try config.write(toFile: directory + "/sshd_config", atomically: true, encoding: .utf8)
        let hostKey = try String(contentsOfFile: directory + "/host_key.pub", encoding: .utf8)
            .split(separator: " ").prefix(2).joined(separator: " ")
        try "[127.0.0.1]:\(port) \(hostKey)\n".write(
            toFile: directory + "/known_hosts", atomically: true, encoding: .utf8)
        let client = """
            Host \(Self.alias)
              HostName 127.0.0.1
              Port \(port)
            Host *
              IdentityFile \(directory)/user_key
              IdentitiesOnly yes
              UserKnownHostsFile \(directory)/known_hosts
              GlobalKnownHostsFile /dev/null
              StrictHostKeyChecking yes
              BatchMode yes
              ConnectTimeout 10
              LogLevel ERROR

            """
        try client.write(toFile: directory + "/ssh_config", atomically: true, encoding: .utf8)

        // posix_spawn, not Foundation's Process: Process reaps its children with a blocking
        // wait4 on each one it started, so a long-running sshd would stall every later run.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, directory + "/sshd.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let arguments = [Self.sshd, "-D", "-e", "-f", directory + "/sshd_config"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, Self.sshd, &actions, nil, &argv, environ) == 0 else {
            log = "cannot start \(Self.sshd)"
            return false
        }
        self.pid = pid
        // Listening when it says so; gone when the port was taken or the config refused.
        for _ in 0..<400 {
            if self.log.contains("Server listening on 127.0.0.1 port \(port)") { return true }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                self.pid = nil
                break
            }
            usleep(25_000)
        }
        log = self.log
        stop()
        return false
    }

    /// A port nothing listens on now: the kernel's choice for a socket bound to port 0.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CocoaError(.featureUnsupported) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.featureUnsupported) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// `sync remote add`, `sync`, `sync clone` and `get` over ssh, to a hub reached through an sshd
/// the test starts (as the current user, root included) on 127.0.0.1.
@Suite(
    "Sync: over ssh",
    .enabled(if: FileManager.default.isExecutableFile(atPath: TestSSHServer.sshd), "no /usr/sbin/sshd to test with"))
struct SyncSSHTests {
    func git(_ directory: String, _ arguments: String...) throws -> Run {
        try Sandbox.execute("/usr/bin/git", ["-C", directory] + arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    /// The content of every file under `directory` (git-annex's object store of a hub).
    func contents(under directory: String) -> [Data] {
        let walk = FileManager.default.enumerator(atPath: directory)
        var found: [Data] = []
        while let name = walk?.nextObject() as? String {
            var info = stat()
            if lstat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                let data = FileManager.default.contents(atPath: directory + "/" + name)
            {
                found.append(data)
            }
        }
        return found
    }

    @Test(
        "a hub over ssh (ssh:// and host:path): add, sync, clone, get, changes both ways; an unreachable one is one line, nothing changed"
    )
    func overSSH() throws {
        let laptop = try Sandbox()
        let server = try TestSSHServer(directory: laptop.root + "/sshd")
        defer { server.stop() }
        let ssh = server.environment
        // The hub, made on the server as a person would; an ssh remote must hold a repository.
        let hub = laptop.root + "/srv/hub.git"
        try FileManager.default.createDirectory(atPath: hub, withIntermediateDirectories: true)
        #expect(try git(hub, "init", "-q", "--bare").status == 0)
        let hubInit = try Sandbox.execute(
            "/usr/bin/git", ["-C", hub, "annex", "init", "-q", "hub"], environment: laptop.baseEnvironment)
        #expect(hubInit.status == 0, "\(hubInit)")

        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.succeed("mkdir", "/Work")
        let memo = try laptop.addWAVRecording("memo", in: "/Work", frames: 8000)
        let url = server.url(hub)
        let added = try laptop.run(["sync", "remote", "add", "hub", url], environment: ssh)
        expectSuccess(added)
        #expect(added.lines == ["sync remote add: added remote 'hub' (\(url))"], "\(server.log)")
        let first = try laptop.run(["sync"], environment: ssh)
        expectSuccess(first)
        #expect(
            first.lines.first?.hasPrefix("sync with hub: 0 items received, 2 sent; audio 0 received (0 B), 1 sent")
                == true, "\(first)")
        let audio = try #require(FileManager.default.contents(atPath: laptop.audioDirectory + "/\(memo).wav"))
        #expect(contents(under: hub + "/annex/objects").contains(audio), "the hub holds the audio")

        // A second machine clones through the Host alias, in the host:path form.
        let desk = try Sandbox()
        let aliasURL = "\(TestSSHServer.alias):\(hub)"
        let cloned = try desk.run(["sync", "clone", "--name", "desk", aliasURL], environment: ssh)
        expectSuccess(cloned)
        #expect(cloned.lines.first == "sync clone: cloned \(aliasURL) into \(desk.store)", "\(cloned)")
        #expect(try desk.succeed("ls", "/Work").lines == ["memo"])
        #expect(!FileManager.default.fileExists(atPath: desk.audioDirectory + "/\(memo).wav"))
        // A clone calls the remote it came from origin, as git does; the laptop has a copy too.
        let copies = try desk.succeed("info", "/Work/memo").lines
        #expect(copies.contains("copies:    laptop, origin"), "\(copies)")
        let got = try desk.run(["get", "/Work/memo"], environment: ssh)
        expectSuccess(got)
        #expect(got.lines.first?.hasPrefix("get: 1 recording brought here (") == true, "\(got)")
        #expect(FileManager.default.contents(atPath: desk.audioDirectory + "/\(memo).wav") == audio)

        // Changes both ways: a tag and a folder from the desk, a new recording from the laptop.
        try desk.succeed("tag", "/Work/memo", "+ssh")
        try desk.succeed("mkdir", "/Desk")
        expectSuccess(try desk.run(["sync"], environment: ssh))
        try laptop.succeed("mkdir", "/Laptop")
        let second = try laptop.addWAVRecording("second", in: "/Laptop", frames: 4000)
        let merged = try laptop.run(["sync", "--json"], environment: ssh)
        expectSuccess(merged)
        let report = try merged.object()
        #expect(report["received"] as? Int == 2, "\(report)")
        #expect((report["audioSent"] as? [String: Any])?["count"] as? Int == 1, "\(report)")
        #expect(try laptop.succeed("tags").stdout.contains("ssh"))
        let back = try desk.run(["sync", "--json"], environment: ssh)
        expectSuccess(back)
        #expect((try back.object()["audioReceived"] as? [String: Any])?["count"] as? Int == 1, "\(back)")
        #expect(
            FileManager.default.contents(atPath: desk.audioDirectory + "/\(second).wav")
                == FileManager.default.contents(atPath: laptop.audioDirectory + "/\(second).wav"))
        #expect(try desk.succeed("tree").stdout == laptop.succeed("tree").stdout)
        #expect(
            FileManager.default.contents(atPath: desk.storeFile)
                == FileManager.default.contents(atPath: laptop.storeFile))
        for machine in [laptop, desk] { try machine.succeed("fsck") }

        // Nothing listens on a wrong port: one line naming the remote, exit 1, nothing changed.
        let config = try String(contentsOfFile: laptop.store + "/.git/config", encoding: .utf8)
        let wrong = "ssh://127.0.0.1:\(try TestSSHServer.freePort())\(hub)"
        let far = try laptop.run(["sync", "remote", "add", "far", wrong], environment: ssh)
        expectOneLineFailure(far, "far: cannot reach \(wrong): ssh: connect to host 127.0.0.1 port")
        #expect(try String(contentsOfFile: laptop.store + "/.git/config", encoding: .utf8) == config)
        let elsewhere = try Sandbox()
        expectOneLineFailure(
            try elsewhere.run(["sync", "clone", wrong], environment: ssh), "cannot clone \(wrong): ssh: connect")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.storeFile))
        // A repository that is not there: git's own reason, not its boilerplate.
        let missing = server.url(laptop.root + "/srv/none.git")
        expectOneLineFailure(
            try laptop.run(["sync", "remote", "add", "none", missing], environment: ssh),
            "none: cannot reach \(missing): '\(laptop.root)/srv/none.git' does not appear to be a git repository")

        // The server gone: a sync is one line naming the remote, exit status 75; what changed
        // here is committed, for the next sync to send; the library is as it was.
        server.stop()
        try laptop.succeed("mkdir", "/Offline")
        let head = try git(laptop.store, "rev-parse", "HEAD").stdout
        let before = laptop.storeBytes
        let offline = try laptop.run(["sync"], environment: ssh)
        expectOneLineFailure(
            offline, "sync: not reached: hub (cannot reach \(url): ssh: connect to host 127.0.0.1 port", status: 75)
        #expect(offline.stdout.contains("not synced with hub: cannot reach"), "\(offline)")
        #expect(try git(laptop.store, "rev-parse", "HEAD").stdout != head)
        #expect(try git(laptop.store, "status", "--porcelain", "store.json").stdout.isEmpty)
        #expect(laptop.storeBytes == before)
        #expect(try laptop.succeed("ls", "/Offline").status == 0)
    }
}

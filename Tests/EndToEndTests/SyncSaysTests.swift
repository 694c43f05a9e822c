import Foundation
import Testing

/// sync's options as typed, its help, and an interrupted sync.
@Suite("Sync: options, help, Ctrl-C")
struct SyncSaysTests {
    @Test("sync -q, --store DIR sync remote, sync --help: the options sync takes")
    func options() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.succeed("sync", "remote", "add", "hub", laptop.root + "/hub")
        try laptop.addWAVRecording("one", in: "/", frames: 800)
        let quiet = try laptop.run("sync", "-q")
        #expect(quiet.status == 0 && quiet.stdout == "" && quiet.stderr == "", "\(quiet)")
        let listed = try laptop.run(["--store", laptop.store, "sync", "remote"], store: false)
        #expect(listed.status == 0 && listed.lines == ["hub\t\(laptop.root)/hub"], "\(listed)")
        // One help, with the store given or not: sync's subcommands and a plain sync's options.
        let help = try laptop.run("sync", "--help")
        #expect(help.status == 0, "\(help)")
        for option in ["--quiet", "--json", "--no-content", "<remote>", "remote", "clone", "USAGE: recnotes sync ["] {
            #expect(help.stdout.contains(option), "\(option) missing from \(help.stdout)")
        }
        #expect(!help.stdout.contains("recnotes sync now"), "\(help.stdout)")
        #expect(try laptop.run(["--store", laptop.store, "sync", "--help"], store: false).stdout == help.stdout)
    }

    @Test("Ctrl-C while audio moves: the live line goes, one line says the next sync finishes it, exit 130")
    func interrupted() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.succeed("sync", "remote", "add", "hub", laptop.root + "/hub")
        try laptop.addWAVRecording("one", in: "/", frames: 8000)
        // A git-annex whose copy reports some progress and then waits, as a slow link would.
        let bin = laptop.root + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try """
        #!/bin/sh
        if [ "$1" = copy ]; then
          echo '{"byte-progress":10,"action":{"command":"copy","note":"to hub..."}}'
          exec sleep 600
        fi
        exec /usr/bin/git-annex "$@"
        """.write(toFile: bin + "/git-annex", atomically: true, encoding: .utf8)
        chmod(bin + "/git-annex", 0o755)
        var environment = laptop.baseEnvironment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["PS1"] = "ready$ "
        environment["B"] = Sandbox.binary
        environment["S"] = laptop.store
        // A shell with job control: Ctrl-C goes to the sync's process group, as at a prompt.
        let tmux = try TmuxSession(
            width: 100, directory: laptop.root, environment: environment,
            command: ["/bin/bash", "--norc", "--noprofile", "-i"])
        #expect(tmux.waitUntil { $0.last { !$0.isEmpty } == "ready$" }, "\(tmux.screen())")
        try tmux.type("$B --store $S sync; echo \"sync exited $?\"")
        try tmux.send("Enter")
        #expect(tmux.waitFor("audio: 0/1 files"))
        try tmux.send("C-c")
        #expect(tmux.waitFor("sync exited 130", timeout: 30))
        let screen = tmux.lines().filter { !$0.isEmpty }
        #expect(screen.contains("recnotes: sync: interrupted; the next sync finishes it"), "\(screen)")
        #expect(!screen.contains { $0.contains("audio:") }, "\(screen)")
        // The next sync sends what the interrupted one did not.
        let next = try laptop.succeed("sync", "--json").object()
        #expect((next["audioSent"] as? [String: Any])?["count"] as? Int == 1, "\(next)")
    }
}

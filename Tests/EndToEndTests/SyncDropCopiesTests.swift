import Foundation
import Testing

/// `drop` that stays dropped and refuses what has no other copy, `info`'s copies, and what
/// git-annex or ssh said of a failure, over real git and git-annex between stores of
/// separate sandboxes through a bare hub on a path.
@Suite("Sync: drop, copies, failures")
struct SyncDropCopiesTests {
    func git(_ directory: String, _ arguments: String...) throws -> Run {
        try Sandbox.execute("/usr/bin/git", ["-C", directory] + arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test("drop of audio never synced is refused and names it; a folder's others are dropped, the kept one named")
    func dropOnlyCopy() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.succeed("sync", "remote", "add", "hub", laptop.root + "/hub")
        try laptop.succeed("mkdir", "/Ideas")
        let old = try laptop.addWAVRecording("old", in: "/Ideas", frames: 8000)
        try laptop.succeed("sync")
        // Made after the last sync: its audio is a plain file git-annex has not seen.
        let new = try laptop.addWAVRecording("new", in: "/Ideas", frames: 8000)
        let newAudio = laptop.audioDirectory + "/\(new).wav"
        let refused = try laptop.run("drop", "/Ideas/new")
        expectOneLineFailure(refused, "drop: /Ideas/new: no other copy is known (copies: here); kept here")
        #expect(refused.stdout == "", "\(refused)")
        #expect(exists(newAudio))

        let folder = try laptop.run("drop", "/Ideas")
        expectOneLineFailure(folder, "drop: /Ideas/new: no other copy is known")
        #expect(
            folder.lines.count == 1 && folder.lines[0].hasPrefix("drop: 1 recording dropped here (")
                && folder.lines[0].hasSuffix("freed), 0 not here already"), "\(folder)")
        #expect(!exists(laptop.audioDirectory + "/\(old).wav"))
        #expect(exists(newAudio))
        try laptop.succeed("fsck")
    }

    @Test("a dropped recording stays dropped through later syncs, new audio still comes; get lets sync bring it again")
    func dropStaysDropped() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        let hub = laptop.root + "/hub"
        try laptop.succeed("sync", "remote", "add", "hub", hub)
        try laptop.succeed("mkdir", "/Ideas")
        let big = try laptop.addWAVRecording("big", in: "/Ideas", frames: 16000)
        try laptop.succeed("sync")
        let audio = laptop.audioDirectory + "/\(big).wav"
        let bytes = FileManager.default.contents(atPath: audio)
        try laptop.succeed("drop", "/Ideas/big")
        #expect(!exists(audio))

        // Another machine adds a recording: this sync brings it, and not the dropped one.
        let desk = try Sandbox()
        try desk.succeed("sync", "clone", "--name", "desk", hub)
        let memo = try desk.addWAVRecording("memo", in: "/Ideas", frames: 4000)
        try desk.succeed("sync")
        let synced = try laptop.succeed("sync", "--json").object()
        #expect((synced["audioReceived"] as? [String: Any])?["count"] as? Int == 1, "\(synced)")
        #expect(exists(laptop.audioDirectory + "/\(memo).wav"))
        #expect(!exists(audio))
        try laptop.succeed("sync")
        #expect(!exists(audio))

        // Asked for again, it is here, and it travels with sync as before: dropped behind
        // recnotes' back, the next sync brings it.
        try laptop.succeed("get", "/Ideas/big")
        #expect(FileManager.default.contents(atPath: audio) == bytes)
        let dropped = try git(laptop.store, "annex", "drop", "audio/\(big).wav")
        #expect(dropped.status == 0, "\(dropped)")
        #expect(!exists(audio))
        try laptop.succeed("sync")
        #expect(FileManager.default.contents(atPath: audio) == bytes)
    }

    @Test("info's copies, text and --json: remotes by the names given, other machines, a removed remote left out")
    func copies() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        // The hub's git-annex description is its directory's name, not the remote's.
        let hub = laptop.root + "/disk/notes.git"
        try laptop.succeed("sync", "remote", "add", "usb", hub)
        let memo = try laptop.addWAVRecording("memo", in: "/", frames: 4000)
        let unsynced = try laptop.run(["info", "--json", "/memo"])
        #expect(try unsynced.object()["copies"] as? [String] == ["here"], "\(unsynced)")
        try laptop.succeed("sync")

        let desk = try Sandbox()
        try desk.succeed("sync", "clone", "--name", "desk", hub)
        #expect(try desk.succeed("info", "/memo").lines.contains("copies:    laptop, origin"))
        #expect(try desk.succeed("info", "--json", "/memo").object()["copies"] as? [String] == ["laptop", "origin"])
        try desk.succeed("sync")
        try laptop.succeed("sync")
        #expect(try laptop.succeed("info", "/memo").lines.contains("copies:    here, desk, usb"))
        #expect(
            try laptop.succeed("info", "--json", "/memo").object()["copies"] as? [String] == ["here", "desk", "usb"])

        try laptop.succeed("sync", "remote", "remove", "usb")
        #expect(try laptop.succeed("info", "/memo").lines.contains("copies:    here, desk"))
        #expect(try laptop.succeed("info", "--json", "/memo").object()["copies"] as? [String] == ["here", "desk"])
        // Added again, it is a copy again.
        try laptop.succeed("sync", "remote", "add", "usb", hub)
        #expect(
            try laptop.succeed("info", "--json", "/memo").object()["copies"] as? [String] == ["here", "desk", "usb"])

        // Outside a sync repository, and for a folder, there is no "copies" key.
        let alone = try Sandbox()
        try alone.addWAVRecording("solo", in: "/", frames: 800)
        #expect(try alone.succeed("info", "--json", "/solo").object()["copies"] == nil)
        #expect(try laptop.succeed("info", "--json", "/").object()["copies"] == nil)
        _ = memo
    }

    @Test("annex.diskreserve keeping audio off the disk: sync and get say how much more space git-annex needs")
    func fullDisk() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        let hub = laptop.root + "/hub"
        try laptop.succeed("sync", "remote", "add", "hub", hub)
        try laptop.addWAVRecording("one", in: "/", frames: 8000)
        try laptop.addWAVRecording("two", in: "/", frames: 16000)
        try laptop.succeed("sync")
        let desk = try Sandbox()
        try desk.succeed("sync", "clone", "--name", "desk", hub)
        // More than any disk has free: git-annex refuses every file, as on a full disk.
        #expect(try git(desk.store, "config", "annex.diskreserve", "1000000TB").status == 0)
        let synced = try desk.run("sync")
        #expect(synced.status == 1, "\(synced)")
        let line = synced.lines.first { $0.hasPrefix("audio: 2 files could not be moved") }
        #expect(line?.hasPrefix("audio: 2 files could not be moved: not enough free space, need ") == true, "\(synced)")
        #expect(line?.contains(" more") == true, "\(synced)")
        expectOneLineFailure(try desk.run("get", "/one"), "get: /one: not enough free space, need ")
    }

    @Test("an ssh error with CR LF line ends is one readable line")
    func sshErrorOneLine() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        // An ssh that fails as OpenSSH does on a terminal, its lines ended with CR LF.
        let ssh = laptop.root + "/fake-ssh"
        try "#!/bin/sh\nprintf 'ssh: connect to host nas\\tport 22: Connection refused\\r\\n' >&2\nexit 255\n"
            .write(toFile: ssh, atomically: true, encoding: .utf8)
        chmod(ssh, 0o755)
        let run = try laptop.run(
            ["sync", "remote", "add", "far", "ssh://nas/srv/notes"], environment: ["GIT_SSH_COMMAND": ssh])
        expectOneLineFailure(run, "far: cannot reach ssh://nas/srv/notes: ")
        let line = run.stderr.dropLast()
        #expect(
            !line.unicodeScalars.contains { $0.properties.generalCategory == .control },
            "\(run.stderr.debugDescription)")
        #expect(!line.contains("\\u{"), "\(run.stderr.debugDescription)")
        #expect(
            line.hasSuffix("cannot reach ssh://nas/srv/notes: ssh: connect to host nas port 22: Connection refused"),
            "\(run.stderr.debugDescription)")
    }
}

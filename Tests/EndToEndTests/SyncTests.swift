import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `sync remote`, `sync`, `sync clone` over real git and git-annex, between stores of
/// separate sandboxes (each its own HOME: its own machine) through a bare hub on a path.
@Suite("Sync: remotes, sync, clone")
struct SyncTests {
    func git(_ directory: String, _ arguments: String...) throws -> String {
        let run = try Sandbox.execute(
            "/usr/bin/git", ["-C", directory] + arguments, environment: ["PATH": "/usr/bin:/bin"])
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A machine set up for sync with a hub remote at `hub`.
    func machine(_ name: String, hub: String) throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.succeed("sync", "init", "--name", name)
        try sandbox.succeed("sync", "remote", "add", "hub", hub)
        return sandbox
    }

    @Test("a store never set up: every sync subcommand but init and clone names 'recnotes sync init'")
    func notSetUp() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Work")
        let before = try sandbox.storeListing()
        for arguments in [
            ["sync"], ["sync", "hub"], ["sync", "--no-content"], ["sync", "remote", "list"],
            ["sync", "remote", "add", "hub", sandbox.root + "/hub"], ["sync", "remote", "remove", "hub"],
        ] {
            expectOneLineFailure(try sandbox.run(arguments), "run 'recnotes sync init' first")
        }
        #expect(try sandbox.storeListing() == before)
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/hub"))
    }

    @Test("remote add makes a missing or empty directory a bare repository; list, remove; bad names and URLs refused")
    func remotes() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("sync", "init", "--name", "laptop")
        let hub = sandbox.root + "/disk/hub"
        let added = try sandbox.succeed("sync", "remote", "add", "hub", hub).lines
        #expect(
            added == [
                "sync remote add: made \(hub) a bare git and git-annex repository",
                "sync remote add: added remote 'hub' (\(hub))",
            ])
        #expect(try git(hub, "rev-parse", "--is-bare-repository") == "true")
        #expect(!(try git(hub, "config", "annex.uuid")).isEmpty)
        try FileManager.default.createDirectory(atPath: sandbox.root + "/empty", withIntermediateDirectories: true)
        try sandbox.succeed("sync", "remote", "add", "usb", sandbox.root + "/empty")
        #expect(try sandbox.succeed("sync", "remote", "list").lines == ["hub\t\(hub)", "usb\t\(sandbox.root)/empty"])
        let json = try #require(try sandbox.succeed("sync", "remote", "list", "--json").json() as? [[String: Any]])
        #expect(json.map { $0["name"] as? String } == ["hub", "usb"])
        #expect(json.first?["url"] as? String == hub)

        let config = try String(contentsOfFile: sandbox.store + "/.git/config", encoding: .utf8)
        try "x".write(toFile: sandbox.root + "/file", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: sandbox.root + "/full", withIntermediateDirectories: true)
        try "x".write(toFile: sandbox.root + "/full/thing", atomically: true, encoding: .utf8)
        expectOneLineFailure(
            try sandbox.run("sync", "remote", "add", "bad", sandbox.root + "/file/sub"), "is not a directory")
        expectOneLineFailure(
            try sandbox.run("sync", "remote", "add", "bad", sandbox.root + "/file"), "is not a directory")
        expectOneLineFailure(
            try sandbox.run("sync", "remote", "add", "bad", sandbox.root + "/full"), "not a repository, and not empty")
        expectOneLineFailure(try sandbox.run("sync", "remote", "add", "hub", sandbox.root + "/other"), "exists already")
        expectOneLineFailure(try sandbox.run("sync", "remote", "remove", "nope"), "no remote named 'nope'")
        expectOneLineFailure(try sandbox.run("sync", "nope"), "no remote named 'nope'")
        // `recnotes sync init` must keep meaning init; "here" is this machine in info's copies.
        for reserved in ["init", "remote", "clone", "now", "merge-driver", "help", "here"] {
            expectOneLineFailure(
                try sandbox.run("sync", "remote", "add", reserved, sandbox.root + "/r-\(reserved)"),
                "'\(reserved)' cannot name a remote", status: 64)
        }
        let unreachable = try sandbox.run("sync", "remote", "add", "far", "ssh://127.0.0.1:1/nothing")
        expectOneLineFailure(unreachable, "far: cannot reach ssh://127.0.0.1:1/nothing")
        #expect(try String(contentsOfFile: sandbox.store + "/.git/config", encoding: .utf8) == config)
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/other"))

        #expect(
            try sandbox.succeed("sync", "remote", "remove", "usb").lines == ["sync remote remove: removed remote 'usb'"]
        )
        #expect(try sandbox.succeed("sync", "remote", "list").lines == ["hub\t\(hub)"])
    }

    @Test("two machines through a hub: documents and audio both ways, a conflict named, history, undo refuses")
    func twoMachines() throws {
        let laptop = try Sandbox()
        let hub = laptop.root + "/hub"
        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.succeed("mkdir", "/Work")
        let memo = try laptop.addWAVRecording("memo", in: "/Work", frames: 8000)
        try laptop.succeed("sync", "remote", "add", "hub", hub)
        let first = try laptop.succeed("sync").lines
        #expect(
            first.first?.hasPrefix("sync with hub: 0 items received, 2 sent; audio 0 received (0 B), 1 sent") == true,
            "\(first)")
        // The audio is in the annex now (a symlink to its content), the hub has a copy.
        let audio = laptop.audioDirectory + "/\(memo).wav"
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: audio))?.contains(".git/annex/objects") == true)
        #expect(try git(laptop.store, "annex", "whereis", "--json", "audio/\(memo).wav").contains("hub"))

        let desk = try Sandbox()
        let cloned = try desk.succeed("sync", "clone", "--name", "desk", hub).lines
        #expect(cloned.first == "sync clone: cloned \(hub) into \(desk.store)", "\(cloned)")
        #expect(try desk.succeed("ls", "/Work").lines == ["memo"])
        #expect(!FileManager.default.fileExists(atPath: desk.audioDirectory + "/\(memo).wav"))
        let got = try desk.succeed("sync", "--json").object()
        #expect((got["audioReceived"] as? [String: Any])?["count"] as? Int == 1, "\(got)")
        #expect(
            FileManager.default.contents(atPath: desk.audioDirectory + "/\(memo).wav")
                == FileManager.default.contents(atPath: audio))

        // Both rename the same folder: the later change wins, the other is reported.
        try laptop.succeed("mv", "/Work", "/Job")
        try laptop.succeed("tag", "/Job/memo", "+budget")
        try desk.succeed("mv", "/Work", "/Office")
        try desk.succeed("mkdir", "/Home")
        #expect(
            try desk.succeed("sync", "--no-content").lines.first?.hasPrefix(
                "sync with origin: 0 items received, 2 sent")
                == true)
        let merged = try laptop.succeed("sync")
        #expect(merged.lines.contains { $0.hasPrefix("conflict (name) /") }, "\(merged)")
        #expect(merged.lines.first?.hasPrefix("sync with hub: 0 items received") == false, "\(merged)")
        try desk.succeed("sync")
        #expect(try desk.succeed("tree").stdout == laptop.succeed("tree").stdout)
        #expect(try desk.succeed("tags").stdout.contains("budget"))
        #expect(
            FileManager.default.contents(atPath: desk.storeFile)
                == FileManager.default.contents(atPath: laptop.storeFile))

        // The sync is a history entry that undo passes over, to this machine's own last change.
        #expect(try laptop.succeed("history").stdout.contains("sync with hub: "))
        #expect(try laptop.succeed("undo", "--dry-run").stdout.contains("+budget"))
        for machine in [laptop, desk] { try machine.succeed("fsck") }
        // Nothing to do: nothing received or sent, no new history entry.
        let idle = try desk.succeed("sync").lines
        // A clone calls the remote it came from origin, as git does.
        #expect(idle == ["sync with origin: 0 items received, 0 sent; audio 0 received (0 B), 0 sent (0 B)"])
    }

    @Test("audio that store.json does not hold (a recording still being made) does not travel")
    func unsavedAudioStays() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.addWAVRecording("saved", in: "/", frames: 800)
        let unsaved = laptop.audioDirectory + "/\(UUID().uuidString.lowercased()).wav"
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: unsaved))
        try laptop.succeed("sync", "remote", "add", "hub", laptop.root + "/hub")
        try laptop.succeed("sync")
        let tracked = try git(laptop.store, "ls-files", "audio").split(separator: "\n")
        #expect(tracked.count == 1)
        #expect(!tracked.contains { unsaved.hasSuffix($0) })
        var info = stat()
        #expect(lstat(unsaved, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
    }

    @Test("a second sync of one store refuses in one line while the first holds the sync lock")
    func concurrentSync() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.succeed("sync", "remote", "add", "hub", laptop.root + "/hub")
        try laptop.addWAVRecording("saved", in: "/", frames: 800)
        try laptop.succeed("sync")
        let fd = open(laptop.store + "/.git/recnotes/sync.lock", O_RDWR)
        #expect(fd >= 0)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        expectOneLineFailure(try laptop.run("sync"), "another sync of this store is running")
        // git-annex's own work in the repository waits for the sync too.
        expectOneLineFailure(try laptop.run("get", "/saved"), "a sync of this store is running")
        expectOneLineFailure(try laptop.run("drop", "/saved"), "a sync of this store is running")
        expectOneLineFailure(try laptop.run("sync", "remote", "remove", "hub"), "a sync of this store is running")
        close(fd)
        try laptop.succeed("sync")
    }

    @Test(
        "a change made here while a receiving sync's merge waits to be installed is merged, not lost (fast-forward and merge)"
    )
    func changeWhileReceiving() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        let hub = laptop.root + "/hub"
        try laptop.succeed("sync", "remote", "add", "hub", hub)
        try laptop.succeed("mkdir", "/Shared")
        try laptop.succeed("sync", "--no-content")
        let desk = try Sandbox()
        try desk.succeed("sync", "clone", "--name", "desk", hub)
        for (round, ownChange) in [(0, false), (1, true)] {
            try desk.succeed("mkdir", "/Desk\(round)")
            try desk.succeed("tag", "/Shared", "+desk\(round)")
            try desk.succeed("sync", "--no-content")
            // Without a change here the sync fast-forwards; with one it merges.
            if ownChange { try laptop.succeed("mkdir", "/Before\(round)") }
            let pause = laptop.root + "/paused-\(round)"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Sandbox.binary)
            process.arguments = ["--store", laptop.store, "sync", "--no-content", "--json"]
            process.environment = laptop.baseEnvironment.merging(["RECNOTES_SYNC_PAUSE": pause]) { $1 }
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            #expect(
                RemoteControlTests.eventually { FileManager.default.fileExists(atPath: pause) },
                "the sync never prepared its merge")
            // The merge is ready and not yet in place: the store is not locked, and these
            // change store.json and a transcript-free item both sides know.
            try laptop.succeed("mkdir", "/During\(round)")
            try laptop.succeed("tag", "/Shared", "+laptop\(round)")
            try FileManager.default.removeItem(atPath: pause)
            let output = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let report = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            #expect(report["received"] as? Int ?? 0 >= 2, "\(report)")
            let here = try laptop.succeed("ls", "/").lines
            for name in ["Desk\(round)", "During\(round)"] + (ownChange ? ["Before\(round)"] : []) {
                #expect(here.contains(name), "\(name) missing after round \(round): \(here)")
            }
            let tags = try laptop.succeed("tags").stdout
            for tag in ["desk\(round)", "laptop\(round)"] { #expect(tags.contains(tag), "\(tags)") }
            // All of it committed and sent by this sync: the work tree is clean.
            #expect(try git(laptop.store, "status", "--porcelain", "--untracked-files=no") == "")
            try laptop.succeed("fsck")
            try desk.succeed("sync", "--no-content")
            #expect(try desk.succeed("tree").stdout == laptop.succeed("tree").stdout)
        }
    }

    @Test(
        "kill -9 during a sync: store.json valid, fsck clean, the next sync completes; stale git lock files here and in the hub too"
    )
    func killedSync() throws {
        let laptop = try Sandbox()
        try laptop.succeed("sync", "init", "--name", "laptop")
        let hub = laptop.root + "/hub"
        try laptop.succeed("sync", "remote", "add", "hub", hub)
        let desk = try Sandbox()
        try laptop.succeed("sync")
        try desk.succeed("sync", "clone", "--name", "desk", hub)
        // The lock files of gits killed mid-commit, mid-fetch, mid-merge and mid-push, here
        // and in the hub (which is on this machine: a power cut kills its git too).
        try laptop.succeed("mkdir", "/Stale")
        let branch = try git(laptop.store, "symbolic-ref", "--short", "HEAD")
        let stale = [
            laptop.store + "/.git/index.lock", laptop.store + "/.git/refs/remotes/hub/\(branch).lock",
            laptop.store + "/.git/config.lock", laptop.store + "/.git/annex/index.lock",
            hub + "/refs/heads/synced/\(branch).lock", hub + "/packed-refs.lock",
        ]
        for file in stale { FileManager.default.createFile(atPath: file, contents: Data()) }
        try laptop.succeed("sync")
        #expect(stale.filter { FileManager.default.fileExists(atPath: $0) } == [])
        #expect(try desk.succeed("sync").status == 0)
        // What a git killed mid-write leaves (it writes in place): store.json cut short, or
        // gone. The next command, whatever it is, puts back the last commit's whole file.
        let storeFile = laptop.store + "/store.json"
        let whole = try Data(contentsOf: URL(fileURLWithPath: storeFile))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: storeFile))
        try laptop.succeed("ls", "/")
        #expect(try Data(contentsOf: URL(fileURLWithPath: storeFile)) == whole)
        try FileManager.default.removeItem(atPath: storeFile)
        try laptop.succeed("ls", "/Stale")
        #expect(try Data(contentsOf: URL(fileURLWithPath: storeFile)) == whole)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<6 {
            try laptop.succeed("mkdir", "/L\(round)")
            try laptop.addWAVRecording("r\(round)", in: "/L\(round)", frames: 4000)
            try desk.succeed("mkdir", "/D\(round)")
            try desk.succeed("sync", "--no-content")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Sandbox.binary)
            process.arguments = ["--store", laptop.store, "sync"]
            process.environment = laptop.baseEnvironment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // A different moment of the sync each round; what is checked does not depend on it.
            usleep(UInt32.random(in: 0..<400_000, using: &generator))
            // The whole tree at once, as a power cut would: recnotes and the git it runs.
            killProcessTree(process.processIdentifier)
            process.waitUntilExit()
            try laptop.succeed("ls", "/")
            try laptop.succeed("fsck")
            try laptop.succeed("sync")
            try laptop.succeed("fsck")
            #expect(try laptop.succeed("ls", "/D\(round)").status == 0)
        }
        try desk.succeed("sync")
        #expect(try desk.succeed("tree").stdout == laptop.succeed("tree").stdout)
    }
}

@Suite("Sync: get, drop, copies")
struct SyncAudioTests {
    @Test(
        "get and drop move audio; drop refused with no other copy; info copies; ls -l marks; play and export name where it is"
    )
    func getDropCopies() throws {
        let laptop = try Sandbox()
        try laptop.succeed("mkdir", "/Work")
        let memo = try laptop.addWAVRecording("memo", in: "/Work", frames: 8000)
        expectOneLineFailure(try laptop.run("get", "/Work"), "run 'recnotes sync init' first")
        expectOneLineFailure(try laptop.run("drop", "/Work"), "run 'recnotes sync init' first")
        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.succeed("sync", "remote", "add", "hub", laptop.root + "/hub")
        try laptop.succeed("sync", "--no-content")
        // Only here: drop refuses, names where the copies are, and drops nothing.
        let refused = try laptop.run("drop", "/Work")
        expectOneLineFailure(refused, "/Work/memo: no other copy is known (copies: here)")
        let audio = laptop.audioDirectory + "/\(memo).wav"
        #expect(FileManager.default.fileExists(atPath: audio))
        try laptop.succeed("sync")
        #expect(try laptop.succeed("info", "/Work/memo").lines.contains("copies:    here, hub"))
        #expect(try laptop.succeed("drop", "/Work").lines.first?.hasPrefix("drop: 1 recording dropped here (") == true)
        #expect(!FileManager.default.fileExists(atPath: audio))
        #expect(try laptop.succeed("info", "/Work/memo").lines.contains("copies:    hub"))
        #expect(try laptop.succeed("ls", "-l", "/Work").stdout.contains("not here"))
        try laptop.succeed("fsck")
        for arguments in [["play", "/Work/memo"], ["export", "/Work/memo", laptop.root + "/out.wav"]] {
            let run = try laptop.run(arguments)
            expectOneLineFailure(
                run,
                "/Work/memo: the audio is not on this machine (it is on hub); bring it with 'recnotes get /Work/memo'")
        }
        #expect(!FileManager.default.fileExists(atPath: laptop.root + "/out.wav"))
        let got = try laptop.succeed("get", "/").lines
        #expect(
            got.count == 1 && got[0].hasPrefix("get: 1 recording brought here (")
                && got[0].hasSuffix("), 0 here already"))
        #expect(FileManager.default.fileExists(atPath: audio))
        try laptop.succeed("export", "/Work/memo", laptop.root + "/out.wav")
    }
}

/// One line on stderr, exit 1.
func expectOneLineFailure(
    _ run: Run, _ fragment: String, status: Int32 = 1, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(run.status == status, "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderrLines.count == 1, "\(run)", sourceLocation: sourceLocation)
    #expect(
        run.stderr.hasPrefix("recnotes: ") && run.stderr.contains(fragment), "\(run)", sourceLocation: sourceLocation)
}

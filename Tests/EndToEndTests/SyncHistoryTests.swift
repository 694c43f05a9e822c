import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a sync says it did (its counts, the history entry, the commits in the store's git
/// log) against what it did, and a plain `git pull` in the store.
@Suite("Sync: counts, history and commits that say what happened")
struct SyncHistoryTests {
    func git(_ directory: String, _ arguments: String...) throws -> Run {
        try Sandbox.execute("/usr/bin/git", ["-C", directory] + arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    /// A and B through a hub, `memo` on both.
    func twoMachines() throws -> (a: Sandbox, b: Sandbox) {
        let a = try Sandbox()
        try a.succeed("sync", "init", "--name", "A")
        try a.succeed("sync", "remote", "add", "hub", a.root + "/hub")
        try a.addWAVRecording("memo", in: "/", frames: 8000)
        try a.succeed("sync")
        let b = try Sandbox()
        try b.succeed("sync", "clone", "--name", "B", a.root + "/hub")
        try b.succeed("sync")
        return (a, b)
    }

    @Test("a change a peer pushed into this store's synced/ branch is counted as received, and in the history")
    func peerPush() throws {
        let (a, b) = try twoMachines()
        try b.succeed("sync", "remote", "add", "laptop", a.store)
        try b.succeed("mkdir", "/FromB")
        try b.succeed("sync", "laptop", "--no-content")
        let run = try a.succeed("sync", "--no-content")
        #expect(run.lines.first?.hasPrefix("sync with hub: 1 item received") == true, "\(run)")
        #expect(try a.succeed("ls", "/").lines.contains("FromB"))
        #expect(try a.succeed("history").stdout.contains("sync with hub: 1 in"))
    }

    @Test("trash empty and a moved transcript count as sent")
    func trashAndTranscriptsCount() throws {
        let (a, _) = try twoMachines()
        try a.succeed("rm", "/memo")
        try a.succeed("sync", "--no-content")
        try a.succeed("trash", "empty", "--yes")
        let emptied = try a.succeed("sync", "--no-content")
        #expect(emptied.lines.first?.hasPrefix("sync with hub: 0 items received, 1 sent") == true, "\(emptied)")

        try a.addWAVRecording("talk", in: "/", frames: 8000)
        try a.succeed("sync", "--no-content")
        let engine = a.root + "/engine"
        try Data("#!/bin/sh\necho some words\n".utf8).write(to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        try a.succeed("transcribe", "/talk", "--engine", engine + " {wav}")
        let transcribed = try a.succeed("sync", "--no-content")
        #expect(transcribed.lines.first?.hasPrefix("sync with hub: 0 items received, 1 sent") == true, "\(transcribed)")
    }

    @Test("a sync killed after it pushed has its history entry")
    func killedAfterPush() throws {
        let (a, _) = try twoMachines()
        try a.succeed("tag", "/memo", "+pushed")
        let pause = a.root + "/pushed"
        let sync = try Spawned(
            Sandbox.binary, ["--store", a.store, "sync"],
            environment: a.baseEnvironment.merging(["RECNOTES_SYNC_PAUSE_PUSHED": pause]) { $1 })
        var waited = 0
        while !FileManager.default.fileExists(atPath: pause) && waited < 3000 && sync.process.isRunning {
            usleep(10_000)
            waited += 1
        }
        #expect(FileManager.default.fileExists(atPath: pause), "the sync never pushed")
        killProcessTree(sync.pid)
        _ = sync.finish()
        #expect(try a.succeed("history").stdout.contains("sync with hub: 0 in, 1 out"))
    }

    @Test("each commit names the machine and what changed; a plain git pull merges")
    func commitsAndPull() throws {
        let (a, b) = try twoMachines()
        try a.succeed("tag", "/memo", "+work")
        try a.succeed("mkdir", "/One")
        try a.succeed("mkdir", "/Two")
        try a.succeed("mv", "/One", "/Uno")
        try a.succeed("sync", "--no-content")
        let subject = try git(a.store, "log", "-1", "--format=%s", "--first-parent").stdout
        #expect(subject == "A: tags on /memo: +work; mkdir /One (and 2 more)\n", "\(subject)")

        // B changes the same recording and commits by hand; a plain pull merges with
        // recnotes' driver, as the README says.
        try b.succeed("tag", "/memo", "+home")
        #expect(try git(b.store, "commit", "-q", "-am", "by hand").status == 0)
        let pulled = try git(b.store, "pull", "-q")
        #expect(pulled.status == 0, "\(pulled)")
        let found = try b.tags(at: "/memo")
        #expect(found.contains("work") && found.contains("home"), "\(found)")
    }
}

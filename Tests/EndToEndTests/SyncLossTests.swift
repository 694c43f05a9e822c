import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a person did on one machine while another deleted, moved or trashed the same
/// recording, carried through real git and git-annex: the merged library keeps every
/// annotation and every kept recording's audio, and a sync finishes whatever the remotes and
/// the library do meanwhile.
@Suite("Sync: nothing lost across deletes, unreachable remotes, a library that keeps changing")
struct SyncLossTests {
    /// Two machines, A and B, through a bare hub: `memo` (with audio) on both, in the hub.
    func twoMachines() throws -> (a: Sandbox, b: Sandbox, memo: String) {
        let a = try Sandbox()
        try a.succeed("sync", "init", "--name", "A")
        try a.succeed("sync", "remote", "add", "hub", a.root + "/hub")
        let memo = try a.addWAVRecording("memo", in: "/", frames: 8000).description
        try a.succeed("sync")
        let b = try Sandbox()
        try b.succeed("sync", "clone", "--name", "B", a.root + "/hub")
        try b.succeed("sync")
        return (a, b, memo)
    }

    /// The recording at `path` plays on `machine`: its audio decodes to a whole WAV.
    func expectPlays(_ machine: Sandbox, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let exported = try machine.run("export", path, "-", "--format", "wav")
        #expect(exported.status == 0, "\(exported)", sourceLocation: sourceLocation)
        #expect(exported.stdout.utf8.count > 44 || exported.status != 0, sourceLocation: sourceLocation)
        #expect(
            try !machine.succeed("ls", "-l", path).stdout.contains("missing"), sourceLocation: sourceLocation)
    }

    @Test("deleted for good on one machine, tagged on the other: kept, with its audio, on both")
    func permanentDeleteAgainstChange() throws {
        let (a, b, memo) = try twoMachines()
        try b.succeed("rm", "--permanent", "/memo")
        try a.succeed("tag", "/memo", "+work")
        for machine in [b, a, b, a] { try machine.succeed("sync") }
        for machine in [a, b] {
            #expect(try machine.tags(at: "/memo").contains("work"))
            try expectPlays(machine, "/memo")
            try machine.succeed("fsck")
        }
        #expect(FileManager.default.fileExists(atPath: b.audioDirectory + "/\(memo).wav"))
    }

    @Test("trash emptied on one machine, restored and noted on the other: kept, with its audio")
    func trashEmptyAgainstRestore() throws {
        let (a, b, _) = try twoMachines()
        for machine in [a, b] { try machine.succeed("rm", "/memo") }
        for machine in [a, b, a] { try machine.succeed("sync") }
        try b.succeed("trash", "empty", "--yes")
        try a.succeed("trash", "restore", "/memo")
        try a.succeed("note", "/memo", "--set", "keep this")
        for machine in [b, a, b, a] { try machine.succeed("sync") }
        for machine in [a, b] {
            #expect(try machine.succeed("note", "/memo").stdout.contains("keep this"))
            try expectPlays(machine, "/memo")
            try machine.succeed("fsck")
        }
    }

    @Test("marked, tagged, noted and trashed on B; trashed and restored on A: every annotation stays")
    func annotationsOfTheTrashedSide() throws {
        let (a, b, _) = try twoMachines()
        try b.succeed("mark", "/memo", "--at", "0.1", "fromB")
        try b.succeed("tag", "/memo", "+tagB")
        try b.succeed("note", "/memo", "--set", "noteB")
        try b.succeed("rm", "/memo")
        try a.succeed("rm", "/memo")
        try a.succeed("trash", "restore", "/memo")
        for machine in [a, b, a, b] { try machine.succeed("sync") }
        #expect(a.storeBytes == b.storeBytes)
        let memo = try #require(try a.item(at: "/memo"))
        #expect(memo["tags"] as? [String] == ["tagB"])
        #expect(memo["note"] as? String == "noteB")
        #expect((memo["markers"] as? [[String: Any]])?.compactMap { $0["label"] as? String } == ["fromB"])
    }

    @Test("moved and trashed on one machine, trashed on the other: one trash entry, restorable by UUID")
    func trashedOnBothSides() throws {
        let (a, b, memo) = try twoMachines()
        try a.succeed("rm", "/memo")
        try b.succeed("mv", "/memo", "/memo2")
        try b.succeed("rm", "/memo2")
        for machine in [a, b, a] { try machine.succeed("sync") }
        let entries = try a.storeJSON()["trash"] as? [[String: Any]] ?? []
        let holding = entries.filter { entry in
            (entry["items"] as? [[String: Any]] ?? []).contains { $0["uuid"] as? String == memo }
        }
        #expect(holding.count == 1, "\(entries)")
        try a.succeed("trash", "restore", "@" + String(memo.prefix(8)))
        try expectPlays(a, "/memo2")
    }

    @Test("a folder trashed on one machine while the other moved its recording out: restored, empty, once")
    func restoredFolderWithoutWhatMovedOut() throws {
        let (a, b, _) = try twoMachines()
        try a.succeed("mkdir", "/F")
        try a.addWAVRecording("inside", in: "/F", frames: 8000)
        try a.succeed("sync")
        try b.succeed("sync")
        try a.succeed("rm", "-r", "/F")
        try b.succeed("mv", "/F/inside", "/inside")
        for machine in [b, a] { try machine.succeed("sync") }
        // The merge keeps the moved recording and leaves /F in the trash without it.
        #expect(try a.succeed("ls", "/").lines.contains("inside"))
        let entry = try #require((try a.storeJSON()["trash"] as? [[String: Any]])?.first)
        let entryItems = entry["items"] as? [[String: Any]] ?? []
        let held = Set(entryItems.compactMap { $0["uuid"] as? String })
        for child in entryItems.flatMap({ $0["children"] as? [String] ?? [] }) {
            #expect(held.contains(child), "the trash entry lists \(child), which it does not hold: \(entry)")
        }
        try a.succeed("trash", "restore", "/F")
        for machine in [a, b, a] { try machine.succeed("sync") }
        for machine in [a, b] {
            #expect(try machine.succeed("ls", "/F").stdout.isEmpty)
            let items = try machine.storeJSON()["items"] as? [[String: Any]] ?? []
            let uuids = items.compactMap { $0["uuid"] as? String }
            #expect(Set(uuids).count == uuids.count, "an item written twice: \(uuids)")
            try expectPlays(machine, "/inside")
            try machine.succeed("fsck")
        }
    }

    @Test("a trashed folder that still lists a recording now in the library is restored without it")
    func restoredFolderListingALibraryItem() throws {
        let s = try Sandbox()
        try s.succeed("mkdir", "/F")
        let inside = try s.addWAVRecording("inside", in: "/F", frames: 8000).description
        try s.succeed("rm", "-r", "/F")
        // What a merge could leave before it kept these lists right: the recording back in
        // the library (moved out on another machine), /F's trash entry still naming it.
        var json = try s.storeJSON()
        var items = try #require(json["items"] as? [[String: Any]])
        var trash = try #require(json["trash"] as? [[String: Any]])
        var entryItems = try #require(trash[0]["items"] as? [[String: Any]])
        var recording = try #require(entryItems.first { $0["uuid"] as? String == inside })
        entryItems.removeAll { $0["uuid"] as? String == inside }
        #expect((entryItems[0]["children"] as? [String]) == [inside])
        recording["parent"] = "00000000-0000-0000-0000-000000000000"
        items.append(recording)
        items[0]["children"] = (items[0]["children"] as? [String] ?? []) + [inside]
        trash[0]["items"] = entryItems
        json["items"] = items
        json["trash"] = trash
        try JSONSerialization.data(withJSONObject: json).write(to: URL(filePath: s.storeFile))
        try s.succeed("fsck")
        try s.succeed("trash", "restore", "/F")
        #expect(try s.succeed("ls", "/F").stdout.isEmpty)
        let uuids = (try s.storeJSON()["items"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
        #expect(Set(uuids).count == uuids.count, "an item written twice: \(uuids)")
        try expectPlays(s, "/inside")
        try s.succeed("fsck")
    }

    @Test("fsck --repair brings back a recording's audio link that git-annex still tracks")
    func fsckRestoresTheLink() throws {
        let (a, _, memo) = try twoMachines()
        let link = a.audioDirectory + "/\(memo).wav"
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: link)
        #expect(unlink(link) == 0)
        #expect(try a.run("fsck").status == 1)
        let repaired = try a.run("fsck", "--repair")
        #expect(repaired.status == 0, "\(repaired)")
        #expect(
            repaired.lines.contains("repaired: audio/\(memo).wav: link restored from git (copies: here, hub)"),
            "\(repaired)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        try expectPlays(a, "/memo")
        try a.succeed("fsck")
        // git's index has the link again: nothing for the next sync to commit about it.
        let status = try Sandbox.execute(
            "/usr/bin/git", ["-C", a.store, "status", "--porcelain", "--", "audio"],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(status.stdout.isEmpty, "\(status)")
    }

    @Test("a sync killed after a merge's links are in place: the next sync commits them, every machine keeps the audio")
    func killedInstallKeepsItsLinks() throws {
        let (a, b, _) = try twoMachines()
        try b.addWAVRecording("fresh", in: "/", frames: 8000)
        try b.succeed("sync")
        let git = { (machine: Sandbox, arguments: [String]) throws -> String in
            let run = try Sandbox.execute(
                "/usr/bin/git", ["-C", machine.store] + arguments, environment: ["PATH": "/usr/bin:/bin"])
            #expect(run.status == 0, "\(run)")
            return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let head = try git(a, ["rev-parse", "HEAD"])
        try a.succeed("sync")
        // What a kill between `install`'s renames and its index rename leaves: the merge's
        // store.json and links in the work tree, git's index and HEAD from before it.
        _ = try git(a, ["reset", "-q", "--mixed", head])
        #expect(try git(a, ["status", "--porcelain", "--", "audio"]).hasPrefix("??"))
        // B deletes the recording for good: from A's side, where the merge never happened,
        // it is new, and the next merge keeps it; it must keep its audio link too.
        try b.succeed("rm", "--permanent", "/fresh")
        for machine in [b, a, b] { try machine.succeed("sync") }
        for machine in [a, b] {
            try expectPlays(machine, "/fresh")
            try machine.succeed("fsck")
        }
    }

    @Test("an unreachable remote: the others are synced, the summary names it, exit status 75")
    func unreachableRemote() throws {
        let (a, b, _) = try twoMachines()
        let usb = a.root + "/usb"
        try a.succeed("sync", "remote", "add", "usb", usb)
        try a.succeed("sync")
        try FileManager.default.removeItem(atPath: usb)
        try a.succeed("tag", "/memo", "+unplugged")
        let run = try a.run("sync")
        expectOneLineFailure(run, "sync: not reached: usb (cannot reach \(usb)", status: 75)
        #expect(run.lines.first?.hasPrefix("sync with hub: ") == true, "\(run)")
        #expect(run.lines.contains { $0.hasPrefix("not synced with usb: cannot reach \(usb)") }, "\(run)")
        // Committed here, and the hub has it.
        let status = try Sandbox.execute(
            "/usr/bin/git", ["-C", a.store, "status", "--porcelain", "store.json"],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(status.stdout.isEmpty, "\(status)")
        try b.succeed("sync")
        #expect(try b.tags(at: "/memo").contains("unplugged"))
        let json = try a.run("sync", "--json")
        #expect(json.status == 75)
        let unreached = try json.object()["unreached"] as? [[String: Any]]
        #expect(unreached?.map { $0["remote"] as? String } == ["usb"], "\(json)")
    }

    @Test("a library that changes before every merge is installed: the sync still finishes, and merges it")
    func busyLibrary() throws {
        let (a, b, _) = try twoMachines()
        try b.succeed("mkdir", "/FromB")
        try b.succeed("sync")
        // Each merge made without the store lock waits (RECNOTES_SYNC_PAUSE_EVERY) while a
        // command changes the store, so that none of them can be installed.
        let pause = a.root + "/pause"
        let sync = try Spawned(
            Sandbox.binary, ["--store", a.store, "sync"],
            environment: a.baseEnvironment.merging(["RECNOTES_SYNC_PAUSE": pause, "RECNOTES_SYNC_PAUSE_EVERY": "1"]) {
                $1
            })
        var changes = 0
        while sync.process.isRunning {
            guard FileManager.default.fileExists(atPath: pause) else {
                usleep(10_000)
                continue
            }
            changes += 1
            try a.succeed("tag", "/memo", "+meanwhile\(changes)")
            try FileManager.default.removeItem(atPath: pause)
        }
        let finished = sync.finish()
        #expect(finished.run.status == 0, "\(finished.run)")
        #expect(changes >= 2)
        #expect(try a.succeed("ls", "/").lines.contains("FromB"))
        try a.succeed("sync")
        try b.succeed("sync")
        let found = try b.tags(at: "/memo")
        for n in 1...changes { #expect(found.contains("meanwhile\(n)"), "\(found)") }
    }

    @Test("undo after a sync takes back this machine's own change, unless what came in changed it since")
    func undoAfterSync() throws {
        let (a, b, _) = try twoMachines()
        try a.succeed("tag", "/memo", "+mine")
        try a.succeed("sync")
        #expect(try a.succeed("undo").stdout.hasPrefix("undid #"))
        #expect(try !a.tags(at: "/memo").contains("mine"))
        // B changes the tags A set; once that has come in, A's change is no longer A's alone.
        try a.succeed("tag", "/memo", "+again")
        try a.succeed("sync")
        try b.succeed("sync")
        try b.succeed("tag", "/memo", "+fromB")
        try b.succeed("sync")
        try a.succeed("sync")
        let before = a.storeBytes
        expectOneLineFailure(try a.run("undo"), "have changed since")
        #expect(a.storeBytes == before)
    }
}

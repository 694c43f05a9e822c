import Foundation
import RecCore
import Testing

/// A store.json from a newer recnotes arriving from a remote.
@Suite("Sync: progress while audio moves, a newer store from a remote")
struct SyncProgressTests {
    func git(_ directory: String, _ arguments: String...) throws -> Run {
        try Sandbox.execute("/usr/bin/git", ["-C", directory] + arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    @Test("a store.json from a newer recnotes arriving from a remote is refused in one line; nothing here changes")
    func newerStoreFromRemote() throws {
        let a = try Sandbox()
        let hub = a.root + "/hub"
        try a.succeed("sync", "init", "--name", "a")
        try a.succeed("mkdir", "/Work")
        try a.succeed("sync", "remote", "add", "hub", hub)
        try a.succeed("sync")
        let b = try Sandbox()
        try b.succeed("sync", "clone", "--name", "b", hub)
        let branch = try git(b.store, "symbolic-ref", "--short", "HEAD").stdout.trimmingCharacters(in: .newlines)

        // B's store.json says a version this recnotes does not know, committed and pushed by
        // hand, as a newer recnotes there would.
        let text = try String(contentsOfFile: b.storeFile, encoding: .utf8)
        let newer = text.replacingOccurrences(of: "\"version\": 4,", with: "\"version\": 99,")
        #expect(newer != text)
        try newer.write(toFile: b.storeFile, atomically: true, encoding: .utf8)
        let pushRefs = ["HEAD:refs/heads/\(branch)", "HEAD:refs/heads/synced/\(branch)"]
        #expect(try git(b.store, "commit", "-qam", "a newer recnotes").status == 0)
        #expect(
            try Sandbox.execute(
                "/usr/bin/git", ["-C", b.store, "push", "-q", "origin"] + pushRefs,
                environment: ["PATH": "/usr/bin:/bin"]
            ).status == 0)

        // A, with a change of its own not yet committed: both a fast-forward and a merge
        // would take the newer file; neither happens.
        try a.succeed("mkdir", "/Local")
        let head = try git(a.store, "rev-parse", "HEAD").stdout
        let status = try git(a.store, "status", "--porcelain", "--untracked-files=all").stdout
        let listing = try a.storeListing()
        let store = FileManager.default.contents(atPath: a.storeFile)
        let refused = try a.run("sync")
        expectOneLineFailure(refused, "hub: its store.json is version 99, newer than this recnotes understands")
        #expect(refused.stderr.contains("upgrade recnotes on this machine"), "\(refused)")
        #expect(refused.stdout.isEmpty, "\(refused)")
        #expect(try git(a.store, "rev-parse", "HEAD").stdout == head)
        #expect(try git(a.store, "status", "--porcelain", "--untracked-files=all").stdout == status)
        #expect(FileManager.default.contents(atPath: a.storeFile) == store)
        #expect(try a.storeListing() == listing)
        #expect(try a.succeed("ls").lines == ["Local", "Work"])

        // B's change undone there: the next sync takes everything else.
        #expect(try git(b.store, "revert", "--no-edit", "HEAD").status == 0)
        try b.succeed("mkdir", "/FromB")
        try b.succeed("sync")
        try a.succeed("sync")
        #expect(try a.succeed("ls").lines == ["FromB", "Local", "Work"])
        try b.succeed("sync")
        #expect(try b.succeed("ls").lines == ["FromB", "Local", "Work"])
        try a.succeed("fsck")
    }
}

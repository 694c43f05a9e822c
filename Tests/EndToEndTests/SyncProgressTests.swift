import Foundation
import RecCore
import RecStore
import RecValues
import Testing

/// What `sync` and `get` show while audio moves (a live line on a terminal, nothing
/// otherwise), and a store.json from a newer recnotes arriving from a remote.
@Suite("Sync: progress while audio moves, a newer store from a remote")
struct SyncProgressTests {
    func git(_ directory: String, _ arguments: String...) throws -> Run {
        try Sandbox.execute("/usr/bin/git", ["-C", directory] + arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    /// Runs recnotes with `arguments` on a pseudo-terminal (script(1)): what the terminal got,
    /// stdout and stderr together, comes back on stdout.
    func onTerminal(_ sandbox: Sandbox, _ arguments: String...) throws -> Run {
        let command = ([Sandbox.binary, "--store", sandbox.store] + arguments)
            .map(Format.shellQuoted).joined(separator: " ")
        return try Sandbox.execute(
            "/usr/bin/script", ["-qfec", command, "/dev/null"], environment: sandbox.baseEnvironment)
    }

    /// The size of a recording's audio file, read before git-annex makes it a symlink.
    func size(_ sandbox: Sandbox, _ id: ItemID) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: sandbox.audioDirectory + "/\(id).wav")
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    @Test("on a terminal, sync and get redraw one line of files and bytes moved; not on one, nothing new on stderr")
    func progressLine() throws {
        let laptop = try Sandbox()
        let hub = laptop.root + "/hub"
        try laptop.succeed("sync", "init", "--name", "laptop")
        // Lengths differ, so that no two files are one git-annex object.
        let ids = try [8000, 16000, 24000].enumerated().map { index, frames in
            try laptop.addWAVRecording("take \(index)", in: "/", frames: frames)
        }
        let sizes = try ids.map { try size(laptop, $0) }
        let total = Format.size(sizes.reduce(0, +))
        try laptop.succeed("sync", "remote", "add", "hub", hub)
        let sent = try onTerminal(laptop, "sync")
        #expect(sent.status == 0, "\(sent)")
        let screen = sent.stdout
        #expect(screen.contains("\r\u{1B}[Kaudio: 0/3 files, 0 B / \(total)  →hub"), "\(screen.debugDescription)")
        #expect(screen.contains("\r\u{1B}[Kaudio: 3/3 files, \(total) / \(total)  →hub"), "\(screen.debugDescription)")
        // Nothing came in: no line for that direction.
        #expect(!screen.contains("←"), "\(screen.debugDescription)")
        // Cleared, then the summary as without a terminal.
        #expect(
            screen.hasSuffix(
                "\r\u{1B}[Ksync with hub: 0 items received, 3 sent; audio 0 received (0 B), 3 sent (\(total))\r\n"),
            "\(screen.debugDescription)")

        let desk = try Sandbox()
        try desk.succeed("sync", "clone", "--name", "desk", hub)
        // get on a terminal: the one file it brings, from where git-annex chose to take it.
        let one = Format.size(sizes[0])
        let got = try onTerminal(desk, "get", "/take 0")
        #expect(got.status == 0, "\(got)")
        #expect(
            got.stdout.contains("\r\u{1B}[Kaudio: 1/1 files, \(one) / \(one)  ←origin"),
            "\(got.stdout.debugDescription)")
        #expect(got.stdout.hasSuffix("\r\u{1B}[Kget: 1 recording brought here (\(one)), 0 here already\r\n"))
        // sync brings the other two.
        let rest = Format.size(sizes[1] + sizes[2])
        let received = try onTerminal(desk, "sync")
        #expect(received.status == 0, "\(received)")
        #expect(
            received.stdout.contains("\r\u{1B}[Kaudio: 2/2 files, \(rest) / \(rest)  ←origin"),
            "\(received.stdout.debugDescription)")
        #expect(!received.stdout.contains("→origin"), "\(received.stdout.debugDescription)")

        // --json on a terminal: no line, the JSON alone.
        let third = try laptop.addWAVRecording("take 3", in: "/", frames: 32000)
        let thirdSize = Format.size(try size(laptop, third))
        let json = try onTerminal(laptop, "sync", "--json")
        #expect(json.status == 0 && json.stdout.hasPrefix("{") && !json.stdout.contains("audio:"), "\(json)")
        #expect(json.stdout.contains("\"audioSent\": {\"count\": 1,"), "\(json)")
        // Not on a terminal (a script): the summary only, stderr empty.
        let plain = try desk.run("sync")
        #expect(plain.status == 0 && plain.stderr.isEmpty, "\(plain)")
        #expect(
            plain.lines == ["sync with origin: 1 item received, 0 sent; audio 1 received (\(thirdSize)), 0 sent (0 B)"],
            "\(plain)")
        #expect(FileManager.default.fileExists(atPath: desk.audioDirectory + "/\(third).wav"))
    }

    @Test("Ctrl-C during sync on a terminal: the line cleared, one line, exit 130, the next sync completes")
    func interruptedOnTerminal() throws {
        let laptop = try Sandbox()
        let hub = laptop.root + "/hub"
        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.succeed("mkdir", "/Shared")
        try laptop.succeed("sync", "remote", "add", "hub", hub)
        try laptop.succeed("sync", "--no-content")
        let desk = try Sandbox()
        try desk.succeed("sync", "clone", "--name", "desk", hub)
        try desk.succeed("mkdir", "/Desk")
        try desk.succeed("sync", "--no-content")

        // The sync waits with its merge prepared (RECNOTES_SYNC_PAUSE); Ctrl-C typed on its
        // terminal then, as a person would.
        let pause = laptop.root + "/paused"
        let command = [Sandbox.binary, "--store", laptop.store, "sync", "--no-content"]
            .map(Format.shellQuoted).joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", command, "/dev/null"]
        process.environment = laptop.baseEnvironment.merging(["RECNOTES_SYNC_PAUSE": pause]) { $1 }
        let keys = Pipe()
        let screen = Pipe()
        process.standardInput = keys
        process.standardOutput = screen
        process.standardError = FileHandle.nullDevice
        try process.run()
        #expect(
            RemoteControlTests.eventually { FileManager.default.fileExists(atPath: pause) },
            "the sync never prepared its merge")
        keys.fileHandleForWriting.write(Data([3]))
        let shown = String(decoding: screen.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGINT, "\(shown.debugDescription)")
        // The terminal's line (its ^C echo, or the live line) cleared, then one line says so.
        #expect(
            shown.hasSuffix("\r\u{1B}[Krecnotes: sync: interrupted; the next sync finishes it\r\n"),
            "\(shown.debugDescription)")
        try? FileManager.default.removeItem(atPath: pause)
        try laptop.succeed("fsck")
        #expect(try laptop.succeed("ls", "/").lines == ["Shared"])
        try laptop.succeed("sync", "--no-content")
        #expect(try laptop.succeed("ls", "/").lines == ["Desk", "Shared"])
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
        let newer = text.replacingOccurrences(of: "\"version\": \(Document.currentVersion),", with: "\"version\": 99,")
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

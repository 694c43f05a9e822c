import Foundation
import RecCore
import RecStore
import RecSystem
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a new user hit: an undo that said nothing, fsck complaining after
/// ordinary commands, leftovers of killed processes, a lost store.json silently replaced,
/// and a read-only store that could not even be looked at.
@Suite("Undo, fsck --repair and stores that are lost or read-only")
struct UndoAndRepairTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// A WAV file outside the store, for `import`.
    func wavFile(_ name: String = "take.wav", frames: Int = 4_800) throws -> String {
        let path = sandbox.root + "/" + name
        try sandbox.write(path, wavBytes(frames: frames))
        return path
    }

    // MARK: 1. undo

    @Test("undo says what it took back; --dry-run shows it and changes nothing; --json as an object")
    func undoSaysWhat() throws {
        // The man page's example on a fresh store: the rm fails, so undo reaches further back.
        try sandbox.succeed("mkdir", "-p", "Work/Standups")
        try sandbox.succeed("import", try wavFile(), "--to", "Work/Standups", "--name", "monday")
        expectFailure(try sandbox.run("rm", "-r", "Ideas"), status: 1)

        let before = sandbox.storeBytes
        let journal = sandbox.bytes(sandbox.store + "/journal.jsonl")
        let preview = try sandbox.succeed("undo", "--dry-run")
        #expect(preview.lines == ["would undo #2: add /Work/Standups/monday"])
        #expect(sandbox.storeBytes == before)
        #expect(sandbox.bytes(sandbox.store + "/journal.jsonl") == journal)
        let previewJSON = try sandbox.succeed("undo", "--dry-run", "--json").object()
        #expect(previewJSON["seq"] as? Int == 2)
        #expect(previewJSON["change"] as? String == "add /Work/Standups/monday")
        #expect(previewJSON["dryRun"] as? Bool == true)
        #expect((previewJSON["summary"] as? String)?.hasPrefix("recnotes import ") == true)
        #expect(sandbox.storeBytes == before)

        #expect(try sandbox.succeed("undo").lines == ["undid #2: add /Work/Standups/monday"])
        #expect(try sandbox.item(at: "/Work/Standups/monday") == nil)
        let undone = try sandbox.succeed("undo", "--json").object()
        #expect(undone["seq"] as? Int == 1)
        // mkdir -p made both folders; the one inside the other is not listed again.
        #expect(undone["change"] as? String == "mkdir /Work")
        #expect(undone["dryRun"] as? Bool == false)
        #expect(try sandbox.item(at: "/Work") == nil)
    }

    @Test("undo names a move by where the item was and where it is")
    func undoNamesAMove() throws {
        try sandbox.succeed("mkdir", "Work", "Job")
        try sandbox.succeed("mv", "Work", "Job/Old")
        #expect(try sandbox.succeed("undo").lines == ["undid #2: move /Work → /Job/Old"])
        #expect(try sandbox.item(at: "/Work") != nil)
    }

    // MARK: 2. view state trimmed with the change

    @Test("removing the current folder, or undoing its creation, leaves fsck clean")
    func viewStateFollowsRemovals() throws {
        try sandbox.succeed("mkdir", "-p", "/A/B")
        try sandbox.succeed("cd", "/A/B")
        try sandbox.succeed("rm", "-r", "/A")
        #expect(try sandbox.succeed("fsck").lines == ["fsck: 0 folders, 0 recordings, 0 problems"])
        #expect(try sandbox.succeed("pwd").lines == ["/"])

        try sandbox.succeed("mkdir", "/C")
        try sandbox.succeed("cd", "/C")
        try sandbox.succeed("undo")
        expectSuccess(try sandbox.run("fsck"))
        let state = try sandbox.succeed("state").object()
        #expect(state["folderStack"] as? [String] == ["00000000-0000-0000-0000-000000000000"])
    }

    @Test("moving the current folder keeps it current, and fsck clean")
    func viewStateFollowsMoves() throws {
        try sandbox.succeed("mkdir", "-p", "/A/B", "/Z")
        try sandbox.succeed("cd", "/A/B")
        try sandbox.succeed("mv", "/A", "/Z/A")
        expectSuccess(try sandbox.run("fsck"))
        #expect(try sandbox.succeed("pwd").lines == ["/Z/A/B"])
    }

    // MARK: 3. temporary files of dead processes

    @Test("fsck reports an import's temporary file whose process is gone, --repair removes it, a live one stays")
    func strayImportFiles() throws {
        try sandbox.succeed("mkdir", "X")
        try FileManager.default.createDirectory(atPath: sandbox.audioDirectory, withIntermediateDirectories: true)
        let dead = sandbox.audioDirectory + "/.import-999999-0123456789ab.opus"
        let live = sandbox.audioDirectory + "/.import-\(getpid())-ba9876543210.opus"
        try sandbox.write(dead, Array("half an import".utf8))
        try sandbox.write(live, Array("an import going on".utf8))
        let check = try sandbox.run("fsck")
        #expect(check.status == 1, "\(check)")
        #expect(
            check.lines == [
                "audio/.import-999999-0123456789ab.opus: left by an import that was interrupted (its process is gone)"
            ])
        let repair = try sandbox.run("fsck", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.lines.contains("repaired: removed audio/.import-999999-0123456789ab.opus"))
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live))
        expectSuccess(try sandbox.run("fsck"))
    }

    // MARK: 4. a lost store.json

    @Test("a missing store.json beside audio and journal is refused, and fsck --repair rebuilds it from the journal")
    func lostStoreIsRebuilt() throws {
        try sandbox.succeed("mkdir", "-p", "/Work/Ideas", "/Old")
        try sandbox.succeed("import", try wavFile(), "--to", "/Work/Ideas", "--name", "memo")
        try sandbox.succeed("mv", "/Work/Ideas/memo", "/Work/Ideas/standup")
        try sandbox.succeed("import", try wavFile("other.wav"), "--to", "/Old", "--name", "gone")
        try sandbox.succeed("rm", "-r", "/Old")
        let unknown = ItemID.random()
        try FileManager.default.copyItem(
            atPath: sandbox.root + "/take.wav", toPath: sandbox.audioDirectory + "/\(unknown).wav")
        try FileManager.default.removeItem(atPath: sandbox.storeFile)

        let listing = try sandbox.storeListing()
        expectFailure(
            try sandbox.run("ls"), status: 1,
            message:
                "recnotes: \(sandbox.storeFile): missing, but audio/ or journal.jsonl is there; run 'recnotes fsck --repair' to rebuild it from them"
        )
        expectFailure(try sandbox.run("mkdir", "/New"), status: 1, containing: ["fsck --repair"])
        #expect(try sandbox.storeListing() == listing)
        #expect(!FileManager.default.fileExists(atPath: sandbox.storeFile))

        let check = try sandbox.run("fsck")
        #expect(check.status == 1)
        #expect(
            check.lines.first
                == "store.json: missing, but audio/ or journal.jsonl is there (--repair rebuilds it from them)")
        let repair = try sandbox.run("fsck", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(try sandbox.item(at: "/Work/Ideas")?["type"] as? String == "folder")
        #expect(try sandbox.item(at: "/Work/Ideas/standup")?["type"] as? String == "recording")
        #expect(try sandbox.item(at: "/Work/Ideas/standup")?["frames"] as? Int == 4_800)
        // Trashed in the journal: its audio is kept, in /Recovered, under the name it had.
        #expect(try sandbox.item(at: "/Recovered/gone") != nil)
        // Unknown to the journal: adopted by its file name.
        #expect(try sandbox.item(at: "/Recovered/\(unknown)") != nil)
        #expect(try sandbox.item(at: "/Old") == nil)
        expectSuccess(try sandbox.run("fsck"))
    }

    @Test("a fresh directory, even an existing empty one, still starts an empty store")
    func freshStoreStillStarts() throws {
        try FileManager.default.createDirectory(atPath: sandbox.audioDirectory, withIntermediateDirectories: true)
        #expect(try sandbox.succeed("ls").stdout.isEmpty)
        #expect(FileManager.default.fileExists(atPath: sandbox.storeFile))
    }

    // MARK: 5. empty orphans

    @Test("fsck --repair removes empty orphan audio files, and keeps the others")
    func emptyOrphansGo() throws {
        try sandbox.succeed("mkdir", "X")
        try FileManager.default.createDirectory(atPath: sandbox.audioDirectory, withIntermediateDirectories: true)
        let empty = sandbox.audioDirectory + "/\(ItemID.random()).opus"
        try sandbox.write(empty, [])
        let check = try sandbox.run("fsck")
        #expect(check.status == 1)
        #expect(check.lines == ["audio/\(FileSystem.baseName(of: empty)): empty, and belongs to no recording"])
        let repair = try sandbox.run("fsck", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.lines.contains("repaired: removed audio/\(FileSystem.baseName(of: empty)), which was empty"))
        #expect(!FileManager.default.fileExists(atPath: empty))
        #expect(try sandbox.item(at: "/Recovered") == nil)
        expectSuccess(try sandbox.run("fsck"))
    }

    // MARK: 7. feedback

    @Test("a clean fsck says so in one line, except with --quiet; --json counts too")
    func cleanFsckSummary() throws {
        try sandbox.succeed("mkdir", "-p", "/A/B", "/C")
        let id = try sandbox.addWAVRecording("memo", in: "/A", frames: 800)
        _ = id
        #expect(try sandbox.succeed("fsck").lines == ["fsck: 3 folders, 1 recording, 0 problems"])
        #expect(try sandbox.succeed("fsck", "--quiet").stdout.isEmpty)
        let json = try sandbox.succeed("fsck", "--json").object()
        #expect(json["clean"] as? Bool == true)
        #expect(json["folders"] as? Int == 3)
        #expect(json["recordings"] as? Int == 1)
    }

    // MARK: 9. a read-only store

    /// Runs the binary as an unprivileged user when the tests run as root (root ignores
    /// permissions), else as ourselves.
    static let asNobody: [String]? = {
        if getuid() != 0 { return [] }
        return FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : nil
    }()

    @Test(
        "a read-only store can be read, checked and exported; cd refuses in one line",
        .enabled(if: UndoAndRepairTests.asNobody != nil, "needs setpriv to drop root's privileges"))
    func readOnlyStore() throws {
        let prefix = try #require(Self.asNobody)
        try sandbox.succeed("mkdir", "-p", "/Work/Ideas")
        try sandbox.succeed("import", try wavFile(), "--to", "/Work", "--name", "memo")
        try sandbox.succeed("cd", "/Work")
        // Everything up to the store must be reachable by the unprivileged user.
        chmod(sandbox.root, 0o755)
        let locked = try Sandbox.execute(
            "/bin/chmod", ["-R", "a-w", sandbox.store], environment: sandbox.baseEnvironment)
        #expect(locked.status == 0)
        defer {
            _ = try? Sandbox.execute("/bin/chmod", ["-R", "u+w", sandbox.store], environment: sandbox.baseEnvironment)
        }
        let listing = try sandbox.storeListing()
        let viewState = sandbox.viewStateBytes

        func ro(_ arguments: String...) throws -> Run { try ro(arguments) }
        func ro(_ arguments: [String]) throws -> Run {
            try Sandbox.execute(
                prefix.first ?? Sandbox.binary,
                Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : [Sandbox.binary])
                    + ["--store", sandbox.store] + arguments, environment: sandbox.baseEnvironment)
        }
        for arguments in [
            ["ls"], ["ls", "-l", "/"], ["info", "memo"], ["tree", "/"], ["find", "/"], ["pwd"], ["state"], ["fsck"],
            ["history"], ["trash"], ["undo", "--dry-run"],
        ] {
            let result = try ro(arguments)
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
        #expect(try ro("pwd").lines == ["/Work"])
        #expect(try ro("fsck").lines == ["fsck: 2 folders, 1 recording, 0 problems"])
        let exported = try ro("export", "/Work/memo", "-", "--format", "wav")
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.utf8.starts(with: "RIFF".utf8))

        // play works, with one warning, and saves nothing: the samples reach the device.
        let sink = sandbox.root + "/sink"
        try FileManager.default.createDirectory(atPath: sink, withIntermediateDirectories: true)
        chmod(sink, 0o777)
        try sandbox.write(
            sandbox.home + "/.asoundrc",
            Array(
                """
                pcm.!default { type file slave.pcm null file "\(sink)/out.raw" format "raw" }
                """.utf8))
        // libpulse's ALSA hook makes ~/.config/pulse, and says so on stderr when it cannot.
        chmod(sandbox.home, 0o777)
        chmod(sandbox.home + "/.asoundrc", 0o644)
        let played = try ro("play", "/Work/memo", "--progress", "none")
        #expect(played.status == 0, "\(played)")
        #expect(
            played.stderrLines.count == 1 && played.stderr.contains("read-only; the play position will not be saved"),
            "\(played.stderr)")
        let heard = (try? FileManager.default.attributesOfItem(atPath: sink + "/out.raw")[.size] as? Int) ?? 0
        #expect(heard == 4_800 * 2, "the sink got \(heard) bytes")
        expectFailure(try ro("play", "/Work/memo", "--background"), status: 1, containing: ["read-only"])

        expectFailure(try ro("cd", "Ideas"), status: 1, containing: ["read-only", "cd must write"])
        let refused = try ro("mkdir", "/New")
        expectFailure(refused, status: 1, containing: ["read-only"])
        // record and import are refused in the same one line, naming the store, not a file in it.
        let stdinImport = try Sandbox.execute(
            "/bin/sh",
            ["-c", "exec \"$@\" < '\(try wavFile())'", "sh"] + (prefix.isEmpty ? [] : prefix)
                + [Sandbox.binary, "--store", sandbox.store, "import", "-"], environment: sandbox.baseEnvironment)
        for run in [
            try ro("record", "/Work/new", "--duration", "1"), try ro("import", try wavFile(), "--to", "/Work"),
            stdinImport,
        ] {
            #expect(run.status == 1 && run.stderr == refused.stderr, "\(run)")
        }
        expectFailure(try ro("fsck", "--repair"), status: 1, containing: ["read-only"])
        #expect(try sandbox.storeListing() == listing)
        #expect(sandbox.viewStateBytes == viewState)
    }
}

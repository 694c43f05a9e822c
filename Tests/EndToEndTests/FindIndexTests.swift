import Foundation
import RecCore
import Testing

/// `find` through the binary with its index (`cache/`): a search that the index answers
/// writes nothing, and every command that changes what find looks at shows in the next
/// search at once.
@Suite("find's index through the binary")
struct FindIndexEndToEndTests {
    let sandbox: Sandbox
    var index: String { sandbox.store + "/cache/find-items" }
    var transcriptIndex: String { sandbox.store + "/cache/find-transcripts" }

    init() throws {
        sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "/Work/Standups", "/Ideas"))
        try sandbox.addWAVRecording("monday", in: "/Work/Standups", frames: 96000)
        try sandbox.addWAVRecording("café idea", in: "/Ideas", frames: 48000 * 6)
        expectSuccess(try sandbox.run("tag", "/Work/Standups/monday", "+work"))
        expectSuccess(try sandbox.run("note", "/Ideas/café idea", "--set", "Talk to Zoë about the budget"))
    }

    /// Sets the sources' times back: a source changed in the last second is not trusted,
    /// and every find would make the index again.
    func age() {
        var times = [timespec(tv_sec: time(nil) - 10, tv_nsec: 0), timespec(tv_sec: time(nil) - 10, tv_nsec: 0)]
        for path in [sandbox.storeFile, sandbox.store + "/transcripts"] { utimensat(AT_FDCWD, path, &times, 0) }
    }

    /// The index file's inode: an atomic write replaces it, so an unchanged inode means the
    /// search did not make it again.
    func inode(_ path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.systemFileNumber] as? UInt64
    }

    func find(_ arguments: String...) throws -> [String] { try find(arguments) }

    func find(_ arguments: [String]) throws -> [String] {
        let run = try sandbox.run(["find"] + arguments)
        expectSuccess(run)
        return run.lines
    }

    @Test("the first search makes the index, later ones read it and write nothing; any change shows at once")
    func followsChanges() throws {
        age()
        #expect(try find("/", "--tag", "work") == ["/Work/Standups/monday"])
        let made = try #require(inode(index))
        #expect(try find("/", "--tag", "work") == ["/Work/Standups/monday"])
        #expect(try find("--text", "ZOE budget") == ["/Ideas/café idea"])
        #expect(inode(index) == made, "a current index is not written again")

        // Each of these changes what find sees; each next search must see it.
        let steps: [([String], [String], [String])] = [
            (["tag", "/Ideas/café idea", "+work"], ["--tag", "work"], ["/Ideas/café idea", "/Work/Standups/monday"]),
            (["mv", "/Ideas/café idea", "/Work/idea"], ["--tag", "work"], ["/Work/idea", "/Work/Standups/monday"]),
            (["mark", "/Work/idea", "--at", "5", "zürich"], ["--text", "zurich"], ["/Work/idea"]),
            (["note", "/Work/idea", "--set", "nothing"], ["--text", "budget"], []),
            (["undo"], ["--text", "budget"], ["/Work/idea"]),
            (["rm", "/Work/idea"], ["--tag", "work"], ["/Work/Standups/monday"]),
            (["trash", "restore", "/Work/idea"], ["--tag", "work"], ["/Work/idea", "/Work/Standups/monday"]),
        ]
        for (change, search, expected) in steps {
            expectSuccess(try sandbox.run(change))
            #expect(try find(search) == expected, "after \(change.joined(separator: " "))")
            age()
        }
        // JSON comes from the same index, with the whole item decoded from store.json.
        let hits = try #require(try sandbox.run("find", "--text", "zurich", "--json").json() as? [[String: Any]])
        #expect(hits.count == 1)
        #expect((hits.first?["markers"] as? [[String: Any]])?.first?["label"] as? String == "zürich")
        #expect(hits.first?["time"] as? Double == 5)
    }

    @Test("a transcript made or taken back shows in the next search")
    func followsTranscripts() throws {
        let engine = sandbox.root + "/vtt-engine"
        try Data("#!/bin/sh\nprintf 'WEBVTT\\n\\n00:01.250 --> 00:01.900\\nthe quarterly numbers\\n'\n".utf8).write(
            to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        age()
        #expect(try find("--text", "quarterly") == [])
        #expect(FileManager.default.fileExists(atPath: transcriptIndex))
        expectSuccess(try sandbox.run("transcribe", "/Work/Standups/monday", "--engine", engine + " {wav}"))
        #expect(try find("--text", "quarterly") == ["/Work/Standups/monday"])
        age()
        #expect(try find("--text", "quarterly") == ["/Work/Standups/monday"])
        expectSuccess(try sandbox.run("undo"))
        #expect(try find("--text", "quarterly") == [])
    }

    @Test("a damaged index is made again; fsck reports one that lies, and --repair removes it")
    func damaged() throws {
        age()
        #expect(try find("--tag", "work") == ["/Work/Standups/monday"])
        var bytes = try #require(FileManager.default.contents(atPath: index))
        try Data(bytes.prefix(40)).write(to: URL(fileURLWithPath: index))
        #expect(try find("--tag", "work") == ["/Work/Standups/monday"])
        // A tag renamed inside the index, its length kept: it still reads, and is current.
        bytes = try #require(FileManager.default.contents(atPath: index))
        let at = try #require(bytes.range(of: Data("work\0".utf8)))
        bytes.replaceSubrange(at, with: Data("wxrk\0".utf8))
        try bytes.write(to: URL(fileURLWithPath: index))
        let check = try sandbox.run("fsck")
        #expect(check.status == 1, "\(check)")
        #expect(
            check.stdout.contains("cache/find-items: find's index does not match what it was made from"), "\(check)")
        let repair = try sandbox.run("fsck", "--repair")
        expectSuccess(repair)
        #expect(repair.stdout.contains("removed cache/find-items, which find makes again"), "\(repair)")
        #expect(!FileManager.default.fileExists(atPath: index))
        #expect(try find("--tag", "work") == ["/Work/Standups/monday"])
    }

    var log: String { index + ".pending" }

    /// Each search's output here and on a copy of the store without cache/ (as another
    /// machine would have it): the same.
    func expectSameAsWithoutIndex(_ context: String) throws {
        let copy = sandbox.root + "/copy"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: sandbox.store, toPath: copy)
        try? FileManager.default.removeItem(atPath: copy + "/cache")
        for search in [["/", "--tag", "work"], ["--text", "budget"], ["/", "--type", "folder"], ["/", "--json"]] {
            let with = try sandbox.run(["find"] + search)
            var without = try Sandbox.execute(
                Sandbox.binary, ["--store", copy, "find"] + search, environment: sandbox.baseEnvironment)
            without.stdout = without.stdout.replacingOccurrences(of: copy, with: sandbox.store)
            #expect(
                with.stdout == without.stdout && with.status == without.status,
                "\(context): find \(search)\nwith the index: \(with)\nwithout: \(without)")
        }
    }

    /// `ls` makes the reads' table (a change goes through it), `find` the index.
    func tableAndIndex() throws {
        age()
        expectSuccess(try sandbox.run("ls", "/"))
        _ = try find("/", "--tag", "work")
        #expect(FileManager.default.fileExists(atPath: index))
    }

    @Test("tag, note, mkdir and mv log their changes for the index; the next find answers as without it")
    func chainOfLoggedChanges() throws {
        try tableAndIndex()
        let made = try #require(inode(index))
        for change in [
            ["tag", "/Ideas/café idea", "+work"], ["mkdir", "/Later"],
            ["note", "/Work/Standups/monday", "--set", "budget"],
            ["mv", "/Ideas/café idea", "/Later"], ["mv", "/Work/Standups", "/Later/Meetings"],
            ["tag", "/Later/Meetings/monday", "-work"], ["mkdir", "/Later/Meetings/Old"],
        ] {
            expectSuccess(try sandbox.run(change))
        }
        // Each went through the table: the index was not written, the log holds them all.
        #expect(inode(index) == made, "a change wrote the index")
        let logged = try #require(FileManager.default.contents(atPath: log))
        #expect(logged.count > 7 * 24)
        try expectSameAsWithoutIndex("after a chain of changes")
        #expect(!FileManager.default.fileExists(atPath: log), "find took the log in")
        let check = try sandbox.run("fsck")
        #expect(!(check.stdout + check.stderr).contains("does not match what it was made from"), "\(check)")
    }

    @Test(
        "a log cut short, one whose first change is not from the index's file, or another program's edit after it: find makes the index again"
    )
    func unusableLogs() throws {
        try tableAndIndex()
        expectSuccess(try sandbox.run("tag", "/Ideas/café idea", "+work"))
        let first = try #require(FileManager.default.contents(atPath: log))
        let older = try #require(FileManager.default.contents(atPath: index))
        // A record cut short: not read.
        expectSuccess(try sandbox.run("note", "/Ideas/café idea", "--set", "nothing"))
        let both = try #require(FileManager.default.contents(atPath: log))
        #expect(both.count > first.count)
        try both.dropLast(3).write(to: URL(fileURLWithPath: log))
        try expectSameAsWithoutIndex("a log cut short")
        // A log that starts from a later file than the index's: the change before it is not
        // in the index, and only a rebuild has it.
        expectSuccess(try sandbox.run("tag", "/Work/Standups/monday", "-work"))
        try older.write(to: URL(fileURLWithPath: index))
        try expectSameAsWithoutIndex("a log whose first change is not from the index's file")
        // Another program's edit after the logged change, and the table made from it.
        expectSuccess(try sandbox.run("tag", "/Work/Standups/monday", "+work"))
        #expect(FileManager.default.fileExists(atPath: log))
        let edited = try #require(sandbox.storeBytes)
        let text = String(decoding: edited, as: UTF8.self).replacingOccurrences(of: "\"work\"", with: "\"wxrk\"")
        #expect(Array(text.utf8) != edited)
        try sandbox.write(sandbox.storeFile, Array(text.utf8))
        age()
        expectSuccess(try sandbox.run("ls", "/"))
        try expectSameAsWithoutIndex("another program's edit after the log")
    }
}

import Foundation
import RecCore
import RecStore
import Testing

/// `sync merge-driver` as git runs it: two clones of one store, conflicting changes made with
/// the CLI on each, then a plain `git pull`.
@Suite("Sync: merge driver")
struct SyncMergeDriverTests {
    static let identity = [
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    ]

    @discardableResult
    func git(_ sandbox: Sandbox, _ arguments: String...) throws -> Run {
        let run = try Sandbox.execute(
            "/usr/bin/git", ["-C", sandbox.store] + arguments,
            environment: sandbox.baseEnvironment.merging(Self.identity) { $1 })
        #expect(run.status == 0, "git \(arguments): \(run.stderr)")
        return run
    }

    @Test("git pull merges store.json by the rules, fsck is clean and the conflicts are reported")
    func pullMerges() throws {
        let a = try Sandbox()
        let b = try Sandbox()
        try a.succeed("mkdir", "/Work", "/Home")
        try a.succeed("sync", "init", "--name", "laptop")
        try git(a, "add", "store.json", ".gitattributes", ".gitignore")
        try git(a, "commit", "-qm", "base")
        _ = try Sandbox.execute(
            "/usr/bin/git", ["clone", "-q", a.store, b.store],
            environment: a.baseEnvironment.merging(Self.identity) { $1 })
        try git(b, "config", "merge.recnotes.driver", "\(Sandbox.binary) sync merge-driver %O %A %B %P")
        // A cycle of moves, and a folder of one name made on both.
        try b.succeed("mv", "/Work", "/Home/")
        try b.succeed("mkdir", "/Shared")
        try git(b, "commit", "-qam", "b")
        try a.succeed("mv", "/Home", "/Work/")
        try a.succeed("mkdir", "/Shared")
        try git(a, "commit", "-qam", "a")
        try git(a, "pull", "-q", "--no-rebase", b.store, "HEAD")

        let text = String(decoding: a.storeBytes ?? [], as: UTF8.self)
        #expect(!text.contains("<<<<<<<"))
        #expect(try a.succeed("fsck").stdout.contains("0 problems"))
        let tree = try a.succeed("tree").lines
        #expect(tree.filter { $0.contains("Shared/") }.count == 1, "\(tree)")
        let report = String(
            decoding: FileManager.default.contents(atPath: a.store + "/.git/recnotes/merge-report.jsonl") ?? Data(),
            as: UTF8.self)
        #expect(report.contains("\"kind\": \"cycle\""), "\(report)")
        #expect(report.contains("\"kind\": \"folder-joined\""), "\(report)")
    }

    /// A transcript file as recnotes writes it.
    static func transcript(engine: String, quality: String, created: String, text: String) -> String {
        #"{"engine": "\#(engine)", "model": "m", "created": "\#(created)", "quality": "\#(quality)", "segments": ["#
            + "\n" + #"  {"start": 0.5, "end": 1.5, "text": "\#(text)"}"# + "\n]}\n"
    }

    @Test("a recording transcribed on both machines keeps the better transcript, its index made from it, reported")
    func transcriptsMerge() throws {
        let a = try Sandbox()
        let b = try Sandbox()
        try a.succeed("mkdir", "/Work")
        try a.succeed("sync", "init", "--name", "laptop")
        let id = "4fcf17e2-9df3-4eca-b8c9-34b9bc281c6a"
        let json = "transcripts/\(id).json"
        let index = "transcripts/\(id).txt"
        func put(_ sandbox: Sandbox, _ text: String, _ line: String) throws {
            try FileManager.default.createDirectory(
                atPath: sandbox.store + "/transcripts", withIntermediateDirectories: true)
            try sandbox.write(sandbox.store + "/" + json, Array(text.utf8))
            try sandbox.write(sandbox.store + "/" + index, Array(line.utf8))
        }
        try put(
            a,
            Self.transcript(
                engine: "pocketsphinx", quality: "draft", created: "2026-11-25T00:00:00.000Z", text: "base"),
            "0.5\tbase\n")
        try git(a, "add", "store.json", ".gitattributes", ".gitignore", "transcripts")
        try git(a, "commit", "-qm", "base")
        _ = try Sandbox.execute(
            "/usr/bin/git", ["clone", "-q", a.store, b.store],
            environment: a.baseEnvironment.merging(Self.identity) { $1 })
        // The desktop transcribes with an engine, earlier; the laptop with the built-in
        // draft, later: the engine's stays.
        try put(
            b,
            Self.transcript(
                engine: "whisper-cli", quality: "good", created: "2026-11-25T01:00:00.000Z", text: "engine words"),
            "0.5\tengine words\n")
        try git(b, "commit", "-qam", "b")
        try put(
            a,
            Self.transcript(
                engine: "pocketsphinx", quality: "draft", created: "2026-11-25T02:00:00.000Z", text: "draft words"),
            "0.5\tdraft words\n")
        try git(a, "commit", "-qam", "a")
        try git(a, "pull", "-q", "--no-rebase", b.store, "HEAD")
        let merged = String(decoding: a.bytes(a.store + "/" + json) ?? [], as: UTF8.self)
        #expect(merged.contains("engine words") && !merged.contains("<<<<<<<"), "\(merged)")
        #expect(a.bytes(a.store + "/" + index) == Array("0.5\tengine words\n".utf8))
        let report = String(
            decoding: FileManager.default.contents(atPath: a.store + "/.git/recnotes/merge-report.jsonl") ?? Data(),
            as: UTF8.self)
        #expect(report.contains("\"kind\": \"transcript\""), "\(report)")
        #expect(report.contains("whisper-cli, 2026-11-25T01:00:00.000Z"), "\(report)")
    }

    @Test("recnotes sync (git merge-tree, not git merge) keeps the better transcript and makes its index from it")
    func transcriptsMergeThroughSync() throws {
        let a = try Sandbox()
        let hub = a.root + "/hub"
        try a.succeed("sync", "init", "--name", "laptop")
        try a.succeed("sync", "remote", "add", "hub", hub)
        let id = "4fcf17e2-9df3-4eca-b8c9-34b9bc281c6a"
        let json = "transcripts/\(id).json"
        let index = "transcripts/\(id).txt"
        func put(_ sandbox: Sandbox, _ engine: String, _ quality: String, _ created: String, _ text: String) throws {
            try FileManager.default.createDirectory(
                atPath: sandbox.store + "/transcripts", withIntermediateDirectories: true)
            let transcript = Self.transcript(engine: engine, quality: quality, created: created, text: text)
            try sandbox.write(sandbox.store + "/" + json, Array(transcript.utf8))
            try sandbox.write(sandbox.store + "/" + index, Array("0.5\t\(text)\n".utf8))
        }
        try put(a, "pocketsphinx", "draft", "2026-11-25T00:00:00.000Z", "base")
        try a.succeed("sync", "--no-content")
        let b = try Sandbox()
        try b.succeed("sync", "clone", "--name", "desk", hub)
        // The desktop's engine transcript, earlier, beats the laptop's later draft, on both.
        try put(b, "whisper-cli", "good", "2026-11-25T01:00:00.000Z", "engine words")
        try b.succeed("sync", "--no-content")
        try put(a, "pocketsphinx", "draft", "2026-11-25T02:00:00.000Z", "draft words")
        let synced = try a.succeed("sync", "--no-content")
        #expect(synced.lines.contains { $0.hasPrefix("conflict (transcript)") }, "\(synced)")
        let merged = String(decoding: a.bytes(a.store + "/" + json) ?? [], as: UTF8.self)
        #expect(merged.contains("engine words") && !merged.contains("<<<<<<<"), "\(merged)")
        #expect(a.bytes(a.store + "/" + index) == Array("0.5\tengine words\n".utf8))
        #expect(try git(a, "status", "--porcelain").stdout == "")
        try b.succeed("sync", "--no-content")
        #expect(b.bytes(b.store + "/" + index) == Array("0.5\tengine words\n".utf8))
    }

    @Test("garbage or a newer store version is refused in one line, exit 1, nothing written")
    func refusesGarbage() throws {
        let a = try Sandbox()
        try a.succeed("mkdir", "/Work")
        let before = a.storeBytes
        let garbage = a.root + "/garbage"
        _ = FileManager.default.createFile(atPath: garbage, contents: Data("garbage".utf8))
        let newer = a.root + "/newer"
        let text = String(decoding: before ?? [], as: UTF8.self).replacingOccurrences(
            of: "\"version\": \(Document.currentVersion)", with: "\"version\": 99")
        _ = FileManager.default.createFile(atPath: newer, contents: Data(text.utf8))
        for (base, theirs) in [(garbage, a.storeFile), (a.storeFile, newer)] {
            let run = try a.run(["sync", "merge-driver", base, a.storeFile, theirs, "store.json"], store: false)
            #expect(run.status == 1)
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(a.storeBytes == before)
        }
    }
}

import Foundation
import RecCore
import Testing

/// `history` says what each change did and to which item, from the store's own steps,
/// whichever command made it (browse's keys included: see `TrashAndUndoTests`).
@Suite("History: what changed, and where")
struct HistoryTests {
    @Test func eachEntrySaysWhatChangedAndToWhichItem() throws {
        let sandbox = try Sandbox()
        let take = sandbox.root + "/take.wav"
        try sandbox.write(take, wavBytes(frames: 4_800))
        let engine = sandbox.root + "/engine"
        try Data("#!/bin/sh\necho some words\n".utf8).write(to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        try sandbox.succeed("mkdir", "-p", "/Ideas", "/Archive")
        try sandbox.succeed("import", take, "--to", "/Ideas", "--name", "a")
        try sandbox.succeed("import", take, "--to", "/Ideas", "--name", "b")
        try sandbox.succeed("mv", "/Ideas/a", "/Ideas/c")
        try sandbox.succeed("mv", "/Ideas/b", "/Archive")
        try sandbox.succeed("tag", "/Ideas/c", "/Archive/b", "+budget")
        try sandbox.succeed("note", "/Ideas/c", "--set", "call back")
        expectSuccess(try sandbox.run(["transcribe", "--all"], environment: ["RECNOTES_TRANSCRIBER": engine]))
        try sandbox.succeed("rm", "/Archive/b")
        try sandbox.succeed("trash", "restore", "/Archive/b")

        let entries = try #require(try sandbox.succeed("history", "--json").json() as? [[String: Any]])
        let changes = entries.map { $0["change"] as? String ?? "" }
        #expect(
            changes == [
                "restore /Archive/b", "trash /Archive/b", "transcribe /Ideas/c", "transcribe /Archive/b",
                "note on /Ideas/c", "tags on /Ideas/c /Archive/b: +budget", "move /Ideas/b → /Archive/b",
                "rename /Ideas/a → /Ideas/c", "add /Ideas/b", "add /Ideas/a", "mkdir /Ideas /Archive",
            ], "\(changes)")
        // The command line is still there, for scripts that read it.
        #expect((entries.last?["summary"] as? String)?.hasPrefix("recnotes mkdir -p ") == true)
        let text = try sandbox.succeed("history").lines
        #expect(text.count == changes.count)
        for (line, change) in zip(text, changes) { #expect(line.hasSuffix("  " + change), "\(line)") }
        #expect(try sandbox.succeed("undo", "--dry-run").lines == ["would undo #\(entries.count): restore /Archive/b"])
    }

    /// The command line kept with each entry reads as it was typed: words of letters and
    /// digits of any script and `-_./@:%+=,` bare, anything else quoted for a shell.
    @Test func theCommandLineIsQuotedWhereAShellNeedsIt() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "-p", "/Zürich_2.0", "/a b", "/it's", "/Ωμέγα", "/x;y", "/1+1=2,@:%")
        let entries = try #require(try sandbox.succeed("history", "--json").json() as? [[String: Any]])
        #expect(
            entries.last?["summary"] as? String
                == #"recnotes mkdir -p /Zürich_2.0 '/a b' '/it'\''s' /Ωμέγα '/x;y' /1+1=2,@:%"#, "\(entries)")
    }

    /// An entry the previous version wrote has no "change": it shows its command line as it
    /// did, and undo still describes and takes it back.
    @Test func entriesOfTheVersionBeforeStillShow() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Work")
        try sandbox.succeed("mv", "/Work", "/Job")
        let journal = sandbox.store + "/journal.jsonl"
        let text = try String(contentsOfFile: journal, encoding: .utf8)
        let older = text.replacingOccurrences(
            of: #""change": "[^"]*", "#, with: "", options: .regularExpression)
        #expect(older != text && !older.contains("\"change\""))
        try sandbox.write(journal, Array(older.utf8))
        #expect(try sandbox.succeed("history").lines.map { $0.hasSuffix("  recnotes mv /Work /Job") } == [true, false])
        let entries = try #require(try sandbox.succeed("history", "--json").json() as? [[String: Any]])
        #expect(entries.allSatisfy { $0["change"] is NSNull }, "\(entries)")
        #expect(try sandbox.succeed("undo").lines == ["undid #2: rename /Work → /Job"])
        #expect(try sandbox.item(at: "/Work") != nil)
    }
}

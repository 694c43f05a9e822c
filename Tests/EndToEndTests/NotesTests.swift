import Foundation
import RecCore
import Testing

/// Notes, tags and markers through the binary: every change is a document change that
/// undo takes back, the trash keeps, and find finds.
@Suite("Notes, tags and markers")
struct NotesEndToEndTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "/Work/Standups", "/Ideas"))
        try sandbox.addRecording("monday", in: "/Work/Standups", duration: 120, created: "2026-11-16T09:00:00.000Z")
        try sandbox.addRecording("café idea", in: "/Ideas", duration: 20, created: "2026-11-20T09:00:00.000Z")
    }

    func json(_ arguments: String...) throws -> Any {
        let run = try sandbox.run(arguments + ["--json"])
        expectSuccess(run)
        return try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
    }

    @Test("tag adds and removes; tags counts; bad tags change nothing")
    func tags() throws {
        expectSuccess(try sandbox.run("tag", "/Work/Standups/monday", "/Ideas/café idea", "+work", "+q3"))
        expectSuccess(try sandbox.run("tag", "/Ideas/café idea", "-work", "+idea"))
        let counts = try #require(try json("tags") as? [[String: Any]])
        #expect(counts.map { "\($0["tag"]!)=\($0["count"]!)" } == ["idea=1", "q3=2", "work=1"])
        let before = sandbox.storeBytes
        for bad in ["+has space", "+", "+-x", "+a,b"] {
            let run = try sandbox.run("tag", "/Ideas/café idea", bad)
            #expect(run.status == 64, "\(bad): \(run)")
            #expect(run.stderrLines.count == 1 && run.stderr.hasPrefix("recnotes: "), "\(run.stderr)")
        }
        #expect(try sandbox.run("tag", "/nope", "+x").status == 1)
        #expect(try sandbox.run("tag", "/Ideas", "/Work").status == 64)
        #expect(sandbox.storeBytes == before)
        let ls = try sandbox.run("ls", "-l", "/Ideas")
        #expect(ls.stdout.contains("idea") && ls.stdout.contains("q3"), "\(ls.stdout)")
    }

    @Test("note: --set, --set - from stdin, printing, removing; undo restores the previous text")
    func notes() throws {
        expectSuccess(try sandbox.run("note", "/Ideas/café idea", "--set", "first"))
        let piped = try Sandbox.execute(
            "/bin/sh",
            [
                "-c",
                "printf 'line one\\nline two\\n' | '\(Sandbox.binary)' --store '\(sandbox.store)' note '/Ideas/café idea' --set -",
            ],
            environment: sandbox.baseEnvironment)
        expectSuccess(piped)
        #expect(try sandbox.run("note", "/Ideas/café idea").stdout == "line one\nline two\n")
        let undo = try sandbox.run("undo")
        #expect(undo.stdout.hasPrefix("undid #"), "\(undo)")
        #expect(try sandbox.run("note", "/Ideas/café idea").stdout == "first\n")
        expectSuccess(try sandbox.run("note", "/Ideas", "--set", "a folder's note"))
        #expect(try sandbox.run("note", "/Ideas").stdout == "a folder's note\n")
        expectSuccess(try sandbox.run("note", "/Ideas", "--set", ""))
        #expect(try sandbox.run("note", "/Ideas").stdout == "")
        let info = try sandbox.run("info", "/Ideas/café idea")
        #expect(info.stdout.contains("first"), "\(info.stdout)")
    }

    @Test("note with a scripted $EDITOR: saved when changed; unchanged or failing changes nothing")
    func editor() throws {
        expectSuccess(try sandbox.run("note", "/Ideas/café idea", "--set", "draft"))
        let script = sandbox.root + "/editor.sh"
        func editor(_ body: String) throws {
            try sandbox.write(script, Array("#!/bin/sh\n\(body)\n".utf8))
            chmod(script, 0o755)
        }
        try editor("printf 'edited by the editor\\n' > \"$1\"")
        expectSuccess(
            try sandbox.run(["note", "/Ideas/café idea", "--edit"], environment: ["EDITOR": script, "VISUAL": nil]))
        #expect(try sandbox.run("note", "/Ideas/café idea").stdout == "edited by the editor\n")
        let before = sandbox.storeBytes
        try editor("exit 0")
        let unchanged = try sandbox.run(["note", "/Ideas/café idea", "--edit"], environment: ["EDITOR": script])
        #expect(unchanged.status == 0 && unchanged.stderr.contains("note unchanged"), "\(unchanged)")
        try editor("printf 'lost' > \"$1\"; exit 3")
        let failed = try sandbox.run(["note", "/Ideas/café idea", "--edit"], environment: ["VISUAL": script])
        #expect(failed.status == 1 && failed.stderr.contains("exited with status 3"), "\(failed)")
        #expect(sandbox.storeBytes == before)
        // The temporary file is gone either way.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
            $0.hasPrefix("recnotes-note-")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("marks and unmark on a saved recording; undo and the trash keep them")
    func markers() throws {
        expectSuccess(try sandbox.run("mark", "/Work/Standups/monday", "--at", "1:30", "Budget numbers"))
        expectSuccess(try sandbox.run("mark", "/Work/Standups/monday", "--at", "5", "intro"))
        expectSuccess(try sandbox.run("mark", "/Work/Standups/monday", "--at", "50%"))
        let marks = try #require(try json("marks", "/Work/Standups/monday") as? [[String: Any]])
        #expect(marks.map { $0["seconds"] as? Double } == [5, 60, 90])
        #expect(marks.map { $0["label"] as? String } == ["intro", "", "Budget numbers"])
        #expect(marks.map { $0["index"] as? Int } == [1, 2, 3])
        #expect(try sandbox.run("mark", "/Work/Standups/monday", "--at", "3:00").status == 64)
        #expect(try sandbox.run("mark", "/Work/Standups", "--at", "1").status == 1)
        expectSuccess(try sandbox.run("unmark", "/Work/Standups/monday", "#2"))
        expectSuccess(try sandbox.run("unmark", "/Work/Standups/monday", "budget NUMBERS"))
        #expect(try sandbox.run("marks", "/Work/Standups/monday").lines == ["#1  00:00:05.00  intro"])
        #expect(try sandbox.run("unmark", "/Work/Standups/monday", "9").status == 1)
        expectSuccess(try sandbox.run("undo"))
        #expect(try sandbox.run("marks", "/Work/Standups/monday").lines.count == 2)
        // Trashed and restored with its recording.
        expectSuccess(try sandbox.run("rm", "/Work/Standups/monday"))
        expectSuccess(try sandbox.run("trash", "restore", "/Work/Standups/monday"))
        #expect(try sandbox.run("marks", "/Work/Standups/monday").lines.count == 2)
        let info = try sandbox.run("info", "/Work/Standups/monday")
        #expect(info.stdout.contains("#1  00:00:05.00  intro"), "\(info.stdout)")
    }

    @Test("find: tags, text in names, notes and labels (case and accents ignored), dates and lengths combine")
    func find() throws {
        expectSuccess(try sandbox.run("tag", "/Work/Standups/monday", "+work"))
        expectSuccess(try sandbox.run("note", "/Work/Standups/monday", "--set", "We went over the Q3 numbers."))
        expectSuccess(try sandbox.run("mark", "/Work/Standups/monday", "--at", "61", "Budget"))
        let hits = try #require(try json("find", "/", "--text", "budget q3") as? [[String: Any]])
        #expect(hits.map { $0["path"] as? String } == ["/Work/Standups/monday"])
        let matches = try #require(hits.first?["matches"] as? [[String: Any]])
        #expect(matches.map { $0["field"] as? String } == ["note", "marker"])
        #expect(hits.first?["time"] as? Double == 61)
        #expect(try sandbox.run("find", "/", "--text", "CAFE").lines == ["/Ideas/café idea"])
        #expect(try sandbox.run("find", "/", "--tag", "work").lines == ["/Work/Standups/monday"])
        #expect(try sandbox.run("find", "/", "--tag", "work", "--text", "cafe").lines.isEmpty)
        #expect(try sandbox.run("find", "/", "--longer", "60").lines == ["/Work/Standups/monday"])
        #expect(try sandbox.run("find", "/", "--shorter", "60", "--type", "recording").lines == ["/Ideas/café idea"])
        #expect(
            try sandbox.run("find", "/", "--after", "2026-11-18", "--type", "recording").lines == ["/Ideas/café idea"])
        #expect(
            try sandbox.run("find", "/", "--before", "2026-11-18", "--type", "recording").lines == [
                "/Work/Standups/monday"
            ])
        for bad in [["--after", "soon"], ["--longer", "x"], ["--tag", "a b"]] {
            let run = try sandbox.run(["find", "/"] + bad)
            #expect(run.status == 64, "\(bad): \(run)")
        }
    }

    /// stdout of `recnotes --store STORE arguments…` on a terminal (`script`'s pseudo-terminal),
    /// its line ends as written to it; stdin is not one, so that `note` prints rather than edits.
    func onTerminal(_ arguments: [String]) throws -> String {
        let words = ([Sandbox.binary, "--store", sandbox.store] + arguments).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        let result = try Sandbox.execute(
            "/usr/bin/script", ["-qec", words.joined(separator: " ") + " < /dev/null", "/dev/null"],
            environment: sandbox.baseEnvironment.merging(["TERM": "xterm"]) { $1 })
        #expect(result.status == 0, "\(result)")
        return result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
    }

    @Test(
        "a note's control characters are kept, shown as ? on a terminal, exact to a pipe and in --json",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func controlCharactersInANote() throws {
        let note = "\u{1B}]0;x\u{07}\u{1B}[31mred\tcell\nnext \u{9B}line"
        expectSuccess(try sandbox.run("note", "/Ideas/café idea", "--set", note))
        let visible = "?]0;x??[31mred\tcell\nnext ?line"
        #expect(try onTerminal(["note", "/Ideas/café idea"]) == visible + "\n")
        let info = try onTerminal(["info", "/Ideas/café idea"])
        #expect(
            !info.unicodeScalars.contains("\u{1B}") && !info.unicodeScalars.contains("\u{9B}"),
            "\(info.debugDescription)")
        #expect(info.contains("?]0;x??[31mred\tcell"), "\(info.debugDescription)")
        let found = try onTerminal(["find", "/", "--text", "red"])
        #expect(found.contains("note: ") && !found.unicodeScalars.contains("\u{1B}"), "\(found.debugDescription)")
        // The text itself is as written: to a pipe, and in --json.
        #expect(try sandbox.run("note", "/Ideas/café idea").stdout == note + "\n")
        let object = try #require(try sandbox.run("note", "/Ideas/café idea", "--json").object())
        #expect(object["note"] as? String == note)
    }
}

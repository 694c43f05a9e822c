import Foundation
import Testing

/// `export --markdown`: a recording with a note, tags, markers and a transcript, against the
/// golden file Tests/Fixtures/markdown/budget-talk.md (its date and uuid put in), written
/// again with the user's text kept, and a folder exported a note each with its audio.
@Suite("export --markdown: recordings as notes")
struct MarkdownExportTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/markdown/budget-talk.md").path

    /// /Talks/budget talk: 8 s, two tags, a note, two markers, a transcript of three segments.
    func library() throws -> Sandbox {
        let cli = try Sandbox()
        try cli.write(cli.root + "/talk.wav", wavBytes(frames: 8 * 48_000))
        try cli.succeed("mkdir", "/Talks")
        try cli.succeed("import", cli.root + "/talk.wav", "--to", "/Talks", "--name", "budget talk")
        try cli.succeed("tag", "/Talks/budget talk", "+work", "+later")
        try cli.succeed("note", "/Talks/budget talk", "--set", "The quarterly budget, first draft.")
        try cli.succeed("mark", "/Talks/budget talk", "--at", "0:03", "budget")
        try cli.succeed("mark", "/Talks/budget talk", "--at", "0:06", "wrap up")
        let engine = cli.root + "/engine"
        let vtt = """
            WEBVTT

            00:00:00.500 --> 00:00:02.000
            Good morning, everyone.

            00:00:03.200 --> 00:00:05.000
            Let us look at the budget.

            00:00:06.100 --> 00:00:07.500
            That is all for today.

            """
        try Data("#!/bin/sh\ncat <<'VTT'\n\(vtt)VTT\n".utf8).write(to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        try cli.succeed("transcribe", "/Talks/budget talk", "--engine", engine, "-q")
        return cli
    }

    @Test func aRecordingAgainstTheGoldenFileAndWrittenAgainKeepingTheUsersText() throws {
        let cli = try library()
        let info = try cli.run("info", "/Talks/budget talk", "--json").object()
        let uuid = try #require(info["uuid"] as? String)
        let created = try #require(info["created"] as? String)
        let expected = try String(contentsOfFile: Self.golden, encoding: .utf8)
            .replacingOccurrences(of: "UUID", with: uuid).replacingOccurrences(of: "CREATED", with: created)
        let note = cli.root + "/budget talk.md"
        try cli.succeed("export", "/Talks/budget talk", "--markdown", note)
        #expect(try String(contentsOfFile: note, encoding: .utf8) == expected)
        #expect(try cli.succeed("export", "/Talks/budget talk", "--markdown", "-").stdout == expected)

        // The user writes below the last line; the note changes; written again, both are there.
        let handle = try #require(FileHandle(forWritingAtPath: note))
        handle.seekToEndOfFile()
        handle.write(Data("\nMy own thoughts on it.\n".utf8))
        try handle.close()
        try cli.succeed("note", "/Talks/budget talk", "--set", "The quarterly budget, second draft.")
        try cli.succeed("export", "/Talks/budget talk", "--markdown", note)
        let again = try String(contentsOfFile: note, encoding: .utf8)
        #expect(again.contains("second draft") && !again.contains("first draft"), "\(again)")
        #expect(again.hasSuffix("kept when the note is written again -->\n\nMy own thoughts on it.\n"), "\(again)")

        // Times linked to the served page.
        let linked = try cli.succeed(
            "export", "/Talks/budget talk", "--markdown", "-", "--link-base", "http://127.0.0.1:8930/"
        ).stdout
        #expect(
            linked.contains("[00:03](http://127.0.0.1:8930/r/\(uuid)#t=3.2) Let us look at the budget."), "\(linked)")
    }

    @Test func aFolderANoteEachWithItsAudioAndNothingElseWrittenOver() throws {
        let cli = try library()
        try cli.succeed("mkdir", "/Talks/Old")
        try cli.write(cli.root + "/old.wav", wavBytes(frames: 48_000))
        try cli.succeed("import", cli.root + "/old.wav", "--to", "/Talks/Old", "--name", "a: b")
        let notes = cli.root + "/vault"
        let run = try cli.run("export", "-r", "/Talks", "--markdown", notes, "--copy-audio", "--wikilinks")
        #expect(run.status == 0 && run.stdout == "exported 2 notes into \(notes)\n" && run.stderr.isEmpty, "\(run)")
        let talk = try String(contentsOfFile: notes + "/budget talk.md", encoding: .utf8)
        #expect(talk.contains("\n![[budget talk.opus]]\n"), "\(talk)")
        #expect(FileManager.default.fileExists(atPath: notes + "/budget talk.opus"))
        #expect(FileManager.default.fileExists(atPath: notes + "/Old/a- b.md"))
        // A file of the user's own is not written over.
        let mine = cli.root + "/mine.md"
        try cli.write(mine, Array("my own file\n".utf8))
        let refused = try cli.run("export", "/Talks/budget talk", "--markdown", mine)
        #expect(refused.status == 1 && refused.stderrLines.count == 1, "\(refused)")
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "my own file\n")
        for (arguments, message) in [
            (
                ["export", "/Talks", "--markdown", "-"],
                "recnotes: /Talks: is a folder, not a recording (-r exports a folder's recordings)"
            ),
            (
                ["export", "/Talks/budget talk", "--markdown", "-", "--format", "wav"],
                "recnotes: --format: is for audio; --markdown writes a note"
            ),
            (
                ["export", "/Talks/budget talk", "out.wav", "--wikilinks"],
                "recnotes: --wikilinks: goes with --markdown"
            ),
        ] {
            let bad = try cli.run(arguments)
            #expect(bad.status != 0 && bad.stderr == message + "\n", "\(arguments): \(bad)")
        }
    }
}

import Foundation
import RecSystem
import Testing

/// `transcript PATH --replace OLD --with NEW` and `--edit`: the words corrected, the times of the
/// others exactly as the engine gave them, marked as corrected, searchable, taken back by
/// `undo`, and kept from `transcribe` without `--force`. The transcript is the built-in
/// PocketSphinx's of a LibriVox sentence (word times of a real engine).
@Suite("transcript: corrected by hand")
struct TranscriptCorrectionCommandTests {
    static let clip = LiveWordsTests.librivox + "0880.wav"

    /// A sandbox with /talk imported and transcribed; its words (text, start, end).
    func transcribed() throws -> (Sandbox, [(String, Double, Double)]) {
        let cli = try Sandbox()
        try cli.succeed("import", Self.clip, "--name", "talk")
        expectSuccess(try cli.run(["transcribe", "talk", "-q"], environment: ["RECNOTES_TRANSCRIBER": nil]))
        return (cli, try Self.words(cli))
    }

    static func words(_ cli: Sandbox) throws -> [(String, Double, Double)] {
        let json = try cli.run("transcript", "talk", "--format", "json").object()
        let segments = try #require(json["segments"] as? [[String: Any]])
        return segments.flatMap { ($0["words"] as? [[String: Any]]) ?? [] }.map {
            ($0["text"] as? String ?? "", $0["start"] as? Double ?? -1, $0["end"] as? Double ?? -1)
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: clip), "needs pocketsphinx-testdata"))
    func replaceSaysAWordAnewAndKeepsEveryOtherTime() throws {
        let (cli, before) = try transcribed()
        #expect(before.count >= 4, "\(before)")
        let target = before[before.count / 2]
        let replaced = try cli.run("transcript", "talk", "--replace", target.0, "--with", "Zürich")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(
            replaced.stderr.hasPrefix("recnotes: /talk: \"\(target.0)\" is now \"Zürich\", 1 time"),
            "\(replaced.stderr)")
        let after = try Self.words(cli)
        #expect(after.count == before.count)
        for (old, new) in zip(before, after) where old.0 != target.0 {
            #expect(old == new, "\(old) became \(new)")
        }
        let zurich = try #require(after.first { $0.0 == "Zürich" })
        #expect(zurich.1 == target.1 && zurich.2 == target.2, "\(zurich) in the place of \(target)")
        let json = try cli.run("transcript", "talk", "--format", "json").object()
        #expect(json["corrected"] as? Bool == true)
        #expect(try cli.run("find", "--text", "Zürich").stdout == "/talk\n")
        // Not at a terminal and not asked to, the new name is not added to your words.
        #expect(try cli.succeed("words").stdout == "")
        // transcribe leaves it; undo takes the correction back.
        let again = try cli.run(["transcribe", "talk"], environment: ["RECNOTES_TRANSCRIBER": nil])
        #expect(again.status == 0)
        #expect(try Self.words(cli).map(\.0) == after.map(\.0))
        #expect(try cli.run("history", "--json").stdout.contains("transcript of /talk corrected"))
        try cli.succeed("undo", "-q")
        #expect(try Self.words(cli).map(\.0) == before.map(\.0))
        // --add-words: the names it brings in become your words.
        let added = try cli.run("transcript", "talk", "--replace", target.0, "--with", "Dashwood Zürich", "--add-words")
        #expect(added.status == 0 && added.stderr.contains("recnotes: words: added Dashwood, Zürich"), "\(added)")
        #expect(try cli.succeed("words").lines == ["Dashwood", "Zürich"])
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: clip), "needs pocketsphinx-testdata"))
    func badCorrectionsChangeNothing() throws {
        let (cli, _) = try transcribed()
        let store = cli.storeBytes
        let transcript = try cli.run("transcript", "talk", "--format", "json").stdout
        for (arguments, message) in [
            (
                ["--replace", "xylophone", "--with", "x"],
                "recnotes: transcript: \"xylophone\" is not in the transcript"
            ),
            (["--replace", "one"], "recnotes: --replace: --replace OLD goes with --with NEW"),
            (["--all"], "recnotes: --all: goes with --replace"),
            (["--edit", "--replace", "a", "--with", "b"], "recnotes: --edit: cannot be combined with --replace"),
        ] {
            let run = try cli.run(["transcript", "talk"] + arguments)
            #expect(run.status != 0 && run.stderr == message + "\n", "\(arguments): \(run)")
        }
        // An editor that drops a line, and one that fails.
        for editor in ["sed -i '$d'", "false"] {
            let run = try cli.run(["transcript", "talk", "--edit"], environment: ["EDITOR": editor, "VISUAL": nil])
            #expect(run.status != 0 && run.stderrLines.count == 1, "\(editor): \(run)")
        }
        #expect(cli.storeBytes == store)
        #expect(try cli.run("transcript", "talk", "--format", "json").stdout == transcript)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: clip), "needs pocketsphinx-testdata"))
    func editCorrectsInTheEditor() throws {
        let (cli, before) = try transcribed()
        let first = try #require(before.first)
        // The editor: the first word of the first segment's line said anew.
        let editor = "sed -i -E '/^\\[/{s/^(\\[[^]]*\\]) \(first.0)/\\1 Barton/;}'"
        let run = try cli.run(["transcript", "talk", "--edit"], environment: ["EDITOR": editor, "VISUAL": nil])
        #expect(run.status == 0, "\(run)")
        let after = try Self.words(cli)
        #expect(after.first?.0 == "Barton", "\(after)")
        #expect(Array(after.dropFirst()).map(\.0) == Array(before.dropFirst()).map(\.0))
        #expect(zip(after.dropFirst(), before.dropFirst()).allSatisfy { $0 == $1 })
        // Saved unchanged: nothing to do.
        let unchanged = try cli.run(["transcript", "talk", "--edit"], environment: ["EDITOR": "true", "VISUAL": nil])
        #expect(
            unchanged.status == 0 && unchanged.stderr == "recnotes: warning: /talk: transcript unchanged\n",
            "\(unchanged)")
    }
}

import Foundation
import Testing

/// `summarize PATH --summarizer 'COMMAND'`: the contract a summarizer of the user's own
/// plugs into, tested with shell scripts in its place: the transcript on its input, a segment a
/// line after its time; its output printed, or kept in the note with --apply; its failures one
/// line each, with the note unchanged.
@Suite("summarize: a summary by a program of the user's")
struct SummarizeCommandTests {
    /// A recording "talk" transcribed by an engine script that prints two timed segments.
    func library() throws -> Sandbox {
        let cli = try Sandbox()
        try cli.write(cli.root + "/talk.wav", wavBytes(frames: 8 * 48_000))
        try cli.succeed("import", cli.root + "/talk.wav", "--name", "talk")
        let vtt =
            "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nthe budget for the zeppelin\n\n00:00:04.500 --> 00:00:07.000\nwe fly in May\n"
        try script("engine", "cat <<'VTT'\n\(vtt)VTT", in: cli)
        try cli.succeed("transcribe", "talk", "--engine", cli.root + "/engine", "-q")
        return cli
    }

    @discardableResult
    func script(_ name: String, _ body: String, in cli: Sandbox) throws -> String {
        let path = cli.root + "/" + name
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    @Test func theSummarizerReadsTheTimedTranscriptAndItsAnswerIsPrinted() throws {
        let cli = try library()
        // It keeps what it read, and answers with a blank line around its summary.
        let summarizer = try script(
            "summarizer", "cat > \"$(dirname \"$0\")/read.txt\"\nprintf '\\nA zeppelin budget; flying in May.\\n\\n'",
            in: cli)
        let run = try cli.succeed("summarize", "talk", "--summarizer", summarizer)
        #expect(run.stdout == "A zeppelin budget; flying in May.\n", "\(run)")
        let read = try String(contentsOfFile: cli.root + "/read.txt", encoding: .utf8)
        #expect(read == "[00:01] the budget for the zeppelin\n[00:04] we fly in May\n", "\(read)")
        // Printing changed nothing.
        #expect(try cli.succeed("note", "talk").stdout == "")
        // $RECNOTES_SUMMARIZER is the default command.
        let fromEnvironment = try cli.run(["summarize", "talk"], environment: ["RECNOTES_SUMMARIZER": summarizer])
        #expect(fromEnvironment.status == 0 && fromEnvironment.stdout == run.stdout, "\(fromEnvironment)")
    }

    @Test func applyKeepsTheSummaryFirstInTheNoteAndUndoTakesItBack() throws {
        let cli = try library()
        try cli.succeed("note", "talk", "--set", "Call Anna about it.")
        let first = try script("first", "echo 'About the budget.'", in: cli)
        try cli.succeed("summarize", "talk", "--summarizer", first, "--apply", "-q")
        #expect(try cli.succeed("note", "talk").stdout == "Summary: About the budget.\n\nCall Anna about it.\n")
        // A second summary takes the first one's place; the rest of the note stays.
        let second = try script("second", "echo 'About the airship.'", in: cli)
        let applied = try cli.succeed("summarize", "talk", "--summarizer", second, "--apply")
        #expect(applied.stdout == "About the airship.\n", "\(applied)")
        #expect(try cli.succeed("note", "talk").stdout == "Summary: About the airship.\n\nCall Anna about it.\n")
        // find sees it, as any note.
        #expect(try cli.succeed("find", "--text", "airship", "--type", "recording").stdout.contains("talk"))
        try cli.succeed("undo")
        #expect(try cli.succeed("note", "talk").stdout == "Summary: About the budget.\n\nCall Anna about it.\n")
    }

    @Test func aFailingSummarizerIsOneLineAndChangesNothing() throws {
        let cli = try library()
        try cli.succeed("note", "talk", "--set", "kept")
        let failing = try script(
            "failing", "cat >/dev/null\necho 'loading the model' >&2\necho 'no model at /models' >&2\nexit 3", in: cli)
        let silent = try script("silent", "cat >/dev/null", in: cli)
        try cli.succeed("mkdir", "/Empty")
        try cli.write(cli.root + "/quiet.wav", wavBytes(frames: 48_000))
        try cli.succeed("import", cli.root + "/quiet.wav", "--name", "quiet")
        let store = try Data(contentsOf: URL(fileURLWithPath: cli.store + "/store.json"))
        for (arguments, status, message) in [
            (
                ["summarize", "talk", "--summarizer", failing, "--apply"], 1,
                "recnotes: failing: exited with status 3: no model at /models"
            ),
            (["summarize", "talk", "--summarizer", silent, "--apply"], 1, "recnotes: silent: printed no summary"),
            (["summarize", "talk", "--summarizer", cli.root + "/nowhere"], 1, nil),
            (["summarize", "talk", "--summarizer", "'unclosed"], 64, nil),
            (
                ["summarize", "talk"], 64,
                "recnotes: summarize: no summarizer: give --summarizer 'COMMAND' or set RECNOTES_SUMMARIZER"
            ),
            (["summarize", "quiet", "--summarizer", silent], 1, nil),
            (["summarize", "/Empty", "--summarizer", silent], 1, "recnotes: /Empty: is a folder, not a recording"),
        ] {
            let run = try cli.run(arguments, environment: ["RECNOTES_SUMMARIZER": nil])
            #expect(
                Int(run.status) == status && run.stderrLines.count == 1 && run.stdout.isEmpty, "\(arguments): \(run)")
            if let message { #expect(run.stderr == message + "\n", "\(arguments): \(run)") }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.store + "/store.json")) == store)
    }
}

import Foundation
import RecCore
import Testing

/// Arguments that are not what they look like, and argument-parser's own complaints, all
/// in recnotes' voice: one line `recnotes: <what>: <why>`, exit status 64.
@Suite("Arguments: unknown options and usage errors in one voice")
struct ArgumentTests {
    func expectUsage(
        _ sandbox: Sandbox, _ arguments: [String], _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let run = try sandbox.run(arguments)
        expectFailure(run, status: 64, message: message, sourceLocation: sourceLocation)
    }

    @Test func aFileWhoseNameStartsWithADashIsNotReadAsOptions() throws {
        let cli = try AudioCLI()
        let wav = try PipelineTests.wav(cli, "-dash.wav", AudioCLI.tone(frames: 4800))
        _ = wav
        let (process, out, err) = cli.process(["import", "-dash.wav"])
        process.currentDirectoryURL = URL(fileURLWithPath: cli.home)
        try process.run()
        let errors = DrainedPipe(err)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
        #expect(output.isEmpty, "no help on stdout")
        #expect(
            String(decoding: errors.wait(), as: UTF8.self)
                == "recnotes: -dash.wav: unknown option; a file or name that starts with - is written ./-dash.wav or after --\n"
        )
        #expect(try cli.recordings().isEmpty)
        for arguments in [["import", "./-dash.wav", "--name", "a"], ["import", "--name", "b", "--", "-dash.wav"]] {
            let (p, _, e) = cli.process(arguments)
            p.currentDirectoryURL = URL(fileURLWithPath: cli.home)
            try p.run()
            let text = DrainedPipe(e)
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "\(arguments): \(String(decoding: text.wait(), as: UTF8.self))")
        }
        #expect(try cli.recordings().count == 2)
    }

    @Test func argumentParserMessagesAreInOurVoice() throws {
        let sandbox = try Sandbox()
        try expectUsage(
            sandbox, ["ls", "--sort", "pitch"], "recnotes: --sort pitch: must be name, date, duration or size")
        try expectUsage(
            sandbox, ["record", "--format", "aac"], "recnotes: --format aac: must be opus, flac, wav, vorbis or mp3")
        try expectUsage(sandbox, ["record", "--rate", "abc"], "recnotes: --rate abc: not a valid <hz>")
        try expectUsage(sandbox, ["record", "--rate"], "recnotes: --rate: needs a value (<hz>)")
        try expectUsage(sandbox, ["ls", "--bogus"], "recnotes: --bogus: unknown option; see 'recnotes ls --help'")
        try expectUsage(
            sandbox, ["ls", "-z"],
            "recnotes: -z: unknown option; a file or name that starts with - is written ./-z or after --")
        try expectUsage(
            sandbox, ["trash", "restore", "-x"],
            "recnotes: -x: unknown option; a file or name that starts with - is written ./-x or after --")
        try expectUsage(sandbox, ["frob"], "recnotes: frob: not a recnotes command; see 'recnotes help'")
        try expectUsage(sandbox, ["pwd", "a", "b"], "recnotes: a: unexpected argument; see 'recnotes pwd --help'")
        try expectUsage(sandbox, ["import"], "recnotes: import: needs at least one FILE, or - for standard input")
        try expectUsage(
            sandbox, ["import", "x.wav", "--keep", "--format", "flac"],
            "recnotes: --keep: cannot be combined with --format")
        // What looks like an option but is a value still is one.
        #expect(try sandbox.run(["seek", "-5s"]).status == 1)
        #expect(try sandbox.run(["ls", "-l"]).status == 0)
    }

    /// `recnotes --store STORE` followed by `words`, each a bash `$'…'` string, so that a
    /// word can hold bytes that are not UTF-8 (which a Swift `String` argument cannot).
    func runWithBytes(_ sandbox: Sandbox, _ words: [String]) throws -> Run {
        let script = "exec \"$0\" --store \"$1\" " + words.joined(separator: " ")
        return try Sandbox.execute(
            "/bin/bash", ["-c", script, Sandbox.binary, sandbox.store], environment: sandbox.baseEnvironment)
    }

    @Test func anArgumentThatIsNotUTF8IsRefusedAndChangesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Work")
        _ = try sandbox.addRecording("memo", in: "/Work", duration: 5)
        let before = try sandbox.storeListing()
        let storeBefore = sandbox.storeBytes
        // A stray byte, a surrogate (U+D800) and an overlong '/' (0xC0 0xAF).
        for (bad, shown) in [
            ("bad\\xff\\xfe", "bad\\xFF\\xFE"), ("s\\xed\\xa0\\x80", "s\\xED\\xA0\\x80"),
            ("o\\xc0\\xaf", "o\\xC0\\xAF"),
        ] {
            let word = "$'\(bad)'"
            for words in [
                ["mkdir", word], ["mkdir", "-p", "/Work/\(word)"], ["mv", "/Work/memo", word],
                ["tag", "/Work/memo", "$'+\(bad)'"],
                ["mark", "/Work/memo", "--at", "1", word], ["note", "/Work/memo", "--set", word],
                ["info", "/Work/\(word)"],
                ["--store", word, "ls"],
            ] {
                let run = try runWithBytes(sandbox, words)
                expectFailure(run, status: 64, containing: ["the argument is not valid UTF-8", shown])
            }
        }
        #expect(try sandbox.storeListing() == before)
        #expect(sandbox.storeBytes == storeBefore)
        // Text the same bytes spell correctly is taken: é as UTF-8.
        expectSuccess(try runWithBytes(sandbox, ["mkdir", "$'/Work/caf\\xc3\\xa9'"]))
        #expect(try sandbox.item(at: "/Work/café") != nil)
    }
}

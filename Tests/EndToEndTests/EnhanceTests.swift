import Foundation
import Testing

/// `recnotes enhance` (non-destructive, like trim points): a recording's stored
/// choice that play, export and transcribe apply, that --original ignores, that undo, the trash
/// and fsck carry, and that never changes the audio file.
@Suite("enhance")
struct EnhanceTests {
    /// 2 s of a quiet 440 Hz tone at 48 kHz (far below -16 LUFS), recorded as "talk" in WAV,
    /// so that what plays is what was captured, sample for sample.
    static func talk() throws -> (AudioCLI, [Int16]) {
        let cli = try AudioCLI()
        let input = AudioCLI.tone(frames: 96_000, amplitude: 0.05)
        try cli.writeInput(input)
        let record = try cli.run("record", "talk", "--format", "wav", "--duration", "2")
        #expect(record.status == 0, "\(record.stderr)")
        return (cli, input)
    }

    static func played(_ cli: AudioCLI, _ arguments: String...) throws -> [Int16] {
        try? FileManager.default.removeItem(atPath: cli.output)
        let play = try cli.run(["play"] + arguments)
        #expect(play.status == 0, "\(arguments): \(play.stderr)")
        return cli.outputSamples()
    }

    static func enhanceJSON(_ cli: AudioCLI, _ path: String = "talk") throws -> [String: Bool]? {
        let info = try cli.run("info", path, "--json")
        let object = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
        return object?["enhance"] as? [String: Bool]
    }

    @Test("level on: play and export are as --level alone; --original is the file; the file is never rewritten")
    func levelAppliesOriginalIgnores() throws {
        let (cli, input) = try Self.talk()
        let audio = try #require(cli.audioFiles().first)
        let fileBefore = FileManager.default.contents(atPath: cli.store + "/audio/" + audio)
        #expect(try cli.run("enhance", "talk").stdout == "/talk: level off, denoise off\n")
        #expect(try Self.enhanceJSON(cli) == ["level": false, "denoise": false])
        let levelled = try Self.played(cli, "talk", "--level")
        #expect(levelled.count == input.count && levelled != input)

        let set = try cli.run("enhance", "talk", "--level")
        #expect(set.status == 0 && set.stdout == "/talk: level on, denoise off\n", "\(set)")
        #expect(try Self.enhanceJSON(cli) == ["level": true, "denoise": false])
        #expect(FileManager.default.contents(atPath: cli.store + "/audio/" + audio) == fileBefore)
        #expect(try Self.played(cli, "talk") == levelled, "stored level on plays as --level -16")
        #expect(try Self.played(cli, "talk", "--original") == input, "--original plays the file as it is")
        // A typed option wins over the stored one, with --original too.
        let quieter = try Self.played(cli, "talk", "--level", "-30")
        #expect(quieter != levelled && quieter != input)
        #expect(try Self.played(cli, "talk", "--original", "--level", "-30") == quieter)

        let enhanced = cli.home + "/enhanced.wav"
        let export = try cli.run("export", "talk", enhanced)
        #expect(export.status == 0, "\(export.stderr)")
        let explicit = cli.home + "/explicit.wav"
        #expect(try cli.run("export", "talk", explicit, "--original", "--level", "-16").status == 0)
        #expect(Bool(try AudioCLI.decode(enhanced) == AudioCLI.decode(explicit)))
        #expect(Bool(try AudioCLI.decode(enhanced) != input))
        let original = cli.home + "/original.wav"
        #expect(try cli.run("export", "talk", original, "--original").status == 0)
        // The stored WAV copied as it is.
        #expect(FileManager.default.contents(atPath: original) == fileBefore)

        // --original leaves the trim points alone; --untrimmed is theirs.
        #expect(try cli.run("trim", "talk", "--in", "0.5", "--out", "1.5").status == 0)
        #expect(try Self.played(cli, "talk", "--original") == Array(input[24_000..<72_000]))
        #expect(try Self.played(cli, "talk", "--original", "--untrimmed") == input)

        let info = try cli.run("info", "talk")
        #expect(info.stdout.contains("enhanced:") && info.stdout.contains("level on, denoise off"), "\(info.stdout)")
        let list = try cli.run("ls", "-l", "--json")
        #expect(list.stdout.contains(#""enhance": {"level": true, "denoise": false}"#), "\(list.stdout)")
    }

    @Test("kept across undo and the trash; history says what changed; fsck carries it")
    func undoTrashFsck() throws {
        let (cli, _) = try Self.talk()
        #expect(try cli.run("enhance", "talk", "--level").status == 0)
        #expect(try cli.run("tag", "talk", "+x").status == 0)
        #expect(try cli.run("undo").status == 0)
        #expect(try Self.enhanceJSON(cli) == ["level": true, "denoise": false], "undoing a later change keeps it")
        #expect(try cli.run("enhance", "talk", "--no-level", "--denoise").status == 0)
        let history = try cli.run("history")
        #expect(history.stdout.contains("enhance /talk: level off, denoise on"), "\(history.stdout)")
        #expect(history.stdout.contains("enhance /talk: level on"), "\(history.stdout)")
        #expect(try cli.run("undo").status == 0)
        #expect(try Self.enhanceJSON(cli) == ["level": true, "denoise": false])
        #expect(try cli.run("rm", "talk").status == 0)
        #expect(try cli.run("trash", "restore", "talk").status == 0)
        #expect(try Self.enhanceJSON(cli) == ["level": true, "denoise": false])
        let clean = try cli.run("fsck")
        #expect(clean.status == 0, "\(clean)")
        // A lost store.json is rebuilt from the journal: the enhancement with it.
        try FileManager.default.removeItem(atPath: cli.store + "/store.json")
        let repair = try cli.run("fsck", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(try Self.enhanceJSON(cli) == ["level": true, "denoise": false])
    }

    @Test(
        "import --enhance and record --enhance set both; both apply; without speexdsp, a denoised recording is refused in one line unless --original"
    )
    func importEnhanceAndDenoise() throws {
        let cli = try AudioCLI()
        let wav = cli.home + "/tone.wav"
        let input = AudioCLI.tone(frames: 48_000, amplitude: 0.05)
        try cli.writeInput(input)
        #expect(try cli.run("record", "--output", wav, "--format", "wav", "--duration", "1").status == 0)
        let imported = try cli.run("import", wav, "--name", "both", "--enhance", "--format", "wav")
        #expect(imported.status == 0, "\(imported)")
        #expect(try Self.enhanceJSON(cli, "both") == ["level": true, "denoise": true])
        let recorded = try cli.run("record", "memo", "--enhance", "--format", "wav", "--duration", "1")
        #expect(recorded.status == 0, "\(recorded)")
        #expect(try Self.enhanceJSON(cli, "memo") == ["level": true, "denoise": true])
        let output = try cli.run("record", "--output", cli.home + "/y.wav", "--enhance", "--duration", "1")
        #expect(output.status == 64 && output.stderr.contains("--enhance"), "\(output)")
        let enhanced = try Self.played(cli, "both")
        #expect(enhanced.count == input.count && enhanced != input)
        #expect(try cli.run("export", "both", cli.home + "/x.wav").status == 0)
        // Without the suppressor's library: refused, the device untouched, nothing written.
        cli.extraEnvironment["RECNOTES_SPEEXDSP"] = cli.home + "/missing/libspeexdsp.so.1"
        try? FileManager.default.removeItem(atPath: cli.output)
        let play = try cli.run("play", "both")
        #expect(play.status == 1, "\(play)")
        #expect(play.stderr.hasPrefix("recnotes: both: cannot load the speexdsp library"), "\(play.stderr)")
        #expect(play.stderr.contains("'recnotes enhance --no-denoise', or --original"), "\(play.stderr)")
        #expect(play.stderr.split(separator: "\n").count == 1)
        #expect(cli.outputSamples().isEmpty)
        let export = try cli.run("export", "both", cli.home + "/y.wav")
        #expect(export.status == 1 && export.stderr.contains("cannot load the speexdsp library"), "\(export)")
        #expect(!FileManager.default.fileExists(atPath: cli.home + "/y.wav"))
        #expect(try Self.played(cli, "both", "--original") == input)
        #expect(try cli.run("enhance", "both", "--no-denoise").status == 0)
        #expect(try Self.played(cli, "both") != input)
    }

    @Test("folders need -r; bad paths and options: one line, the documented exit code, nothing changed")
    func errors() throws {
        let (cli, _) = try Self.talk()
        #expect(try cli.run("mkdir", "/F").status == 0)
        #expect(try cli.run("enhance", "talk", "--level").status == 0)
        let store = cli.store + "/store.json"
        let before = FileManager.default.contents(atPath: store)
        let bad: [([String], Int32)] = [
            (["/nope", "--level"], 1),
            (["talk", "/nope", "--denoise"], 1),
            (["/nope"], 1),
            (["/F", "--level"], 64),
            (["/F"], 64),
            ([], 64),
            (["talk", "--level", "--no-level"], 64),
            (["talk", "--loud"], 64),
        ]
        for (arguments, status) in bad {
            let run = try cli.run(["enhance"] + arguments)
            #expect(run.status == status, "\(arguments): \(run)")
            #expect(
                run.stderr.hasPrefix("recnotes: ") && run.stderr.split(separator: "\n").count == 1,
                "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(arguments)")
        }
        #expect(FileManager.default.contents(atPath: store) == before)
        // -r: every recording under the folder.
        #expect(try cli.run("mv", "talk", "/F/talk").status == 0)
        let all = try cli.run("enhance", "-r", "/", "--denoise")
        #expect(all.status == 0 && all.stdout == "/F/talk: level on, denoise on\n", "\(all)")
        #expect(try cli.run("enhance", "-r", "/F").stdout == "/F/talk: level on, denoise on\n")
        let json = try cli.run("enhance", "/F/talk", "--no-denoise", "--json")
        #expect(json.stdout.contains(#""enhance": {"level": true, "denoise": false}"#), "\(json)")
    }
}

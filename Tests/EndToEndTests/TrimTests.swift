import Foundation
import Testing

/// Trim points: document data that play and export --trimmed honour, that undo,
/// the trash and fsck cover, and that never change the audio file.
@Suite("trim")
struct TrimTests {
    /// 1 s of silence, 1 s of a 440 Hz tone, 2 s of silence at 48 kHz, recorded as "talk".
    static func talk() throws -> (AudioCLI, [Int16]) {
        let cli = try AudioCLI()
        let silence = [Int16](repeating: 0, count: 48_000)
        let input = silence + AudioCLI.tone(frames: 48_000) + silence + silence
        try cli.writeInput(input)
        let record = try cli.run("record", "talk", "--format", "wav", "--duration", "4")
        #expect(record.status == 0, "\(record.stderr)")
        return (cli, input)
    }

    static func trimJSON(_ cli: AudioCLI, _ path: String = "talk") throws -> [String: Any]? {
        let info = try cli.run("info", path, "--json")
        let object = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
        return object?["trim"] as? [String: Any]
    }

    @Test("--auto sets the points around the speech; play and export --trimmed give exactly those frames")
    func autoPlayAndExport() throws {
        let (cli, input) = try Self.talk()
        let audio = try #require(cli.audioFiles().first)
        let fileBefore = FileManager.default.contents(atPath: cli.store + "/audio/" + audio)

        let trim = try cli.run("trim", "talk", "--auto")
        #expect(trim.status == 0, "\(trim.stderr)")
        #expect(trim.stdout.hasPrefix("/talk: 00:00:00.45 to 00:00:02.4"), "\(trim.stdout)")
        let points = try #require(try Self.trimJSON(cli))
        // Speech 0.75 s (the tone less the detector's 250 ms lead-in) to ~2.15 s (plus the
        // 150 ms post-roll), then the 0.3 s margin on either side.
        let inFrame = try #require(points["inFrame"] as? Int)
        let outFrame = try #require(points["outFrame"] as? Int)
        #expect(inFrame == 21_600)
        #expect(abs(outFrame - 117_600) <= 480, "\(points)")
        // The audio file is never rewritten.
        #expect(FileManager.default.contents(atPath: cli.store + "/audio/" + audio) == fileBefore)

        let play = try cli.run("play", "talk")
        #expect(play.status == 0, "\(play.stderr)")
        #expect(Bool(cli.outputSamples() == Array(input[inFrame..<outFrame])))
        try? FileManager.default.removeItem(atPath: cli.output)
        #expect(try cli.run("play", "talk", "--untrimmed").status == 0)
        #expect(Bool(cli.outputSamples() == input))
        try? FileManager.default.removeItem(atPath: cli.output)
        // --seek and --until stay in the file's own time, inside the points.
        #expect(try cli.run("play", "talk", "--seek", "1", "--until", "2").status == 0)
        #expect(Bool(cli.outputSamples() == Array(input[48_000..<96_000])))

        for format in ["wav", "flac"] {
            let out = cli.home + "/cut.\(format)"
            let export = try cli.run("export", "talk", out, "--trimmed")
            #expect(export.status == 0, "\(export.stderr)")
            #expect(Bool(try AudioCLI.decode(out) == Array(input[inFrame..<outFrame])), "\(format)")
        }
        let whole = cli.home + "/whole.wav"
        #expect(try cli.run("export", "talk", whole).status == 0)
        #expect(Bool(try AudioCLI.decode(whole) == input))

        let info = try cli.run("info", "talk")
        #expect(info.stdout.contains("trimmed:") && info.stdout.contains("00:02 of 00:04"), "\(info.stdout)")
        let ls = try cli.run("ls", "-l")
        #expect(ls.stdout.contains("00:02✂"), "\(ls.stdout)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try cli.run("info", "talk", "--json").stdout.utf8))
                as? [String: Any])
        let kept = try #require(json["trimmedDuration"] as? Double)
        #expect(abs(kept - Double(outFrame - inFrame) / 48_000) < 0.001)
    }

    @Test("--in/--out by hand; undo, the trash and --clear; printing")
    func byHandUndoTrash() throws {
        let (cli, input) = try Self.talk()
        #expect(try cli.run("trim", "talk").stdout == "/talk: no trim points; all 00:04 play\n")
        #expect(try cli.run("trim", "talk", "--in", "0.5", "--out", "-1s").status == 0)
        #expect(try Self.trimJSON(cli)?["inFrame"] as? Int == 24_000)
        #expect(try Self.trimJSON(cli)?["outFrame"] as? Int == 144_000)
        // A point not given stays.
        #expect(try cli.run("trim", "talk", "--in", "1").status == 0)
        #expect(try cli.run("trim", "talk").stdout == "/talk: 00:00:01.00 to 00:00:03.00, 00:02 of 00:04\n")
        #expect(try cli.run("undo").status == 0)
        #expect(try Self.trimJSON(cli)?["inFrame"] as? Int == 24_000)
        #expect(try cli.run("rm", "talk").status == 0)
        #expect(try cli.run("trash", "restore", "talk").status == 0)
        #expect(try Self.trimJSON(cli)?["outFrame"] as? Int == 144_000)
        #expect(try cli.run("play", "talk").status == 0)
        #expect(Bool(cli.outputSamples() == Array(input[24_000..<144_000])))
        // A --seek outside the points starts at the in point, and says so.
        try? FileManager.default.removeItem(atPath: cli.output)
        let outside = try cli.run("play", "talk", "--seek", "0.1")
        #expect(outside.status == 0 && outside.stderr.contains("outside the trim points"), "\(outside)")
        #expect(Bool(cli.outputSamples() == Array(input[24_000..<144_000])))
        // At or past the out point (00:03) nothing is left to play: refused as past the end
        // of a file is, naming the out point, and the play position is not touched.
        for seek in ["3.5", "100%", "-0", "3"] {
            let past = try cli.run("play", "talk", "--seek", seek)
            #expect(past.status == 64, "\(seek): \(past)")
            #expect(past.stderr.contains("out point (00:00:03.00)") && past.stderr.contains("--untrimmed"), "\(past)")
        }
        #expect(try cli.run("play", "talk", "--seek", "3.5", "--untrimmed").status == 0)
        #expect(try cli.run("trim", "talk", "--clear").status == 0)
        let end = try cli.run("play", "talk", "--seek", "100%")
        #expect(end.status == 64 && end.stderr.contains("at the end of the recording (00:00:04.00)"), "\(end)")
        #expect(try Self.trimJSON(cli) == nil)
        #expect(try cli.run("undo").status == 0)
        #expect(try Self.trimJSON(cli)?["inFrame"] as? Int == 24_000)
    }

    @Test("ls --sort duration sorts by what plays: the trimmed duration")
    func sortByTrimmedDuration() throws {
        let (cli, _) = try Self.talk()
        try cli.writeInput(AudioCLI.tone(frames: 144_000))
        #expect(try cli.run("record", "three", "--format", "wav", "--duration", "3").status == 0)
        #expect(try cli.run("ls", "--sort", "duration").lines == ["three", "talk"])
        #expect(try cli.run("trim", "talk", "--in", "1", "--out", "-1s").status == 0)
        #expect(try cli.run("ls", "--sort", "duration").lines == ["talk", "three"])
    }

    @Test("bad inputs: one line, exit 64, nothing changed")
    func badInputs() throws {
        let (cli, _) = try Self.talk()
        #expect(try cli.run("mkdir", "/Folder").status == 0)
        #expect(try cli.run("trim", "talk", "--in", "1", "--out", "2").status == 0)
        let store = cli.store + "/store.json"
        let before = FileManager.default.contents(atPath: store)
        let bad: [[String]] = [
            ["talk", "--in", "3", "--out", "1"],
            ["talk", "--in", "2", "--out", "2"],
            ["talk", "--in", "3.5"],
            ["talk", "--out", "10"],
            ["talk", "--in", "5"],
            ["talk", "--in", "x"],
            ["/Folder", "--in", "1"],
            ["/Folder", "--auto"],
            ["/Folder"],
            ["talk", "--auto", "--clear"],
            ["talk", "--clear", "--in", "1"],
            ["talk", "--margin", "1"],
            ["talk", "--auto", "--margin", "-1"],
            ["talk", "--auto", "--silence-threshold", "loud"],
            ["talk", "--silence-threshold", "-45"],
        ]
        for arguments in bad {
            let run = try cli.run(["trim"] + arguments)
            #expect(run.status == 64, "\(arguments): \(run)")
            #expect(
                run.stderr.hasPrefix("recnotes: ") && run.stderr.split(separator: "\n").count == 1,
                "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(arguments)")
        }
        #expect(FileManager.default.contents(atPath: store) == before)
    }

    @Test("--auto --silence-threshold: a fixed level instead of the adaptive floor")
    func autoWithThreshold() throws {
        let (cli, _) = try Self.talk()
        // The tone is far above -45 dBFS: the same points as the adaptive floor finds.
        let run = try cli.run("trim", "talk", "--auto", "--silence-threshold", "-45")
        #expect(run.status == 0, "\(run)")
        #expect(try Self.trimJSON(cli)?["inFrame"] as? Int == 21_600)
        // Above the tone's level: no speech at all.
        let loud = try cli.run("trim", "talk", "--clear")
        #expect(loud.status == 0)
        let none = try cli.run("trim", "talk", "--auto", "--silence-threshold", "0dB")
        #expect(none.status == 1 && none.stderr.contains("no speech found"), "\(none)")
    }

    @Test("--auto on silence finds no speech and changes nothing")
    func autoOnSilence() throws {
        let cli = try AudioCLI()
        try cli.writeInput([Int16](repeating: 0, count: 96_000))
        #expect(try cli.run("record", "quiet", "--format", "wav", "--duration", "2").status == 0)
        let run = try cli.run("trim", "quiet", "--auto")
        #expect(
            run.status == 1 && run.stderr == "recnotes: quiet: no speech found; the trim points are unchanged\n",
            "\(run)")
        #expect(try Self.trimJSON(cli, "quiet") == nil)
    }
}

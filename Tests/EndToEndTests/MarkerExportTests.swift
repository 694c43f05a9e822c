import Foundation
import RecCore
import Testing

/// `export PATH --markers cue|vtt|ffmetadata|json`, each read back by a real consumer:
/// ffmpeg and ffprobe, a WebVTT parser (Debian's python3-webvtt, webvtt-py), cuetools and
/// shntool. scripts/install-deps.sh installs them all, so a missing one fails the test.
@Suite("Markers: export as chapters, read by ffmpeg, a WebVTT parser, cuetools and shntool")
struct MarkerExportTests {
    /// Fails, naming the package, when a consumer is missing.
    static func tool(_ name: String, package: String) throws -> String {
        let path = "/usr/bin/" + name
        try #require(
            FileManager.default.isExecutableFile(atPath: path),
            "\(path) is missing: scripts/install-deps.sh installs it (Debian package \(package))")
        return path
    }

    static func run(_ program: String, _ arguments: [String]) throws -> Run {
        let run = try Sandbox.execute(program, arguments, environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
        #expect(run.status == 0, "\(program) \(arguments): \(run.stderr)")
        return run
    }

    /// Labels with what each format must escape or cannot hold.
    static let labels = ["Intro; part=1 #x \\ y", "", "Q&A \"final\" --> <end>"]

    /// A 10 s WAV recording with markers at 2.5 s, 5 s (no label) and 7.25 s.
    func recorded(rate: Int = 48000, channels: Int = 1, at times: [String] = ["2.5", "5", "7.25"]) throws -> (
        AudioCLI, [Int16]
    ) {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 10 * rate, channels: channels)
        try cli.writeInput(input)
        let record = try cli.run(
            "record", "talk", "--format", "wav", "--rate", String(rate), "--channels", String(channels), "--duration",
            "10")
        #expect(record.status == 0, "\(record.stderr)")
        for (time, label) in zip(times, Self.labels) {
            let mark = try cli.run(["mark", "talk", "--at", time] + (label.isEmpty ? [] : [label]))
            #expect(mark.status == 0, "\(mark.stderr)")
        }
        return (cli, input)
    }

    @Test func ffmetadataChaptersReachAFileThroughFFmpeg() throws {
        let ffmpeg = try Self.tool("ffmpeg", package: "ffmpeg")
        let ffprobe = try Self.tool("ffprobe", package: "ffmpeg")
        let (cli, _) = try recorded()
        let chapters = cli.home + "/chapters.txt"
        let audio = cli.home + "/talk.wav"
        let out = cli.home + "/talk.mka"
        #expect(try cli.run("export", "talk", "--markers", "ffmetadata", chapters).status == 0)
        #expect(try cli.run("export", "talk", audio).status == 0)
        // Standard output gets the same text.
        #expect(
            try cli.run("export", "talk", "--markers", "ffmetadata", "-").stdout.utf8.elementsEqual(
                FileManager.default.contents(atPath: chapters) ?? Data()))
        _ = try Self.run(
            ffmpeg,
            ["-v", "error", "-nostdin", "-y", "-i", audio, "-i", chapters, "-map_metadata", "1", "-c", "copy", out])
        for file in [out, chapters] {
            let probe = try Self.run(
                ffprobe,
                ["-v", "error", "-show_chapters", "-of", "json"] + (file == chapters ? ["-f", "ffmetadata"] : []) + [
                    file
                ])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])
            let list = try #require(json["chapters"] as? [[String: Any]], "\(probe.stdout)")
            #expect(
                list.map { ($0["tags"] as? [String: String])?["title"] } == [
                    "Start", Self.labels[0], "Marker 2", Self.labels[2],
                ], "\(file)")
            #expect(
                list.map { $0["start_time"] as? String } == ["0.000000", "2.500000", "5.000000", "7.250000"], "\(file)")
            #expect(
                list.map { $0["end_time"] as? String } == ["2.500000", "5.000000", "7.250000", "10.000000"], "\(file)")
        }
    }

    @Test func webVTTChaptersParse() throws {
        let python = try Self.tool("python3", package: "python3-webvtt")
        let (cli, _) = try recorded()
        let file = cli.home + "/chapters.vtt"
        #expect(try cli.run("export", "talk", "--markers", "vtt", file).status == 0)
        // webvtt-py raises on a malformed file; its cue text is still escaped, so unescape it.
        let script = """
            import html, json, sys, webvtt
            print(json.dumps([[c.start, c.end, html.unescape(c.text)] for c in webvtt.read(sys.argv[1])]))
            """
        let parsed = try Self.run(python, ["-c", script, file])
        let cues = try #require(
            try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [[String]],
            "\(parsed.stdout) \(parsed.stderr)")
        #expect(
            cues == [
                ["00:00:00.000", "00:00:02.500", "Start"], ["00:00:02.500", "00:00:05.000", Self.labels[0]],
                ["00:00:05.000", "00:00:07.250", "Marker 2"], ["00:00:07.250", "00:00:10.000", Self.labels[2]],
            ])
    }

    /// Cue sheets count in CD frames (1/75 s), so shntool splits only CD-quality audio by
    /// them: a 44.1 kHz stereo recording, markers on CD frames (1 s, 2.2 s) and between
    /// them (4.001 s: the chapter starts at the CD frame before it).
    @Test func cueSheetsReadByCuetoolsSplitByShntool() throws {
        let cuebreakpoints = try Self.tool("cuebreakpoints", package: "cuetools")
        let cueprint = try Self.tool("cueprint", package: "cuetools")
        let shnsplit = try Self.tool("shnsplit", package: "shntool")
        let (cli, input) = try recorded(rate: 44100, channels: 2, at: ["1", "2.2", "4.001"])
        let cue = cli.home + "/talk.cue"
        let audio = cli.home + "/talk.wav"
        let pieces = cli.home + "/pieces"
        #expect(try cli.run("export", "talk", "--markers", "cue", cue).status == 0)
        #expect(try cli.run("export", "talk", audio).status == 0)
        let text = String(decoding: FileManager.default.contents(atPath: cue) ?? Data(), as: UTF8.self)
        #expect(text.hasPrefix("TITLE \"talk\"\nFILE \"talk.wav\" WAVE\n"), "\(text)")
        #expect(try Self.run(cuebreakpoints, [cue]).stdout == "0:01.00\n0:02.15\n0:04.00\n")
        #expect(
            try Self.run(cueprint, ["-d", "", "-t", "%n|%t\n", cue]).stdout
                == "1|Start\n2|Intro; part=1 #x \\ y\n3|Marker 2\n4|Q&A 'final' --> <end>\n")
        try FileManager.default.createDirectory(atPath: pieces, withIntermediateDirectories: true)
        _ = try Self.run(shnsplit, ["-q", "-f", cue, "-d", pieces, "-o", "wav", audio])
        let starts = [0, 44100, 97_020, 176_400, 441_000]
        for track in 1...4 {
            let piece = try AudioCLI.decode(pieces + "/split-track0\(track).wav")
            #expect(Bool(piece == Array(input[(starts[track - 1] * 2)..<(starts[track] * 2)])), "track \(track)")
        }
    }

    @Test func jsonAndBadRequests() throws {
        let (cli, _) = try recorded()
        let run = try cli.run("export", "talk", "--markers", "json")
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(
            json["name"] as? String == "talk" && json["sampleRate"] as? Int == 48000
                && json["duration"] as? Double == 10)
        let markers = try #require(json["markers"] as? [[String: Any]])
        #expect(markers.map { $0["frame"] as? Int } == [120_000, 240_000, 348_000])
        #expect(markers.map { $0["label"] as? String } == Self.labels)

        #expect(try cli.run("mkdir", "Folder").status == 0)
        let store = FileManager.default.contents(atPath: cli.store + "/store.json")
        let target = cli.home + "/out.txt"
        for (arguments, status, message) in [
            (["talk", "--markers", "srt"], 64, "recnotes: --markers srt: must be cue, vtt, ffmetadata or json"),
            (
                ["talk", "--markers", "cue", "--format", "wav", target], 64,
                "recnotes: --markers: writes text; --format is for audio"
            ),
            (
                ["talk", "--markers", "cue", "--progress", "json", target], 64,
                "recnotes: --markers: writes text at once; --progress is for audio"
            ),
            (["Folder", "--markers", "cue", target], 1, "recnotes: Folder: is a folder; only recordings have markers"),
            (["nope", "--markers", "cue", target], 1, "recnotes: nope: no such folder or recording"),
            (["talk", "--markers", "cue", cli.home], 1, "recnotes: \(cli.home): is a directory"),
        ] as [([String], Int32, String)] {
            let bad = try cli.run(["export"] + arguments)
            #expect(bad.status == status, "\(arguments): \(bad.stderr)")
            #expect(bad.stderr == message + "\n", "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: target))
        }
        #expect(FileManager.default.contents(atPath: cli.store + "/store.json") == store)
    }
}

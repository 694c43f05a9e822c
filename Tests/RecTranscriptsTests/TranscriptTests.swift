import Foundation
import RecSystem
import RecTestSupport
import RecValues
import Testing

@testable import RecTranscripts

@Suite("Transcripts: command words, engine output formats, renderings")
struct TranscriptFormatTests {
    // MARK: Word splitter

    @Test(arguments: [
        ("whisper-cli -m MODEL -oj -f {wav}", ["whisper-cli", "-m", "MODEL", "-oj", "-f", "{wav}"]),
        ("  a \t b\n c  ", ["a", "b", "c"]),
        ("'a b' \"c d\" e\\ f", ["a b", "c d", "e f"]),
        ("'it''s' \"x\"'y'z", ["its", "xyz"]),
        ("'' \"\" x", ["", "", "x"]),
        ("'$HOME \\n' \"\\$HOME \\\" \\\\ \\n\"", ["$HOME \\n", "$HOME \" \\ \\n"]),
        ("a\\\nb", ["ab"]),
        (
            "cmd --model=/m/ggml.bin;rm -rf / `x` $(y) | z",
            ["cmd", "--model=/m/ggml.bin;rm", "-rf", "/", "`x`", "$(y)", "|", "z"]
        ),
        ("", []),
    ])
    func splitsLikeAShellWithoutOne(command: String, words: [String]) throws {
        #expect(try CommandWords.split(command) == words)
    }

    @Test(arguments: ["'open", "\"open", "trailing\\", "a \"b\\\""])
    func refusesUnterminatedQuotes(command: String) {
        #expect(throws: RecError.self) { try CommandWords.split(command) }
        do { _ = try CommandWords.split(command) } catch { #expect(error.kind == .usage) }
    }

    @Test func substitutesTheWAVPathInsideWords() {
        #expect(
            CommandWords.substitute(["x", "-f", "{wav}", "in={wav}.json", "{wa}"], wav: "/t/a b.wav")
                == ["x", "-f", "/t/a b.wav", "in=/t/a b.wav.json", "{wa}"])
    }

    // MARK: Parsers

    static let whisperJSON = """
        {
          "systeminfo": "AVX = 1",
          "model": {"type": "base"},
          "result": {"language": "en"},
          "transcription": [
            {"timestamps": {"from": "00:00:00,000", "to": "00:00:02,500"}, "offsets": {"from": 0, "to": 2500}, "text": " Go forward"},
            {"timestamps": {"from": "00:00:02,500", "to": "00:01:03,120"}, "offsets": {"from": 2500, "to": 63120}, "text": " ten \\"meters\\"."}
          ]
        }
        """

    @Test func readsWhisperJSON() throws {
        let (format, segments) = try TranscriptOutput.parse(Array(Self.whisperJSON.utf8))
        #expect(format == .whisperJSON)
        #expect(
            segments == [
                Transcript.Segment(start: 0, end: 2.5, text: "Go forward"),
                Transcript.Segment(start: 2.5, end: 63.12, text: "ten \"meters\"."),
            ])
    }

    @Test(arguments: [
        "{\"result\": {}}",
        "{\"transcription\": [{\"text\": \"no times\"}]}",
        "{\"transcription\": [{\"offsets\": {\"from\": 5, \"to\": 1}, \"text\": \"backwards\"}]}",
        "{\"transcription\": [",
    ])
    func refusesJSONThatIsNotWhispers(text: String) {
        #expect(throws: TranscriptOutput.Unreadable.self) { try TranscriptOutput.parse(Array(text.utf8)) }
    }

    @Test func readsWebVTT() throws {
        let vtt = """
            WEBVTT - made by an engine
            Kind: captions

            NOTE a comment
            that runs on

            intro
            00:00.500 --> 00:02.000 align:start
            <v Ann>Go <i>forward</i></v>
            ten meters

            01:00:01.250 --> 01:00:03.000
            done &amp; dusted
            """
        let (format, segments) = try TranscriptOutput.parse(Array(vtt.utf8))
        #expect(format == .vtt)
        #expect(
            segments == [
                Transcript.Segment(start: 0.5, end: 2, text: "Go forward ten meters"),
                Transcript.Segment(start: 3601.25, end: 3603, text: "done & dusted"),
            ])
    }

    @Test func readsSRT() throws {
        let srt =
            "1\r\n00:00:00,460 --> 00:00:02,110\r\nGo forward\r\nten meters\r\n\r\n2\r\n00:01:02,000 --> 00:01:04,5\r\nagain\r\n"
        let (format, segments) = try TranscriptOutput.parse(Array(srt.utf8))
        #expect(format == .srt)
        #expect(
            segments == [
                Transcript.Segment(start: 0.46, end: 2.11, text: "Go forward ten meters"),
                Transcript.Segment(start: 62, end: 64.5, text: "again"),
            ])
    }

    @Test func readsWhisperConsoleLines() throws {
        let text =
            "\n[00:00:00.000 --> 00:00:02.340]   Go forward ten meters.\n[00:00:02.340 --> 00:00:04.000]  Stop.\n"
        let (format, segments) = try TranscriptOutput.parse(Array(text.utf8))
        #expect(format == .whisperConsole)
        #expect(
            segments == [
                Transcript.Segment(start: 0, end: 2.34, text: "Go forward ten meters."),
                Transcript.Segment(start: 2.34, end: 4, text: "Stop."),
            ])
    }

    @Test func readsPlainTextAsOneSegmentWithoutTimes() throws {
        let (format, segments) = try TranscriptOutput.parse(Array("\u{FEFF}go forward\n  ten meters \n".utf8))
        #expect(format == .plain)
        #expect(segments == [Transcript.Segment(start: nil, end: nil, text: "go forward ten meters")])
    }

    @Test(arguments: [
        [UInt8](),
        Array(" \n\t\n".utf8),
        [0xFF, 0xFE, 0x00, 0x41],
        Array("text\u{0}with a NUL".utf8),
        Array("\u{1B}[31mred\u{1B}[0m".utf8),
        Array("WEBVTT\n\n00:00.000 --> soon\nhi\n".utf8),
        Array("1\n00:00:01,000 --> 00:00:00,500\nbackwards\n".utf8),
        Array("[00:00:00.000 --> 00:00:01.000] ok\nnot a timed line\n".utf8),
    ])
    func refusesGarbage(bytes: [UInt8]) {
        #expect(throws: TranscriptOutput.Unreadable.self) { try TranscriptOutput.parse(bytes) }
    }

    @Test(arguments: [("00:01.5", 1.5), ("01:02:03,004", 3723.004), ("00:00:59.999", 59.999), ("12:34", 754.0)])
    func readsClockTimes(text: String, seconds: Double) {
        #expect(abs(TranscriptOutput.clockTime(text)! - seconds) < 1e-9)
    }

    @Test(arguments: ["1:2", "00:60.000", "aa:00.000", "00:00.", "00:00:00:00.000", "-1:00.000"])
    func refusesBadClockTimes(text: String) {
        #expect(TranscriptOutput.clockTime(text) == nil)
    }

    // MARK: Renderings

    static let sample = Transcript(
        engine: "pocketsphinx", model: "/m/en-us", created: Timestamp(millisecondsSinceEpoch: 1_700_000_000_000),
        quality: .draft,
        segments: [
            Transcript.Segment(
                start: 0.46, end: 2.12, text: "go forward",
                words: [
                    Transcript.Word(start: 0.46, end: 0.64, text: "go"),
                    Transcript.Word(start: 0.64, end: 2.12, text: "forward"),
                ]),
            Transcript.Segment(start: 3661.5, end: 3662, text: "a --> b \"q\""),
        ])

    @Test func rendersText() {
        #expect(TranscriptFormat.txt.render(Self.sample) == "go forward\na --> b \"q\"\n")
    }

    @Test func rendersSRTAndVTTThatReadBack() throws {
        let srt = TranscriptFormat.srt.render(Self.sample)
        #expect(
            srt == "1\n00:00:00,460 --> 00:00:02,120\ngo forward\n\n2\n01:01:01,500 --> 01:01:02,000\na -> b \"q\"\n\n")
        let vtt = TranscriptFormat.vtt.render(Self.sample)
        #expect(
            vtt
                == "WEBVTT\n\n1\n00:00:00.460 --> 00:00:02.120\ngo forward\n\n2\n01:01:01.500 --> 01:01:02.000\na -> b \"q\"\n"
        )
        for (text, format) in [(srt, TranscriptOutput.srt), (vtt, .vtt)] {
            let parsed = try TranscriptOutput.parse(Array(text.utf8))
            #expect(parsed.format == format)
            #expect(parsed.segments.map(\.start) == [0.46, 3661.5])
            #expect(parsed.segments.map(\.text) == ["go forward", "a -> b \"q\""])
        }
    }

    @Test func untimedSegmentsSpanTheRecordingInSubtitles() {
        let plain = Transcript(
            engine: "x", model: "", quality: .good, segments: [Transcript.Segment(start: nil, end: nil, text: "hello")])
        #expect(TranscriptFormat.srt.render(plain, duration: 4.25) == "1\n00:00:00,000 --> 00:00:04,250\nhello\n\n")
        #expect(TranscriptFormat.json.render(plain).contains("{\"start\": null, \"end\": null, \"text\": \"hello\"}"))
    }

    @Test func rendersJSON() throws {
        let json = TranscriptFormat.json.render(Self.sample)
        // The layout transcript files have always had: a segment a line.
        let created = Timestamp(millisecondsSinceEpoch: 1_700_000_000_000).iso8601
        #expect(
            json == """
                {"engine": "pocketsphinx", "model": "/m/en-us", "created": "\(created)", "quality": "draft", \
                "segments": [
                  {"start": 0.46, "end": 2.12, "text": "go forward", "words": [{"start": 0.46, "end": 0.64, \
                "text": "go"}, {"start": 0.64, "end": 2.12, "text": "forward"}]},
                  {"start": 3661.5, "end": 3662, "text": "a --> b \\"q\\""}
                ]}

                """)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["engine"] as? String == "pocketsphinx")
        #expect(object["model"] as? String == "/m/en-us")
        #expect(object["quality"] as? String == "draft")
        #expect(object["created"] as? String == Timestamp(millisecondsSinceEpoch: 1_700_000_000_000).iso8601)
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(segments.count == 2)
        #expect(segments[0]["start"] as? Double == 0.46)
        #expect(segments[1]["text"] as? String == "a --> b \"q\"")
        let words = try #require(segments[0]["words"] as? [[String: Any]])
        #expect(words.map { $0["text"] as? String } == ["go", "forward"])
        #expect(segments[1]["words"] == nil)
    }
}

@Suite("Transcripts: external engines run as fake scripts", .serialized)
struct ExternalEngineTests {
    let directory: TemporaryDirectory
    let scratch: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
        scratch = try TemporaryDirectory()
    }

    /// A script in the test's directory that the engine runs.
    func script(_ name: String, _ body: String) throws -> String {
        let path = directory.path + "/" + name
        try Data(("#!/bin/sh\n" + body + "\n").utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    /// One second of a quiet tone.
    let audio = SpeechAudio(samples: (0..<16_000).map { Int16(1000 * sin(Double($0) * 0.1)) })

    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path)
    }

    func engine(_ command: String, timeout: Double? = nil) throws -> ExternalEngine {
        try ExternalEngine(command: command, timeout: timeout, temporaryDirectory: scratch.path)
    }

    @Test func readsEachFormatAndGetsTheWAV() throws {
        // Each script checks that it got a 16 kHz mono WAV (its header) before printing.
        let check =
            "head -c 44 \"$1\" | od -An -tx1 | tr -d ' \\n' | grep -q '^52494646.*57415645666d7420100000000100010080' || { echo bad wav >&2; exit 3; }"
        let outputs: [(String, TranscriptOutput)] = [
            (
                "printf '%s' '{\"transcription\": [{\"offsets\": {\"from\": 100, \"to\": 900}, \"text\": \" hello there\"}]}'",
                .whisperJSON
            ),
            ("printf 'WEBVTT\\n\\n00:00.100 --> 00:00.900\\nhello there\\n'", .vtt),
            ("printf '1\\n00:00:00,100 --> 00:00:00,900\\nhello there\\n'", .srt),
            ("printf '[00:00:00.100 --> 00:00:00.900]  hello there\\n'", .whisperConsole),
            ("echo hello there", .plain),
        ]
        for (i, (printer, format)) in outputs.enumerated() {
            let path = try script("engine\(i)", check + "\n" + printer)
            let transcript = try engine("\(path) '{wav}'").transcribe(audio)
            #expect(transcript.engine == "engine\(i)")
            #expect(transcript.text == "hello there", "\(format)")
            #expect(transcript.segments.first?.start == (format == .plain ? nil : 0.1), "\(format)")
            #expect(try leftovers() == [])
        }
    }

    @Test func appendsTheWAVWhenTheCommandDoesNotPlaceItAndNamesTheModel() throws {
        let path = try script("whisper-cli", "for a; do last=$a; done; test -s \"$last\" && echo \"model $2\"")
        let transcript = try engine("\(path) -m 'my model.bin'").transcribe(audio)
        #expect(transcript.text == "model my model.bin")
        #expect(transcript.model == "my model.bin")
        #expect(transcript.engine == "whisper-cli")
    }

    @Test func readsAFileWrittenBesideTheWAV() throws {
        // whisper-cli -oj writes <input>.json and prints nothing we need on stdout.
        let path = try script(
            "writer",
            "printf '%s' '{\"transcription\": [{\"offsets\": {\"from\": 0, \"to\": 500}, \"text\": \"from a file\"}]}' > \"$1.json\""
        )
        let transcript = try engine("\(path) {wav}").transcribe(audio)
        #expect(transcript.text == "from a file")
        #expect(try leftovers() == [])
    }

    func failure(_ command: String, timeout: Double? = nil) throws -> RecError {
        let engine = try engine(command, timeout: timeout)
        do {
            _ = try engine.transcribe(audio)
        } catch {
            return error
        }
        Issue.record("\(command) did not fail")
        return RecError.failure("", "")
    }

    @Test func reportsANonZeroExitWithItsLastErrorLine() throws {
        let path = try script("failing", "echo 'loading model' >&2; echo 'error: no such model' >&2; exit 2")
        let error = try failure("\(path) {wav}")
        #expect(error.description == "transcribe: failing: exited with status 2: error: no such model")
        #expect(error.kind == .failure)
        #expect(try leftovers() == [])
    }

    @Test func reportsGarbage() throws {
        let path = try script("garbage", "head -c 2000 \"$1\"")
        let error = try failure("\(path) {wav}")
        #expect(error.subject == "transcribe: garbage")
        #expect(error.reason.contains("not UTF-8") || error.reason.contains("control characters"))
        #expect(try leftovers() == [])
    }

    @Test func reportsAProgramThatIsNotThere() throws {
        let error = try failure("recnotes-no-such-engine-\(UUID().uuidString) {wav}")
        #expect(error.reason.hasPrefix("cannot run recnotes-no-such-engine-"))
        #expect(error.reason.hasSuffix("No such file or directory"))
        #expect(try leftovers() == [])
    }

    @Test func killsAHangingEngineAndWhatItStarted() throws {
        let pids = directory.path + "/pids"
        let path = try script("hanging", "sleep 300 & echo \"$$ $!\" > '\(pids)'; wait")
        // 3 s: time enough for bash to start and write its pids on a loaded machine.
        let error = try failure("\(path) {wav}", timeout: 3)
        #expect(error.description == "transcribe: hanging: timed out after 3 s (killed)")
        let written = try String(contentsOfFile: pids, encoding: .utf8)
        let both = written.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        #expect(both.count == 2)
        // The script was reaped; its `sleep`, in the same process group, was killed
        // (it may linger as a zombie until init reaps it, which processIsAlive counts as dead).
        for pid in both {
            // A killed process is gone once the kernel has delivered the signal: allow it a moment.
            var alive = processIsAlive(pid)
            for _ in 0..<100 where alive {
                usleep(20_000)
                alive = processIsAlive(pid)
            }
            #expect(!alive, "pid \(pid)")
        }
        #expect(try leftovers() == [])
    }

    @Test func timeoutDefaultsToFiveTimesTheLengthPlusThirtySeconds() throws {
        #expect(try engine("x").deadline(for: 10) == 80)
        #expect(try engine("x", timeout: 2).deadline(for: 10) == 2)
    }

    @Test func theEnvironmentChoosesTheEngine() throws {
        setenv(ExternalEngine.environmentVariable, "my-asr --fast {wav}", 1)
        defer { unsetenv(ExternalEngine.environmentVariable) }
        let chosen = try Transcription.engine()
        #expect(chosen.name == "my-asr")
        #expect((chosen as? ExternalEngine)?.arguments == ["my-asr", "--fast", "{wav}"])
        #expect(try Transcription.engine(command: "other {wav}").name == "other")
        setenv(ExternalEngine.environmentVariable, "  ", 1)
        #expect(try Transcription.engine() is PocketSphinxEngine)
    }
}

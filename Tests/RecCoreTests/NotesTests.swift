import RecStore
import RecSystem
import RecTestSupport
import RecValues
import Testing

@testable import RecCore

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Notes: folding, search, dates, marker export")
struct NotesTests {
    @Test("folding ignores case and diacritics, precomposed or combining")
    func folding() {
        #expect(TextFolding.fold("Café") == "cafe")
        #expect(TextFolding.fold("Cafe\u{301}") == "cafe")
        #expect(TextFolding.fold("STRAßE Ærø") == "strasse aero")
        #expect(TextFolding.fold("Łódź Œuvre") == "lodz oeuvre")
        #expect(TextFolding.fold("ПРИВЕТ") == "привет")
        #expect(TextFolding.fold("plain ASCII 42") == "plain ascii 42")
    }

    @Test("audio sizes: a file there has its size, one missing none, before and after many missing list the folder")
    func audioSizes() throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        #expect(mkdir(location.audioDirectory, 0o755) == 0)
        // Two of three missing: the folder is listed after the 96th lookup (64 misses).
        for k in stride(from: 0, to: 300, by: 3) {
            try FileSystem.writeAtomically([UInt8](repeating: 7, count: k), to: location.audioPath("f\(k).opus"))
        }
        let audio = ItemJSON.AudioFiles(location)
        for k in 0..<300 {
            #expect(audio.size(of: "f\(k).opus") == (k % 3 == 0 ? Int64(k) : nil), "f\(k)")
            #expect((audio.present != nil) == (k >= 95), "listed after \(k + 1) lookups")
        }
        // Files there: never listed.
        let found = ItemJSON.AudioFiles(location)
        for _ in 0..<3 {
            for k in stride(from: 0, to: 300, by: 3) { #expect(found.size(of: "f\(k).opus") == Int64(k)) }
        }
        #expect(found.present == nil)
    }

    static func document() throws -> Document {
        var tx = DocumentStore.Transaction(document: try Fixture.document())
        var talk = Item.recording(
            name: "Budget talk", parent: Fixture.home, created: Timestamp(millisecondsSinceEpoch: 2_000_000_000_000),
            info: Fixture.info(.random(), duration: 120))
        talk.annotations = Annotations(
            note: "Discussed the Q3 bùdget with Zoë.\nNext: hiring.", tags: ["work", "q3"],
            markers: [Marker(frame: 48000 * 5, label: "intro"), Marker(frame: 48000 * 61, label: "Budget numbers")])
        try tx.add(talk)
        var memo = Item.recording(
            name: "memo", parent: Fixture.home, created: Timestamp(millisecondsSinceEpoch: 1_000_000_000_000),
            info: Fixture.info(.random(), duration: 5))
        memo.annotations = Annotations(tags: ["draft"])
        try tx.add(memo)
        return tx.document
    }

    @Test("text: every word must match somewhere; hits say where, and markers carry their time")
    func text() throws {
        let document = try Self.document()
        var query = SearchQuery()
        query.setText("BUDGET zoe")
        let hits = document.search(query, under: .root)
        #expect(hits.map(\.item.name) == ["Budget talk"])
        let fields = try #require(hits.first?.fields)
        #expect(fields.contains(.name))
        #expect(
            fields.contains {
                if case .note(let snippet) = $0 {
                    return snippet.contains("bùdget") && !snippet.contains("\n")
                } else {
                    return false
                }
            })
        #expect(
            fields.contains {
                guard case .marker(let marker, let index, let seconds) = $0 else { return false }
                return marker.frame == 48000 * 61 && marker.label == "Budget numbers" && index == 2 && seconds == 61
            })
        #expect(hits.first?.time == 61)
        query.setText("budget nowhere")
        #expect(document.search(query, under: .root).isEmpty)
    }

    @Test("tags, dates and durations combine with AND")
    func filters() throws {
        let document = try Self.document()
        var query = SearchQuery()
        query.tags = ["work"]
        #expect(document.search(query, under: .root).map(\.item.name) == ["Budget talk"])
        query.tags = ["work", "draft"]
        #expect(document.search(query, under: .root).isEmpty)
        query = SearchQuery()
        query.longer = 60
        #expect(document.search(query, under: .root).map(\.item.name) == ["Budget talk"])
        query = SearchQuery()
        query.shorter = 10
        #expect(document.search(query, under: .root).map(\.item.name) == ["memo"])
        query = SearchQuery()
        query.kind = .recording
        query.before = Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
        #expect(document.search(query, under: .root).map(\.item.name) == ["memo", "standup"])
        query.after = Timestamp(millisecondsSinceEpoch: 1_600_000_000_000)
        #expect(document.search(query, under: .root).map(\.item.name) == ["standup"])
        query.after = Timestamp(millisecondsSinceEpoch: 1_750_000_000_000)
        #expect(document.search(query, under: .root).isEmpty)
    }

    @Test("dates: ISO dates and times, today, yesterday and ages")
    func dates() throws {
        let now = Timestamp(iso8601: "2026-11-23T12:00:00.000Z")!
        #expect(try DateSpec.parse("7d", now: now) == Timestamp(iso8601: "2026-11-16T12:00:00.000Z"))
        #expect(try DateSpec.parse("12h", now: now) == Timestamp(iso8601: "2026-11-23T00:00:00.000Z"))
        #expect(try DateSpec.parse("2026-11-20T14:30:00Z", now: now) == Timestamp(iso8601: "2026-11-20T14:30:00.000Z"))
        let yesterday = try DateSpec.parse("yesterday", now: now)
        let today = try DateSpec.parse("today", now: now)
        #expect(today.millisecondsSinceEpoch - yesterday.millisecondsSinceEpoch == 86_400_000)
        #expect(today <= now && now.millisecondsSinceEpoch - today.millisecondsSinceEpoch < 86_400_000)
        #expect(try DateSpec.parse("2026-11-23", now: now) == today)
        for bad in ["", "soon", "2026-02-31", "7x", "-3d", "2026-13-01"] {
            #expect(throws: RecError.self, "\(bad)") { try DateSpec.parse(bad, now: now) }
        }
    }

    @Test(
        "dates: ISO 8601 times of minutes, seconds or a fraction, with Z or an offset",
        arguments: [
            ("2026-11-20T14:30Z", "2026-11-20T14:30:00.000Z"), ("2026-11-20T14:30:15Z", "2026-11-20T14:30:15.000Z"),
            ("2026-11-20T14:30:15.25Z", "2026-11-20T14:30:15.250Z"), ("2026-11-20 14:30Z", "2026-11-20T14:30:00.000Z"),
            ("2026-11-20t14:30z", "2026-11-20T14:30:00.000Z"), ("2026-11-20T14:30+01:00", "2026-11-20T13:30:00.000Z"),
            ("2026-11-20T14:30+0100", "2026-11-20T13:30:00.000Z"), ("2026-11-20T14:30+01", "2026-11-20T13:30:00.000Z"),
            ("2026-11-20T14:30:00-05:30", "2026-11-20T20:00:00.000Z"),
            (" 2026-11-20T14:30Z ", "2026-11-20T14:30:00.000Z"),
        ])
    func isoTimes(text: String, expected: String) throws {
        #expect(try DateSpec.parse(text) == Timestamp(iso8601: expected)!)
    }

    @Test("dates: an ISO time without Z or an offset is local time, as the date alone is")
    func localTimes() throws {
        let time = try DateSpec.parse("2026-11-24T23:00")
        let c = time.localComponents
        #expect([c.year, c.month, c.day, c.hour, c.minute, c.second] == [2026, 11, 24, 23, 0, 0])
        let precise = try DateSpec.parse("2026-11-24 23:00:30.5")
        #expect(precise.millisecondsSinceEpoch - time.millisecondsSinceEpoch == 30_500)
        #expect(try DateSpec.parse("2026-11-24T00:00") == DateSpec.parse("2026-11-24"))
    }

    @Test(
        "dates: malformed times are refused, and the message says which forms are taken",
        arguments: [
            "2026-11-20T25:00", "2026-11-20T14", "2026-11-20T14:3", "2026-11-20T14:30:", "2026-11-20T14:30Zjunk",
            "2026-11-20T14:30+1", "2026-11-20T14:60", "2026-11-20T14:30:15.", "2026-11-20T", "2026-11-20T14:30+25:00",
        ])
    func badTimes(text: String) {
        do {
            _ = try DateSpec.parse(text, option: "--after")
            Issue.record("\(text) was accepted")
        } catch {
            #expect(
                "\(error)"
                    == "--after \(text): not a date: use 2026-11-20, 2026-11-20T14:30 (seconds, a fraction, and Z or an offset such as +01:00 may follow; without them it is local time), today, yesterday, or an age such as 7d, 12h, 2w"
            )
        }
    }

    @Test("chapters cover the whole recording; every format escapes what it must")
    func markerExport() throws {
        let info = RecordingInfo(
            duration: 10, frames: 480_000, sampleRate: 48000, channels: 1, format: .flac, file: "x.flac")
        let markers = [Marker(frame: 48000 * 2, label: "a = b; #c \"q\""), Marker(frame: 48000 * 7)]
        #expect(MarkerExport.chapters(markers, frames: info.frames).map(\.start) == [0, 96000, 336000])
        #expect(MarkerExport.chapters([Marker(frame: 0, label: "x")], frames: 10).map(\.title) == ["x"])
        let cue = MarkerExport.cue.render(name: "talk", info: info, markers: markers, audioFile: "talk.flac")
        #expect(cue.contains("FILE \"talk.flac\" WAVE"))
        #expect(cue.contains("  TRACK 02 AUDIO\n    TITLE \"a = b; #c 'q'\"\n    INDEX 01 00:02:00"))
        #expect(cue.contains("  TRACK 03 AUDIO\n    TITLE \"Marker 2\"\n    INDEX 01 00:07:00"))
        let vtt = MarkerExport.vtt.render(name: "talk", info: info, markers: markers, audioFile: "")
        #expect(vtt.hasPrefix("WEBVTT\n\n1\n00:00:00.000 --> 00:00:02.000\nStart\n"))
        #expect(vtt.contains("3\n00:00:07.000 --> 00:00:10.000\nMarker 2\n"))
        let escaped = MarkerExport.vtt.render(
            name: "talk", info: info, markers: [Marker(frame: 0, label: "Q&A <b> --> x")], audioFile: "")
        #expect(escaped.contains("\nQ&amp;A &lt;b&gt; --&gt; x\n"), "\(escaped)")
        let ff = MarkerExport.ffmetadata.render(name: "t=1", info: info, markers: markers, audioFile: "")
        #expect(ff.hasPrefix(";FFMETADATA1\ntitle=t\\=1\n"))
        #expect(ff.contains("[CHAPTER]\nTIMEBASE=1/48000\nSTART=96000\nEND=336000\ntitle=a \\= b\\; \\#c \"q\"\n"))
        let json = MarkerExport.json.render(name: "talk", info: info, markers: markers, audioFile: "")
        #expect(json.contains(#"{"index": 2, "frame": 336000, "seconds": 7, "label": ""}"#), "\(json)")
    }
}

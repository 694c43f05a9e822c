import Foundation
import Testing

/// Times and dates as people type them, through the binary: `find --after` with an ISO time
/// of minutes (local, or with a zone), `50 %` with a space, and errors that name the option
/// and the value as typed; and short times as they are shown.
@Suite("Times and dates as typed and shown")
struct TimeInputTests {
    @Test func findAfterAnISOTimeOfMinutes() throws {
        let sandbox = try Sandbox()
        try sandbox.addRecording("evening", in: "/", duration: 5, created: "2026-11-24T21:30:00.000Z")
        try sandbox.addRecording("late", in: "/", duration: 5, created: "2026-11-24T22:30:00.000Z")
        func found(_ after: String, tz: String) throws -> [String] {
            let run = try sandbox.run(["find", "--after", after], environment: ["TZ": tz])
            #expect(run.status == 0, "\(run)")
            return run.lines
        }
        // Local time: 23:00 an hour east of UTC is 22:00 UTC.
        #expect(try found("2026-11-24T23:00", tz: "EAST-1") == ["/late"])
        #expect(try found("2026-11-24 23:00", tz: "EAST-1") == ["/late"])
        #expect(try found("2026-11-24T23:00", tz: "UTC") == [])
        #expect(try found("2026-11-24T22:00Z", tz: "EAST-1") == ["/late"])
        #expect(try found("2026-11-24T21:00:00.5+00:00", tz: "UTC") == ["/evening", "/late"])
        #expect(try found("2026-11-24T23:00+01", tz: "UTC") == ["/late"])
        let bad = try sandbox.run("find", "--before", "2026-11-24T23")
        expectFailure(
            bad, status: 64,
            message:
                "recnotes: --before 2026-11-24T23: not a date: use 2026-11-20, 2026-11-20T14:30 (seconds, a fraction, and Z or an offset such as +01:00 may follow; without them it is local time), today, yesterday, or an age such as 7d, 12h, 2w"
        )
    }

    @Test func aPercentageWithASpaceAndErrorsThatNameTheOption() throws {
        let sandbox = try Sandbox()
        try sandbox.addWAVRecording("r", in: "/", frames: 48_000)
        try sandbox.succeed("mark", "r", "--at", "50 %", "half")
        let marks = try sandbox.run("marks", "r", "--json")
        let first = try #require((try marks.json() as? [[String: Any]])?.first, "\(marks)")
        #expect(first["seconds"] as? Double == 0.5)
        let expected = "expected a time such as 90, 90s, 1:30, 2m30s, 1h2m3s, 1:02:03.5, 50% or -10s"
        expectFailure(
            try sandbox.run("play", "r", "--seek", "50 x"), status: 64, message: "recnotes: --seek '50 x': \(expected)")
        expectFailure(
            try sandbox.run("play", "r", "--until", "101 %"), status: 64,
            message: "recnotes: --until '101 %': a percentage must be between 0% and 100%")
        expectFailure(
            try sandbox.run("mark", "r", "--at", "2:00"), status: 64,
            message: "recnotes: --at 2:00: 00:02:00.00 is outside the recording (00:00:00.00 to 00:00:01.00)")
        expectFailure(
            try sandbox.run("trim", "r", "--out", "soon"), status: 64, message: "recnotes: --out soon: \(expected)")
        expectFailure(
            try sandbox.run("record", "--duration", "5 m"), status: 64,
            message: "recnotes: --duration '5 m': must be a length of time greater than zero, such as 90, 90s or 1:30")
    }

    @Test func shortRecordingsAndCloseMarkersReadApart() throws {
        let sandbox = try Sandbox()
        try sandbox.addWAVRecording("clip", in: "/", frames: 19_200)
        try sandbox.succeed("mark", "clip", "--at", "0", "a")
        try sandbox.succeed("mark", "clip", "--at", "0.3", "b")
        #expect(try sandbox.run("marks", "clip").lines == ["#1  00:00:00.00  a", "#2  00:00:00.30  b"])
        let info = try sandbox.run("info", "clip")
        #expect(
            info.lines.contains { $0.hasPrefix("duration:") && $0.hasSuffix("00:00.40 (0.4 s, 19200 frames)") },
            "\(info)")
        #expect(info.lines.contains { $0.hasSuffix("#2  00:00:00.30  b") }, "\(info)")
        let ls = try sandbox.run("ls", "-l")
        #expect(ls.lines.count == 1 && ls.lines[0].hasPrefix("recording  00:00.40  wav"), "\(ls)")
        #expect(try sandbox.run("tree").lines == ["Recordings/", "└── clip  00:00.40"])
        #expect(try sandbox.run("find", "--text", "b").stdout.isEmpty == false)
    }
}

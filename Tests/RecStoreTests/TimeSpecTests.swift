import RecSystem
import Testing

@testable import RecStore

@Suite("Time specs")
struct TimeSpecTests {
    @Test(
        "accepted forms",
        arguments: [
            ("90", 90.0), ("90s", 90), ("90.5s", 90.5), ("1:30", 90), ("0:05", 5), ("1:02:03.5", 3723.5),
            ("50%", 3600), ("0%", 0), ("100%", 7200), ("-10s", 7190), ("-1:00", 7140), ("-2:00:00", 0), ("0", 0),
            (" 12 ", 12),
        ])
    func accepted(text: String, seconds: Double) throws {
        let spec = try TimeSpec.parse(text)
        #expect(try spec.resolve(duration: 7200) == seconds)
    }

    @Test(
        "garbage is a usage error naming the input",
        arguments: [
            "", "abc", "1:", ":30", "1:60", "1:2:3:4", "1e3", "nan", "inf", "--5", "5ss", "1:30s", "+5s", "101%",
            "-5%", "1..5", ".5", "5.", "1:-30", "1 30", "%", "0x10", "١٢",
        ])
    func garbage(text: String) {
        #expect(throws: RecError.self) { _ = try TimeSpec.parse(text) }
        do {
            _ = try TimeSpec.parse(text)
        } catch let error as RecError {
            #expect(error.kind == .usage)
            #expect(error.exitCode == 64)
            #expect(!error.description.contains("\n"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(
        "hours, minutes and seconds with units",
        arguments: [
            ("5m", 300.0), ("1h", 3600), ("2m30s", 150), ("1h2m3s", 3723), ("1h30s", 3630), ("90m", 5400),
            ("1m0.5s", 60.5), ("1.5h", 5400), ("2.5m", 150), ("-1m", 7140), ("-1h2m3s", 3477),
        ])
    func units(text: String, seconds: Double) throws {
        #expect(try TimeSpec.parse(text).resolve(duration: 7200) == seconds)
        #expect(
            try TimeSpec.parse("+" + text.drop { $0 == "-" }, allowRelative: true)
                == .relative(abs(seconds - (text.hasPrefix("-") ? 7200 : 0))))
    }

    @Test(
        "units out of order, repeated, or with a fraction before the last are refused",
        arguments: [
            "1m1h", "1s2m", "1m1m", "1h60m", "1m60s", "1.5h2m", "h", "m5", "1hm", "5 m", "1h:30", "1d", "5M", "1:30m",
        ])
    func badUnits(text: String) {
        #expect(throws: RecError.self) { _ = try TimeSpec.parse(text) }
    }

    @Test("a percentage may have a space before its sign, as people write it", arguments: ["50 %", " 50 % ", "50\t%"])
    func spacedPercent(text: String) throws {
        #expect(try TimeSpec.parse(text) == .percent(50))
    }

    @Test("every error names what was typed: the option, and the value as it was written")
    func errorsNameTheInput() {
        func message(_ body: () throws -> Void) -> String {
            do {
                try body()
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        let expected = "expected a time such as 90, 90s, 1:30, 2m30s, 1h2m3s, 1:02:03.5, 50% or -10s"
        #expect(message { _ = try TimeSpec.parse("abc", option: "--seek") } == "--seek abc: \(expected)")
        #expect(message { _ = try TimeSpec.parse("50 x", option: "--until") } == "--until '50 x': \(expected)")
        #expect(
            message { _ = try TimeSpec.parse("101 %", option: "--at") }
                == "--at '101 %': a percentage must be between 0% and 100%")
        #expect(message { _ = try TimeSpec.parse("", option: "--in") } == "--in '': empty time; \(expected)")
        #expect(message { _ = try TimeSpec.parse("abc") } == "abc: \(expected)")
        #expect(
            message { _ = try TimeSpec.length("5 m", option: "--duration") }
                == "--duration '5 m': must be a length of time greater than zero, such as 90, 90s or 1:30")
        #expect(
            message { _ = try TimeSpec.parse("2:00").resolve(duration: 60, spec: "2:00", option: "--at") }
                == "--at 2:00: 00:02:00.00 is outside the recording (00:00:00.00 to 00:01:00.00)")
    }

    @Test("a start before the beginning starts at 0, with a note, as mpv does")
    func startClamps() throws {
        let (start, note) = try TimeSpec.parse("-1:00").resolveStart(duration: 30, spec: "-1:00")
        #expect(start == 0)
        #expect(note == "--seek -1:00: the recording is only 00:00:30.00 long; playing from the start")
        let (fine, none) = try TimeSpec.parse("-10s").resolveStart(duration: 30, spec: "-10s")
        #expect(fine == 20 && none == nil)
        #expect(throws: RecError.self) { _ = try TimeSpec.parse("40").resolveStart(duration: 30, spec: "40") }
    }

    @Test("out of range is a usage error", arguments: ["61", "1:01", "-61s", "2:00:00"])
    func outOfRange(text: String) throws {
        let spec = try TimeSpec.parse(text)
        #expect(throws: RecError.self) { _ = try spec.resolve(duration: 60) }
    }

    @Test("relative seeks clamp at both ends")
    func relative() throws {
        #expect(try TimeSpec.parse("+5s", allowRelative: true) == .relative(5))
        #expect(try TimeSpec.parse("-5s", allowRelative: true) == .relative(-5))
        #expect(try TimeSpec.parse("+5s", allowRelative: true).resolve(duration: 60, current: 58) == 60)
        #expect(try TimeSpec.parse("-5s", allowRelative: true).resolve(duration: 60, current: 2) == 0)
        #expect(try TimeSpec.parse("-5s", allowRelative: true).resolve(duration: 60, current: 30) == 25)
        #expect(try TimeSpec.parse("-5s") == .fromEnd(5))
    }
}

import RecValues
import Testing

@testable import RecCore

@Suite("Durations and clocks")
struct DurationFormatTests {
    @Test(
        "a duration under a second shows its hundredths, so a short clip never reads as empty",
        arguments: [
            (0.4, "00:00.40"), (0.05, "00:00.05"), (0.29, "00:00.29"), (0.999, "00:00.99"), (0.001, "00:00.00"),
            (0, "00:00"), (1, "00:01"), (1.5, "00:01"), (75.5, "01:15"), (3723, "1:02:03"),
        ])
    func duration(seconds: Double, text: String) {
        #expect(Format.duration(seconds) == text)
    }

    @Test("a moment in a recording shows to the hundredth, as trim points and the player do")
    func moments() {
        #expect(Format.preciseClock(0.3) == "00:00:00.30")
        #expect(Format.preciseClock(0.6) == "00:00:00.60")
        #expect(Format.preciseClock(3723.25) == "01:02:03.25")
    }
}

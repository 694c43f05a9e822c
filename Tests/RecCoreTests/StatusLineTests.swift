import Testing

@testable import RecCore

/// The live line of record, play and import: everything when there is room, and within the
/// terminal's width when there is not (a line that wraps cannot be redrawn with \r).
@Suite("Status line")
struct StatusLineTests {
    let play = StatusLine(
        symbol: "▶", time: "00:00:05 / 00:00:30", fraction: 1.0 / 6, name: "Team standup",
        hints: "space pause · ←→ 5s · q quit")

    @Test func wideShowsEverything() {
        let line = play.render(width: 120)
        #expect(
            line == "▶ 00:00:05 / 00:00:30 [=====>------------------------]  Team standup  space pause · ←→ 5s · q quit"
        )
    }

    @Test("never wider than the terminal, and the time always stays", arguments: [20, 30, 40, 50, 60, 80])
    func fits(width: Int) {
        for line in [
            play,
            StatusLine(
                symbol: "❚❚", time: "00:00:05 / 00:00:30", fraction: 0.2, name: "A rather long recording name here",
                state: "paused", hints: "space resumes"),
            StatusLine(
                symbol: "●", time: "00:01:05", level: -12, extras: ["-12.0 dBFS", "1.2 MB"], name: "standup",
                hints: "space pause · q stop"),
        ] {
            let text = line.render(width: width)
            #expect(StatusLine.visibleWidth(text) < width, "\(width): \(text)")
            let position = String(line.time.prefix { $0 != " " })
            #expect(text.contains(width >= 40 ? line.time : position), "\(width): \(text)")
        }
    }

    @Test func pausedKeepsItsStateBeforeTheHints() {
        let paused = StatusLine(
            symbol: "❚❚", time: "00:00:05 / 00:00:30", fraction: 0.2, name: "n", state: "paused", hints: "space resumes"
        )
        #expect(paused.render(width: 40).contains("paused"))
        #expect(paused.render(width: 40).hasPrefix("❚❚ 00:00:05 / 00:00:30"))
    }

    @Test func escapesDoNotCount() {
        #expect(StatusLine.visibleWidth("\u{1B}[31mCLIP\u{1B}[0m") == 4)
    }
}

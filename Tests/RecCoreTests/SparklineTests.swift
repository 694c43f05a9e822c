import Testing

@testable import RecCore

@Suite("Sparkline")
struct SparklineTests {
    @Test("one character per value, louder is taller")
    func shape() {
        let line = Sparkline.render([0, 0.001, 0.01, 0.1, 0.5, 1])
        let chars = Array(line)
        #expect(chars.count == 6)
        #expect(chars[0] == " ")
        let heights = chars.map { Sparkline.blocks.firstIndex(of: $0)! }
        #expect(heights == heights.sorted())
        #expect(chars[5] == "█")
        #expect(heights[3] > heights[2] && heights[2] > heights[1])
    }

    @Test("out-of-range and non-finite values are clamped")
    func clamped() {
        #expect(Sparkline.render([-1, .nan, 2, .infinity]) == "  █ ")
    }
}

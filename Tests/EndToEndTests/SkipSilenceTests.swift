import Foundation
import RecAudio
import RecCore
import Testing

/// `play --skip-silence [T]` on the file sink: the device gets the recording less the
/// silences longer than T, and positions stay in the file's own time.
@Suite("play --skip-silence")
struct SkipSilenceTests {
    @Test(arguments: [[], ["1s"], ["2"]])
    func theSinkGetsTheSourceLessTheLongSilences(length: [String]) throws {
        let cli = try AudioCLI()
        let second = 48_000
        let quiet = { (seconds: Double) in [Int16](repeating: 0, count: Int(seconds * Double(second))) }
        let tone = { (seconds: Double) in AudioCLI.tone(frames: Int(seconds * Double(second))) }
        // Silences of 2 s, 4 s and 0.8 s between tones (the regions around them add 0.75 s of
        // lead-in and hangover, so the gaps the detector sees are shorter by that).
        let input = quiet(2) + tone(0.5) + quiet(4) + tone(0.5) + quiet(0.8) + tone(0.5) + quiet(3)
        try cli.writeInput(input)
        #expect(
            try cli.run("record", "gaps", "--format", "wav", "--duration", "\(Double(input.count) / Double(second))")
                .status == 0)
        let play = try cli.run(["play", "gaps", "--skip-silence"] + length + ["--progress", "json"])
        #expect(play.status == 0, "\(play.stderr)")

        let minimum = Int64(length.first.map { Double($0.filter(\.isNumber))! } ?? 1) * Int64(second)
        let regions = VoiceActivity.speechRegions(samples: input, sampleRate: second)
        let skipped = SpeechRegions.silences(between: regions, in: 0..<Int64(input.count), longerThan: minimum)
        #expect(skipped.count == (minimum == Int64(second) ? 3 : 2), "\(regions) \(skipped)")
        var expected: [Int16] = []
        var at = 0
        for gap in skipped {
            expected += input[at..<Int(gap.lowerBound)]
            at = Int(gap.upperBound)
        }
        expected += input[at...]
        #expect(expected.count < input.count)
        #expect(
            Bool(cli.outputSamples() == expected),
            "\(cli.outputSamples().count) frames played, \(expected.count) expected")
        // Positions in the file's own time: the last is its end.
        let finished = try #require(play.lines.last { $0.contains("\"finished\"") })
        #expect(finished.contains("\"frames\": \(input.count),"), "\(finished)")
    }

    @Test("the speech regions stored with the recording are used, not found again in the file")
    func storedRegions() throws {
        let cli = try AudioCLI()
        let input =
            [Int16](repeating: 0, count: 96_000) + AudioCLI.tone(frames: 48_000) + [Int16](repeating: 0, count: 96_000)
        try cli.writeInput(input)
        #expect(try cli.run("record", "t", "--format", "wav", "--duration", "5").status == 0)
        // Stored: speech from 0 to the end. The file's own detector would skip the silences.
        let storePath = cli.store + "/store.json"
        var text = try String(contentsOfFile: storePath, encoding: .utf8)
        let speech = try #require(
            text.range(of: #""speech": \[(\[[0-9, ]*\](, )?)*\]"#, options: .regularExpression), "\(text)")
        text.replaceSubrange(speech, with: "\"speech\": [[0, \(input.count)]]")
        try text.write(toFile: storePath, atomically: true, encoding: .utf8)
        let play = try cli.run("play", "t", "--skip-silence", "0.4")
        #expect(play.status == 0, "\(play.stderr)")
        #expect(cli.outputSamples().count == input.count, "nothing skipped: the stored regions say it is all speech")
    }

    @Test("--silence-threshold reaches the detector: above every tone, all of it is silence and nothing plays")
    func threshold() throws {
        let cli = try AudioCLI()
        try cli.writeInput(
            [Int16](repeating: 0, count: 48_000) + AudioCLI.tone(frames: 48_000) + [Int16](repeating: 0, count: 48_000))
        #expect(try cli.run("record", "t", "--format", "wav", "--duration", "3").status == 0)
        #expect(try cli.run("play", "t", "--skip-silence", "0.4", "--silence-threshold", "-60").status == 0)
        let played = cli.outputSamples().count
        #expect(abs(played - (48_000 + 19_200)) <= 480, "\(played): the tone, its 250 ms lead-in and 150 ms post-roll")
        try? FileManager.default.removeItem(atPath: cli.output)
        #expect(try cli.run("play", "t", "--skip-silence", "--silence-threshold", "0").status == 0)
        #expect(cli.outputSamples().isEmpty)
        let bad = try cli.run("play", "t", "--silence-threshold", "-40")
        #expect(bad.status == 64 && bad.stderr.contains("goes with --skip-silence"), "\(bad)")
    }
}

import Foundation
import Testing

/// `info` shows where a recording has speech: one line, and the regions in `--json`.
@Suite("info: speech regions")
struct InfoSpeechTests {
    @Test func infoShowsTheSpeechRegions() throws {
        let cli = try AudioCLI()
        // 1 s of silence, 1 s of a 440 Hz tone (in the voice band), 2 s of silence, at 48 kHz.
        let silence = [Int16](repeating: 0, count: 48_000)
        try cli.writeInput(silence + AudioCLI.tone(frames: 48_000) + silence + silence)
        #expect(try cli.run("record", "talk", "--format", "wav", "--duration", "4").status == 0)

        let info = try cli.run("info", "talk")
        #expect(info.status == 0)
        // 0.75 s (the tone less the 250 ms pre-roll) to 2.15 s (plus the 150 ms post-roll).
        let line = try #require(info.stdout.split(separator: "\n").first { $0.hasPrefix("speech:") })
        #expect(line.hasSuffix("00:01 of 00:04, 1 region"), "\(line)")
        // The marks under the waveform's 60 buckets of 4 s: 0.75 s to 2.16 s is buckets 11 to 32.
        let waveform = try #require(info.stdout.split(separator: "\n").first { $0.hasPrefix("waveform:") })
        let marks = String(line.dropFirst(waveform.firstIndex(of: "▕")!.utf16Offset(in: waveform) + 1).prefix(60))
        #expect(
            marks == String(repeating: " ", count: 11) + String(repeating: "▀", count: 22)
                + String(repeating: " ", count: 27), "\(line)")

        let json = try cli.run("info", "talk", "--json")
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let regions = try #require(object["speech"] as? [[Double]])
        #expect(regions.count == 1)
        #expect(regions.first?.first == 0.75)
        // The filters ring into the block after the tone: the end is 2.15 s, or one block later.
        let end = try #require(regions.first?.last)
        #expect(end >= 2.1499 && end <= 2.1601, "\(regions)")
        let seconds = try #require(object["speechSeconds"] as? Double)
        #expect(abs(seconds - (end - 0.75)) < 0.002)
    }

    @Test func silenceHasNoSpeech() throws {
        let cli = try AudioCLI()
        try cli.writeInput([Int16](repeating: 0, count: 96_000))
        #expect(try cli.run("record", "quiet", "--format", "wav", "--duration", "2").status == 0)
        let info = try cli.run("info", "quiet")
        #expect(info.stdout.contains("00:00 of 00:02, 0 regions"))
        let json = try cli.run("info", "quiet", "--json")
        #expect(json.stdout.contains("\"speechSeconds\": 0, \"speech\": []"))
    }
}

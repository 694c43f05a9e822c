import Foundation
import RecCore
import RecTestSupport
import Testing

/// Capture must never write samples the device did not deliver.
///
/// ALSA's `file` plugin with an `infile` returns as many frames as its slave (`null`) does,
/// but copies only what `read(2)` on the infile gave into the caller's buffer: once the
/// infile is exhausted, a read "succeeds" with the buffer untouched. A recorder that reuses
/// its buffer would then write whatever an earlier read left there (arecord 1.2.8 does:
/// it repeats its last period over and over on this device).
@Suite("Capture after the device's input ran out", .tags(.threads))
struct CaptureExhaustedInputTests {
    @Test(arguments: ["wav", "flac"])
    func nothingAfterTheInputRepeatsEarlierAudio(format: String) throws {
        let cli = try AudioCLI()
        let signalFrames = 14_400  // 0.3 s at 48 kHz, then EOF
        let input = AudioCLI.noise(frames: signalFrames, seed: 77)
        try cli.writeInput(input)
        let result = try cli.run("record", "Short", "--format", format, "--duration", "2")
        #expect(result.status == 0, "\(result.stderr)")
        let item = try #require(try cli.recordings().first)
        let file = try #require(item["file"] as? String)
        let recorded = try AudioCLI.decode(cli.store + "/audio/" + file)
        #expect(recorded.count == 96_000)
        #expect(Bool(Array(recorded.prefix(signalFrames)) == input), "the delivered audio itself is bit-exact")

        // Every 8-sample window of the input, to find any part of it that comes back.
        var windows = Set<[Int16]>()
        for start in 0...(input.count - 8) { windows.insert(Array(input[start..<start + 8])) }
        let after = Array(recorded.dropFirst(signalFrames))
        var repeated = 0
        var start = 0
        while start + 8 <= after.count {
            if windows.contains(Array(after[start..<start + 8])) { repeated += 1 }
            start += 8
        }
        #expect(repeated == 0, "\(repeated) windows of 8 samples after the input's end repeat earlier audio")
        let nonSilent = after.filter { $0 != 0 }.count
        #expect(nonSilent == 0, "what the device did not deliver is silence; \(nonSilent) samples were not")
    }
}

import Testing

@testable import RecAudio

/// The stage between a recorder's ring and its file: what it lets through does not depend
/// on how the capture thread happened to cut the audio into chunks.
@Suite("Voice gate")
struct VoiceGateTests {
    /// Runs the gate over `samples` in chunks of `chunk` frames; returns what the file gets.
    static func gated(_ samples: [Int16], trigger: VoiceTrigger, chunk: Int) -> (file: [Int16], gate: VoiceGate) {
        var gate = VoiceGate(trigger: trigger, rate: 16_000, channels: 1)
        var file: [Int16] = []
        samples.withUnsafeBufferPointer { buffer in
            var at = 0
            while at < buffer.count {
                let n = min(chunk, buffer.count - at)
                switch gate.pass(buffer.baseAddress! + at, frames: n) {
                case .nothing: break
                case .frames(let k): file += buffer[at..<(at + k)]
                case .held(let held): file += held
                }
                at += n
            }
        }
        return (file, gate)
    }

    // 1 s of quiet noise, 1 s of tone, 4 s of quiet noise, at 16 kHz.
    static let input: [Int16] = {
        let quiet = { (n: Int, seed: UInt64) in TestSignal.noise(frames: n, seed: seed).map { $0 / 300 } }
        return quiet(16_000, 1) + TestSignal.tone(rate: 16_000, frames: 16_000) + quiet(64_000, 2)
    }()

    @Test(
        "start on voice: the file starts the pre-roll before the detector's onset, whatever the chunks",
        arguments: [7, 160, 1000, 8000])
    func startOnVoice(chunk: Int) throws {
        let onset = try #require(VoiceActivity.speechRegions(samples: Self.input, sampleRate: 16_000).first?.lowerBound)
        let (file, gate) = Self.gated(Self.input, trigger: VoiceTrigger(startOnVoice: true, preRoll: 0.5), chunk: chunk)
        let start = Int(onset) - 8000
        #expect(gate.fileStart == Int64(start))
        #expect(file == Array(Self.input[start...]))
    }

    @Test(
        "stop on silence: the file ends the silence after the last active block, to the block",
        arguments: [7, 160, 1000, 8000])
    func stopOnSilence(chunk: Int) throws {
        let region = try #require(VoiceActivity.speechRegions(samples: Self.input, sampleRate: 16_000).last)
        let lastActive = Int(region.upperBound) - 2400  // less the 150 ms post-roll
        let (file, gate) = Self.gated(Self.input, trigger: VoiceTrigger(stopOnSilence: 2), chunk: chunk)
        #expect(gate.isStopped)
        #expect(file.count == lastActive + 32_000, "\(file.count) frames, last speech at \(lastActive)")
        #expect(file == Array(Self.input.prefix(file.count)))
        #expect(gate.speechEndInFile == region.upperBound)
    }
}

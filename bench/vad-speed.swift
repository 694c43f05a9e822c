// bench/vad.sh compiles this with Sources/RecAudio/Audio/VoiceActivity.swift alone
// (swiftc -O) and runs it: the detector's speed on samples in memory, nothing else timed.
//   vad-speed FILE.raw RATE ROUNDS   (FILE: s16le mono)
import Foundation

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

@main
struct VadSpeed {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let rate = Int(arguments[2]), let rounds = Int(arguments[3]),
              let data = FileManager.default.contents(atPath: arguments[1]) else {
            FileHandle.standardError.write("usage: vad-speed FILE.raw RATE ROUNDS\n".data(using: .utf8)!)
            exit(64)
        }
        let samples: [Int16] = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let seconds = Double(samples.count) / Double(rate)

        var best = Double.infinity
        var regions: [Range<Int64>] = []
        for _ in 0..<rounds {
            let start = now()
            // In periods of 1024 frames, as a recorder or player would feed it.
            var detector = VoiceActivityDetector(sampleRate: rate)
            var collected = SpeechRegions()
            samples.withUnsafeBufferPointer { buffer in
                var at = 0
                while at < buffer.count {
                    let n = min(1024, buffer.count - at)
                    collected.add(detector.feed(buffer.baseAddress! + at, frames: n))
                    at += n
                }
            }
            collected.add(detector.finish())
            best = min(best, now() - start)
            regions = collected.regions
        }
        print("rate \(rate) Hz, \(String(format: "%.0f", seconds)) s of audio: best of \(rounds) \(String(format: "%.3f", best)) s, \(String(format: "%.0f", seconds / best))x real time, \(regions.count) regions")
    }
}

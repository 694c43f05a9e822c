// bench/vad-room.sh compiles this with Sources/RecAudio/Audio/VoiceActivity.swift alone
// (swiftc -O; once with this tree's detector, once with main's) and runs it: the speech
// regions of each file, one line per file: "FILE start-end start-end ..." in frames.
//   vad-regions RATE FILE.raw...   (FILE: s16le mono)
import Foundation

@main
struct VadRegions {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3, let rate = Int(arguments[1]) else {
            FileHandle.standardError.write("usage: vad-regions RATE FILE.raw...\n".data(using: .utf8)!)
            exit(64)
        }
        for path in arguments.dropFirst(2) {
            guard let data = FileManager.default.contents(atPath: path) else { exit(66) }
            let samples: [Int16] = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            let regions = VoiceActivity.speechRegions(samples: samples, sampleRate: rate)
            print(([path] + regions.map { "\($0.lowerBound)-\($0.upperBound)" }).joined(separator: " "))
        }
    }
}

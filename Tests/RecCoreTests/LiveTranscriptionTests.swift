import Foundation
import RecAudio
import RecCore
import RecStore
import RecSystem
import RecTranscripts
import RecValues
import Testing

/// Live words' transcriber on a tap that grows as a recorder writes it: real speech (the
/// pocketsphinx-testdata clips), cut into pieces at its pauses, each given to the engine once
/// it has ended, with the recording's own times.
@Suite("Live words: a growing tap cut into pieces of speech")
struct LiveTranscriptionTests {
    static let clips = "/usr/share/pocketsphinx/test/data"
    static let speechRate = 16_000

    /// An engine that hears nothing but how long each piece is: one segment a piece,
    /// "piece N", from 0 to its length (the caller moves it to where the piece starts).
    final class PieceEngine: TranscriptionEngine, @unchecked Sendable {
        var name: String { "pieces" }
        private(set) var lengths: [Double] = []

        func transcribe(_ audio: SpeechAudio, cancel: CancelFlag, progress: (Double) -> Void) throws(RecError)
            -> Transcript
        {
            lengths.append(audio.duration)
            let text = "piece \(lengths.count)"
            return Transcript(
                engine: name, model: "", quality: .draft,
                segments: [.init(start: 0, end: audio.duration, text: text)])
        }
    }

    static func clip(_ name: String) throws -> [Int16] {
        let data = try #require(FileManager.default.contents(atPath: "\(clips)/\(name).raw"), "pocketsphinx-testdata")
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// A quiet room: low noise from a fixed seed.
    static func room(seconds: Double, seed: UInt64 = 7) -> [Int16] {
        var state = seed
        return (0..<Int(seconds * Double(speechRate))).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int16(truncatingIfNeeded: Int(state >> 33) % 41 - 20)
        }
    }

    /// Writes `samples` (at 16 kHz, each repeated `rate / 16000` times) into a tap half a
    /// second at a time, letting the transcriber read after each, then tells it the end.
    static func run(_ samples: [Int16], rate: Int, engine: PieceEngine) throws -> [Transcript.Segment] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tapPath = directory + "/tap.pcm"
        #expect(FileManager.default.createFile(atPath: tapPath, contents: nil))
        let live = try #require(LiveTranscription(tapPath: tapPath, rate: rate, engine: engine))
        let tap = try #require(FileHandle(forWritingAtPath: tapPath))
        let repeats = rate / speechRate
        let step = speechRate / 2
        var sent: [Transcript.Segment] = []
        for start in stride(from: 0, to: samples.count, by: step) {
            let block = samples[start..<min(start + step, samples.count)].flatMap {
                Array(repeating: $0, count: repeats)
            }
            tap.write(block.withUnsafeBytes { Data($0) })
            while let new = live.advance(final: false) { sent += new }
        }
        try tap.close()
        while let new = live.advance(final: true) { sent += new }
        #expect(live.segments == sent)
        #expect(live.failures.isEmpty)
        return sent
    }

    @Test(arguments: [16_000, 48_000])
    func eachUtteranceIsAPieceOfItsOwnAtItsOwnTime(rate: Int) throws {
        let gap = 2.0
        var audio = Self.room(seconds: 1)
        var utterances: [Range<Double>] = []
        for name in ["goforward", "numbers", "something"] {
            let clip = try Self.clip(name)
            let start = Double(audio.count) / Double(Self.speechRate)
            audio += clip
            utterances.append(start..<(Double(audio.count) / Double(Self.speechRate)))
            audio += Self.room(seconds: gap, seed: UInt64(audio.count))
        }
        let engine = PieceEngine()
        let segments = try Self.run(audio, rate: rate, engine: engine)
        let pieces = segments.map { ($0.start ?? -1)..<($0.end ?? -1) }
        #expect(pieces.count >= 3, "\(pieces)")
        #expect(segments.map(\.text) == (1...segments.count).map { "piece \($0)" })
        // In order, apart, and each as long as the audio the engine was given.
        for (a, b) in zip(pieces, pieces.dropFirst()) { #expect(a.upperBound <= b.lowerBound + 0.001) }
        for (piece, length) in zip(pieces, engine.lengths) {
            #expect(abs((piece.upperBound - piece.lowerBound) - length) < 0.002)
        }
        // No piece reaches across the room noise between two clips, and every clip's middle
        // is in a piece.
        for (a, b) in zip(utterances, utterances.dropFirst()) {
            let middle = (a.upperBound + b.lowerBound) / 2
            #expect(!pieces.contains { $0.contains(middle) }, "\(pieces) across \(middle)")
        }
        for utterance in utterances {
            let middle = (utterance.lowerBound + utterance.upperBound) / 2
            #expect(pieces.contains { $0.lowerBound - 0.3 < middle && middle < $0.upperBound + 0.3 }, "\(pieces)")
        }
        // The room noise before the first word is not the engine's to hear.
        #expect(pieces[0].lowerBound > 0.5, "\(pieces)")
    }

    @Test func speechWithNoPauseIsCutIntoPiecesAtItsQuietestMoments() throws {
        // LibriVox speech, the clips back to back: most of a minute with only its own pauses.
        var audio: [Int16] = []
        for name in ["0870", "0880", "0890", "0920", "0930", "0870", "0880", "0890", "0920", "0930"] {
            let path = "\(Self.clips)/librivox/sense_and_sensibility_01_austen_64kb-\(name).wav"
            let speech = try SpeechAudio.decode(path: path)
            audio += speech.samples
        }
        let engine = PieceEngine()
        let segments = try Self.run(audio, rate: 16_000, engine: engine)
        let total = Double(audio.count) / Double(Self.speechRate)
        #expect(total > 45)
        // Its pauses are too short to end a region, so every cut is one of the long-piece
        // rule: after `shortestCut`, by `longestPiece`, at a moment quieter than most.
        #expect(engine.lengths.count >= 3, "\(engine.lengths)")
        #expect(abs(engine.lengths.reduce(0, +) - total) < 0.5, "\(engine.lengths)")
        for length in engine.lengths.dropLast() {
            #expect(length >= LiveTranscription.shortestCut && length <= LiveTranscription.longestPiece + 0.6)
        }
        func energy(at second: Double) -> Double {
            let at = Int(second * Double(Self.speechRate))
            return audio[max(at - 800, 0)..<min(at + 800, audio.count)].reduce(0) { $0 + Double($1) * Double($1) }
        }
        let typical = stride(from: 0.05, to: total, by: 0.1).map(energy).sorted()[Int(total * 5)]
        for cut in segments.dropLast().compactMap(\.end) {
            #expect(energy(at: cut) < typical, "the cut at \(cut) s is louder than most of the speech")
        }
        #expect(segments.count == engine.lengths.count)
    }

    @Test func aSweepRemovesOnlyWhatNoTranscriberHolds() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = LiveWordsFiles(location: StoreLocation(directory: directory))
        try FileManager.default.createDirectory(atPath: files.directory, withIntermediateDirectories: true)
        let (dead, running, current) = (ItemID.random(), ItemID.random(), ItemID.random())
        for id in [dead, running, current] {
            for path in [files.tap(id), files.words(id), files.log(id)] {
                #expect(FileManager.default.createFile(atPath: path, contents: Data([1, 2])))
            }
        }
        let held = try FileLock(path: files.lock(running))
        files.sweep(except: current)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: files.directory))
        #expect(left.allSatisfy { !$0.hasPrefix("\(dead)") }, "\(left)")
        #expect(left.isSuperset(of: ["\(running).pcm", "\(running).words", "\(current).pcm", "\(current).words"]))
        withExtendedLifetime(held) {}
    }
}

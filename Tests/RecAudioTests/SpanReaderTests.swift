import Foundation
import RecValues
import Testing

@testable import RecAudio

/// An edited recording read from real takes (a WAV and a FLAC file written by libsndfile):
/// whole in uneven chunks, and from random seeks, it is `EditList.render` of the same takes'
/// samples, sample for sample.
@Suite("span reader: an edit list read from its takes")
struct SpanReaderTests {
    /// Take `number`'s samples: a pattern that differs along the file and between takes.
    static func samples(_ number: Int, frames: Int, channels: Int) -> [Int16] {
        (0..<frames * channels).map { Int16(truncatingIfNeeded: ($0 * 37 + number * 5003) % 24000 - 12000) }
    }

    static func write(_ samples: [Int16], to path: String, format: AudioFormat, channels: Int) throws {
        let file = try SoundFile.create(path: path, format: format, rate: 48000, channels: channels)
        try samples.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: samples.count / channels) }
        try file.close()
    }

    /// An edited list over four takes and the takes' samples: the first cut in two places, the
    /// second appended, the third inserted inside the first, the fourth replacing a stretch.
    static func library(in scratch: AudioScratch, channels: Int) throws -> (EditList, [[Int16]]) {
        let lengths = [48_000, 20_000, 6_000, 3_000]
        let formats: [AudioFormat] = [.wav, .flac, .wav, .flac]
        var takes: [EditList.Take] = []
        var audio: [[Int16]] = []
        for (number, frames) in lengths.enumerated() {
            let file = "take\(number).\(formats[number].rawValue)"
            let samples = Self.samples(number, frames: frames, channels: channels)
            try write(samples, to: scratch.path + "/" + file, format: formats[number], channels: channels)
            takes.append(EditList.Take(file: file, frames: Int64(frames)))
            audio.append(samples)
        }
        var list = EditList(take: takes[0])
        _ = list.cut(10_000..<15_000)
        _ = list.append(takes[1])
        _ = list.insert(takes[2], at: 30_000)
        _ = list.cut(2_000..<2_500)
        _ = list.replace(from: 40_000, with: takes[3])
        return (list, audio)
    }

    func reader(_ list: EditList, in scratch: AudioScratch, channels: Int) -> SpanReader {
        SpanReader(list: list, sampleRate: 48000, channels: channels) { take in
            try SoundFile.open(path: scratch.path + "/" + take.file)
        }
    }

    func expected(_ list: EditList, _ audio: [[Int16]], _ range: Range<Int64>, channels: Int) -> [Int16] {
        list.render(range, channels: channels) { take, frames in
            audio[take][(Int(frames.lowerBound) * channels)..<(Int(frames.upperBound) * channels)].map(Float.init)
        }.map { Int16(max(-32768, min(32767, $0.rounded()))) }
    }

    @Test(arguments: [1, 2])
    func readsAsTheRenderingOfItsTakes(channels: Int) throws {
        let scratch = try AudioScratch()
        let (list, audio) = try Self.library(in: scratch, channels: channels)
        #expect(list.joins.count >= 4, "\(list.spans)")
        let whole = expected(list, audio, 0..<list.frames, channels: channels)
        let reader = reader(list, in: scratch, channels: channels)
        var random = SystemRandomNumberGenerator()
        var read: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 3000 * channels)
        while true {
            let want = Int.random(in: 1...3000, using: &random)
            let n = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: want) }
            if n == 0 { break }
            read += buffer[0..<(n * channels)]
        }
        #expect(read.count == whole.count)
        #expect(read == whole, "the first difference at \(read.indices.first { read[$0] != whole[$0] } ?? -1)")
        for _ in 0..<40 {
            let at = Int64.random(in: 0..<list.frames, using: &random)
            let want = Int.random(in: 1...3000, using: &random)
            reader.seek(to: at)
            let n = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: want) }
            let end = min(at + Int64(want), list.frames)
            #expect(n == Int(end - at))
            #expect(
                Array(buffer[0..<(n * channels)]) == Array(whole[(Int(at) * channels)..<(Int(end) * channels)]),
                "a seek to \(at) for \(want)")
        }
    }

    @Test func aTakeOfAnotherRateIsRefused() throws {
        let scratch = try AudioScratch()
        let file = try SoundFile.create(path: scratch.path + "/odd.wav", format: .wav, rate: 44100, channels: 1)
        let silence = [Int16](repeating: 0, count: 100)
        try silence.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: 100) }
        try file.close()
        let reader = reader(EditList(take: .init(file: "odd.wav", frames: 100)), in: scratch, channels: 1)
        var buffer = [Int16](repeating: 0, count: 100)
        #expect(throws: AudioError.self) {
            try buffer.withUnsafeMutableBufferPointer { _ = try reader.read(into: $0.baseAddress!, frames: 100) }
        }
    }
}

import Foundation
import RecTestSupport
import RecValues
import Testing

@testable import RecStore

@Suite("Transcripts: the stored file, its search index, and find")
struct TranscriptStorageTests {
    static let sample = Transcript(
        engine: "pocketsphinx", model: "en-us", created: Timestamp(iso8601: "2026-11-23T12:00:00.000Z")!,
        quality: .draft,
        segments: [
            Transcript.Segment(start: 0.5, end: 2, text: "hello there"),
            Transcript.Segment(
                start: 10, end: 14, text: "the Budget\tnumbers are in",
                words: [
                    Transcript.Word(start: 10, end: 10.2, text: "the"),
                    Transcript.Word(start: 10.2, end: 11, text: "Budget"),
                    Transcript.Word(start: 11.5, end: 12, text: "numbers"),
                    Transcript.Word(start: 12, end: 13, text: "are"),
                    Transcript.Word(start: 13, end: 14, text: "in"),
                ]),
            Transcript.Segment(start: nil, end: nil, text: "Crème brûlée à Noël"),
        ])

    @Test func theStoredJSONReadsBack() throws {
        let bytes = Array(TranscriptFormat.json.render(Self.sample).utf8)
        #expect(try TranscriptCodec.decode(bytes) == Self.sample)
        #expect(throws: (any Error).self) { try TranscriptCodec.decode(Array("{\"engine\": \"x\"}".utf8)) }
        #expect(throws: (any Error).self) {
            try TranscriptCodec.decode(Array("{\"segments\": [{\"start\": -1}]}".utf8))
        }
    }

    @Test func theIndexIsOneLinePerSegmentWithItsStart() {
        let index = String(decoding: TranscriptFiles.index(Self.sample), as: UTF8.self)
        #expect(index == "0.5\thello there\n10.0\tthe Budget numbers are in\n\tCrème brûlée à Noël\n")
    }

    @Test(arguments: [
        (["numbers"], 1, 11.5), (["budget"], 1, 10.2), (["hello"], 0, 0.5), (["are", "there"], 0, 0.5),
    ])
    func aWordIsFoundWhereItIsSaid(words: [String], line: Int, seconds: Double) throws {
        let search = TranscriptIndexSearch(index: TranscriptFiles.index(Self.sample), words: words)
        #expect(search.found == words.map { _ in true })
        let first = try #require(search.first)
        #expect(first.line == line)
        let offset = try #require(first.offset)
        let start =
            TranscriptFiles.wordStart(in: Self.sample.segments[line], atByte: offset)
            ?? Self.sample.segments[line].start
        #expect(start == seconds)
    }

    @Test func accentsAndCaseAreIgnoredAndMissingWordsReported() throws {
        let search = TranscriptIndexSearch(
            index: TranscriptFiles.index(Self.sample), words: ["creme", "noel", "zebra"])
        #expect(search.found == [true, true, false])
        let first = try #require(search.first)
        #expect(first.line == 2 && first.offset == nil && first.seconds == nil)
        #expect(first.snippet.contains("Crème"))
        #expect(TranscriptIndexSearch(index: TranscriptFiles.index(Self.sample), words: ["zebra"]).first == nil)
    }

    @Test func clippingDropsWhatStartsAfterTheEnd() {
        let clipped = Self.sample.clipped(to: 11)
        #expect(clipped.segments.count == 3)
        #expect(clipped.segments[1].end == 11)
        #expect(clipped.segments[1].words.map(\.text) == ["the", "Budget"])
        #expect(Self.sample.clipped(to: 5).segments.map(\.text) == ["hello there", "Crème brûlée à Noël"])
        #expect(Self.sample.lastTime == 14)
    }
}

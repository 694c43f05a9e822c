import Foundation
import RecStore
import RecValues
import Testing

@testable import RecCore

/// `export --markdown`: where the subject changes is a heading, labelled with the chapter's
/// words, as markers are; not where a marker of that label already is, nor with --no-chapters,
/// nor in a recording of one subject.
@Suite("markdown: chapters as headings")
struct MarkdownChaptersTests {
    /// A minute on the garden, a pause, then a minute on the rocket (`sentences` of each): a
    /// segment a sentence, a word every 0.4 s.
    static func talk(subjects: [[String]], sentences: Int = 15) -> Transcript {
        var segments: [Transcript.Segment] = []
        var at = 0.0
        for (index, words) in subjects.enumerated() {
            if index > 0 { at += 1.5 }
            for sentence in 0..<sentences {
                let chosen = (0..<10).map { words[(sentence * 3 + $0 * 7) % words.count] }
                let timed = chosen.enumerated().map { offset, word in
                    Transcript.Word(start: at + Double(offset) * 0.4, end: at + Double(offset) * 0.4 + 0.3, text: word)
                }
                segments.append(
                    Transcript.Segment(
                        start: at, end: timed.last!.end, text: chosen.joined(separator: " "), words: timed))
                at = timed.last!.end + 0.3
            }
        }
        return Transcript(engine: "test", model: "", quality: .good, segments: segments)
    }

    static let garden = ["roses", "soil", "water", "garden", "prune", "the", "compost", "seeds", "and", "spring"]
    static let rocket = ["rocket", "fuel", "launch", "orbit", "the", "engine", "stage", "and", "satellite", "thrust"]

    static func item(markers: [Marker] = []) -> Item {
        var item = Item.recording(
            name: "talk", parent: .root,
            info: RecordingInfo(
                duration: 130, frames: 130 * 48_000, sampleRate: 48_000, channels: 1, format: .opus, file: "x.opus"))
        item.annotations.markers = markers
        return item
    }

    @Test func aChangeOfSubjectIsAHeading() throws {
        let transcript = Self.talk(subjects: [Self.garden, Self.rocket])
        let chapters = Chapters.of(transcript)
        try #require(chapters.count >= 2, "\(chapters)")
        let note = MarkdownNote.render(Self.item(), transcript: transcript, options: .init())
        let headings = note.split(separator: "\n").filter { $0.hasPrefix("## ") }.map(String.init)
        #expect(headings == chapters.map { "## " + RecordingChapters.label($0) }, "\(note)")
        // The last heading, the rocket's, comes after the last garden words.
        let last = try #require(note.range(of: "## " + RecordingChapters.label(chapters.last!)))
        #expect(!note[last.upperBound...].contains("roses") && note[..<last.lowerBound].contains("roses"))
        // Applied as markers, they are not written twice; --no-chapters leaves them out.
        let applied = chapters.map { Marker(frame: Int64($0.start * 48_000), label: RecordingChapters.label($0)) }
        let marked = MarkdownNote.render(Self.item(markers: applied), transcript: transcript, options: .init())
        #expect(marked.split(separator: "\n").filter { $0.hasPrefix("## ") }.map(String.init) == headings, "\(marked)")
        let without = MarkdownNote.render(Self.item(), transcript: transcript, options: .init(chapters: false))
        #expect(!without.contains("## "), "\(without)")
        // Too short to change its subject (a chapter is at least 20 s): no heading.
        let short = Self.talk(subjects: [Self.garden], sentences: 4)
        #expect(Chapters.of(short).count == 1)
        let one = MarkdownNote.render(Self.item(), transcript: short, options: .init())
        #expect(!one.contains("## "), "\(one)")
    }
}

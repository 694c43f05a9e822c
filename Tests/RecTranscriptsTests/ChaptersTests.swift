import RecValues
import Testing

/// `Chapters`: TextTiling over a transcript with word times.
@Suite("chapters: where the subject changes")
struct ChaptersTests {
    static let pasta = """
        boil the water for the pasta with plenty of salt then add the pasta and stir the pasta so it \
        does not stick taste the pasta after eight minutes drain the pasta and keep some of the water \
        for the sauce the sauce needs garlic olive oil and tomatoes cook the garlic slowly in the oil \
        add the tomatoes and let the sauce simmer then toss the pasta in the sauce with basil and \
        cheese serve the pasta hot with more cheese and a little pepper
        """
    static let rockets = """
        the rocket stands on the launch pad while the engineers load the fuel the fuel tanks hold \
        liquid oxygen and kerosene the engines ignite three seconds before launch and the rocket \
        lifts off slowly the first stage burns for two minutes then the stage separates and falls \
        back the second stage carries the satellite into orbit where the satellite opens its solar \
        panels the engineers watch the orbit from mission control
        """

    /// The two texts read one after the other at 2.5 words a second, with a pause of `gap`
    /// seconds between them, a segment every ten words.
    static func transcript(gap: Double) -> (Transcript, join: Double) {
        var segments: [Transcript.Segment] = []
        var at = 0.0
        var join = 0.0
        for (index, text) in [pasta, rockets].enumerated() {
            if index == 1 {
                at += gap
                join = at
            }
            let words = text.split(separator: " ").map(String.init)
            for start in stride(from: 0, to: words.count, by: 10) {
                let chunk = words[start..<min(start + 10, words.count)].map { word -> Transcript.Word in
                    defer { at += 0.4 }
                    return Transcript.Word(start: at, end: at + 0.3, text: word)
                }
                segments.append(
                    Transcript.Segment(
                        start: chunk.first!.start, end: chunk.last!.end, text: chunk.map(\.text).joined(separator: " "),
                        words: chunk))
                at += 0.3
            }
        }
        return (Transcript(engine: "test", model: "", quality: .good, segments: segments), join)
    }

    @Test func twoSubjectsMakeTwoChaptersSplitAtTheJoin() {
        let (transcript, join) = Self.transcript(gap: 1.5)
        let chapters = Chapters.of(transcript)
        #expect(chapters.count == 2, "\(chapters)")
        if chapters.count == 2 {
            #expect(abs(chapters[1].start - join) <= 2, "\(chapters[1].start) against \(join)")
            #expect(chapters[0].words.contains("pasta"), "\(chapters)")
            #expect(
                chapters[1].words.contains {
                    $0.contains("rocket") || $0.contains("stage") || $0.contains("engineers")
                }, "\(chapters)")
        }
    }

    @Test(arguments: [pasta, rockets])
    func oneSubjectIsOneChapter(text: String) {
        let words = text.split(separator: " ")
        let segment = Transcript.Segment(
            start: 0, end: Double(words.count) * 0.4, text: words.joined(separator: " "),
            words: words.enumerated().map {
                Transcript.Word(start: Double($0) * 0.4, end: Double($0) * 0.4 + 0.3, text: String($1))
            })
        let chapters = Chapters.of(Transcript(engine: "test", model: "", quality: .good, segments: [segment]))
        #expect(chapters.count == 1, "\(chapters)")
        #expect(Chapters.of(Transcript(engine: "test", model: "", quality: .good, segments: [])).isEmpty)
    }
}

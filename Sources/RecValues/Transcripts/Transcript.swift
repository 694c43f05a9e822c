/// What a recording says, as text with times: what `find` searches and `play --seek` lands
/// on. Made by an engine (the built-in PocketSphinx, or an external command), offline.
package struct Transcript: Equatable, Sendable {
    /// How far the text can be trusted: a fast engine's first pass, or a careful one's.
    package enum Quality: String, Sendable, CaseIterable {
        case draft
        case good
    }

    /// One word and where it is, in seconds from the start of the recording.
    package struct Word: Equatable, Sendable {
        package var start: Double
        package var end: Double
        package var text: String

        package init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = text
        }
    }

    /// A stretch of speech (an utterance, a subtitle cue). `start` and `end` are nil when
    /// the engine gave no times (plain text); `words` is empty when it gave no word times.
    package struct Segment: Equatable, Sendable {
        package var start: Double?
        package var end: Double?
        package var text: String
        package var words: [Word]

        package init(start: Double?, end: Double?, text: String, words: [Word] = []) {
            self.start = start
            self.end = end
            self.text = text
            self.words = words
        }
    }

    /// "pocketsphinx", or the external command's program name ("whisper-cli").
    package var engine: String
    /// The model: a name or a path, as the engine knows it; empty when unknown.
    package var model: String
    /// The language the engine heard or was told ("en"); empty when it does not say.
    package var language: String
    package var created: Timestamp
    package var quality: Quality
    package var segments: [Segment]
    /// Changed by hand since the engine made it (`transcript --edit`, `--replace`): never
    /// replaced by `transcribe` without `--force`.
    package var corrected = false

    package init(engine: String, model: String, created: Timestamp = .now(), quality: Quality, segments: [Segment]) {
        self.init(engine: engine, model: model, language: "", created: created, quality: quality, segments: segments)
    }

    package init(
        engine: String, model: String, language: String, created: Timestamp = .now(), quality: Quality,
        segments: [Segment]
    ) {
        self.engine = engine
        self.model = model
        self.language = language
        self.created = created
        self.quality = quality
        self.segments = segments
    }

    /// The same transcript with every time `seconds` later: for one made of a part of the
    /// audio that starts there.
    package func shifted(by seconds: Double) -> Transcript {
        var shifted = self
        shifted.segments = segments.map { segment in
            var segment = segment
            segment.start = segment.start.map { $0 + seconds }
            segment.end = segment.end.map { $0 + seconds }
            segment.words = segment.words.map { Word(start: $0.start + seconds, end: $0.end + seconds, text: $0.text) }
            return segment
        }
        return shifted
    }

    /// All the text, segments joined by spaces: what a search looks in.
    package var text: String {
        segments.map(\.text).filter { !$0.isEmpty }.joined(separator: " ")
    }
}

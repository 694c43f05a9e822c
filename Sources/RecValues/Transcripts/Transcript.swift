/// What a recording says, as text with times: what `find` searches and `play --seek` lands
/// on. Made by an engine (the built-in PocketSphinx, or an external command), offline.
public struct Transcript: Equatable, Sendable {
    /// How far the text can be trusted: a fast engine's first pass, or a careful one's.
    public enum Quality: String, Sendable, CaseIterable {
        case draft
        case good
    }

    /// One word and where it is, in seconds from the start of the recording.
    public struct Word: Equatable, Sendable {
        public var start: Double
        public var end: Double
        public var text: String

        public init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = text
        }
    }

    /// A stretch of speech (an utterance, a subtitle cue). `start` and `end` are nil when
    /// the engine gave no times (plain text); `words` is empty when it gave no word times.
    public struct Segment: Equatable, Sendable {
        public var start: Double?
        public var end: Double?
        public var text: String
        public var words: [Word]

        public init(start: Double?, end: Double?, text: String, words: [Word] = []) {
            self.start = start
            self.end = end
            self.text = text
            self.words = words
        }
    }

    /// "pocketsphinx", or the external command's program name ("whisper-cli").
    public var engine: String
    /// The model: a name or a path, as the engine knows it; empty when unknown.
    public var model: String
    /// The language the engine heard or was told ("en"); empty when it does not say.
    public var language: String
    public var created: Timestamp
    public var quality: Quality
    public var segments: [Segment]

    public init(engine: String, model: String, created: Timestamp = .now(), quality: Quality, segments: [Segment]) {
        self.init(engine: engine, model: model, language: "", created: created, quality: quality, segments: segments)
    }

    public init(
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
    public func shifted(by seconds: Double) -> Transcript {
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
    public var text: String {
        segments.map(\.text).filter { !$0.isEmpty }.joined(separator: " ")
    }
}

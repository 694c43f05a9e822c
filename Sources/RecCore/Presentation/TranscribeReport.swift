import RecValues

/// `transcribe`'s one line once it has succeeded: what was transcribed, how much text came of
/// it and which engine made it (`transcribed /talk: 12 words in 3 segments (pocketsphinx, draft)`).
package struct TranscribeReport: Sendable {
    package private(set) var paths: [String] = []
    package private(set) var words = 0
    package private(set) var segments = 0
    /// The engines that made them, each once, in the order met (a draft engine so marked).
    package private(set) var engines: [String] = []
    /// Recordings named that had a transcript already and were left.
    package var alreadyDone = 0

    package init() {}

    package mutating func add(_ transcript: Transcript, path: String) {
        paths.append(path)
        segments += transcript.segments.count
        words += transcript.segments.reduce(0) { count, segment in
            count
                + (segment.words.isEmpty
                    ? segment.text.split(whereSeparator: \.isWhitespace).count : segment.words.count)
        }
        let engine = transcript.engine + (transcript.quality == .draft ? ", draft" : "")
        if !engines.contains(engine) { engines.append(engine) }
    }

    package var line: String {
        let what = paths.count == 1 ? paths[0] : Format.count(paths.count, "recording")
        var text = "transcribed \(what)"
        if !paths.isEmpty {
            text +=
                ": \(Format.count(words, "word")) in \(Format.count(segments, "segment")) (\(engines.joined(separator: "; ")))"
        }
        if alreadyDone > 0 { text += "; \(alreadyDone) had a transcript already" }
        return text
    }
}

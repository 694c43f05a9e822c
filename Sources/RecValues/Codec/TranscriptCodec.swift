/// The transcript's JSON form, the one home of it: the file kept per recording in
/// `transcripts/<uuid>.json`, and `transcript --format json`.
/// `{"engine", "model", "language" (when known), "created", "quality", "corrected": true (when it
/// is), "segments": [{"start", "end", "text",
/// "words": [{"start", "end", "text"}]}]}`; times in seconds, "start"/"end" null when unknown.
package enum TranscriptCodec {
    package static func encode(_ transcript: Transcript) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("engine", transcript.engine)
        w.field("model", transcript.model)
        if !transcript.language.isEmpty { w.field("language", transcript.language) }
        w.field("created", transcript.created.iso8601)
        w.field("quality", transcript.quality.rawValue)
        if transcript.corrected { w.field("corrected", true) }
        w.key("segments")
        w.raw("[")
        for (i, segment) in transcript.segments.enumerated() {
            w.raw(i == 0 ? "\n  " : ",\n  ")  // a segment a line
            write(segment, to: &w)
        }
        w.raw(transcript.segments.isEmpty ? "]" : "\n]")
        w.endObject()
        w.raw("\n")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// One segment as the transcript holds it: also a line of the live words a recording's
    /// transcriber sends and keeps.
    package static func write(_ segment: Transcript.Segment, to w: inout JSONWriter) {
        w.beginObject()
        w.key("start")
        seconds(segment.start, &w)
        w.key("end")
        seconds(segment.end, &w)
        w.field("text", segment.text)
        if !segment.words.isEmpty {
            w.key("words")
            w.array(segment.words) { w, word in
                w.beginObject()
                w.key("start")
                seconds(word.start, &w)
                w.key("end")
                seconds(word.end, &w)
                w.field("text", word.text)
                w.endObject()
            }
        }
        w.endObject()
    }

    /// A segment on its own (what `write(_:to:)` wrote), or nil when `bytes` is not one.
    package static func decodeSegment(_ bytes: some Collection<UInt8>) -> Transcript.Segment? {
        Array(bytes).withUnsafeBufferPointer { buffer in
            var r = JSONReader(buffer)
            guard let segment = try? readSegment(&r), (try? r.finish()) != nil else { return nil }
            return segment
        }
    }

    /// Seconds to the millisecond, null when unknown.
    private static func seconds(_ value: Double?, _ w: inout JSONWriter) {
        guard let value else { return w.raw("null") }
        w.double((value * 1000).rounded() / 1000)
    }

    package struct Unreadable: Error, CustomStringConvertible {
        package var description: String
    }

    /// Reads what `encode` writes (and what earlier releases wrote).
    package static func decode(_ bytes: [UInt8]) throws -> Transcript {
        do {
            return try bytes.withUnsafeBufferPointer { buffer in
                var r = JSONReader(buffer)
                var transcript = Transcript(
                    engine: "", model: "", created: Timestamp(millisecondsSinceEpoch: 0), quality: .draft, segments: [])
                var seenSegments = false
                try r.beginObject()
                var first = true
                while let key = try r.nextKey(first: &first) {
                    if key.equals("engine") {
                        transcript.engine = try r.readString()
                    } else if key.equals("model") {
                        transcript.model = try r.readString()
                    } else if key.equals("language") {
                        transcript.language = try r.readString()
                    } else if key.equals("created") {
                        let text = try r.readString()
                        guard let time = Timestamp(iso8601: text) else {
                            throw Unreadable(description: "\"created\" is not a time: \(text)")
                        }
                        transcript.created = time
                    } else if key.equals("quality") {
                        let text = try r.readString()
                        transcript.quality = Transcript.Quality(rawValue: text) ?? .draft
                    } else if key.equals("corrected") {
                        transcript.corrected = try r.readBool()
                    } else if key.equals("segments") {
                        transcript.segments = try readSegments(&r)
                        seenSegments = true
                    } else {
                        try r.skipValue()
                    }
                }
                try r.finish()
                guard seenSegments else { throw Unreadable(description: "no \"segments\"") }
                return transcript
            }
        } catch let error as JSONReader.Failure {
            throw Unreadable(description: "bad JSON at line \(error.line), column \(error.column): \(error.message)")
        }
    }

    private static func optionalSeconds(_ r: inout JSONReader) throws -> Double? {
        if r.readNull() { return nil }
        let value = try r.readDouble()
        guard value >= 0, value.isFinite else { throw Unreadable(description: "a negative time") }
        return value
    }

    private static func readSegments(_ r: inout JSONReader) throws -> [Transcript.Segment] {
        var segments: [Transcript.Segment] = []
        try r.beginArray()
        var firstElement = true
        while try r.nextElement(first: &firstElement) {
            segments.append(try readSegment(&r))
        }
        return segments
    }

    private static func readSegment(_ r: inout JSONReader) throws -> Transcript.Segment {
        var segment = Transcript.Segment(start: nil, end: nil, text: "")
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            // Keys compared as bytes: a transcript has three a word.
            if key.equals("start") {
                segment.start = try optionalSeconds(&r)
            } else if key.equals("end") {
                segment.end = try optionalSeconds(&r)
            } else if key.equals("text") {
                segment.text = try r.readString()
            } else if key.equals("words") {
                try r.beginArray()
                var firstWord = true
                while try r.nextElement(first: &firstWord) {
                    var word = Transcript.Word(start: 0, end: 0, text: "")
                    try r.beginObject()
                    var firstKey = true
                    while let wordKey = try r.nextKey(first: &firstKey) {
                        if wordKey.equals("start") {
                            word.start = try optionalSeconds(&r) ?? 0
                        } else if wordKey.equals("end") {
                            word.end = try optionalSeconds(&r) ?? 0
                        } else if wordKey.equals("text") {
                            word.text = try r.readString()
                        } else {
                            try r.skipValue()
                        }
                    }
                    segment.words.append(word)
                }
            } else {
                try r.skipValue()
            }
        }
        return segment
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Where transcripts live: `transcripts/<uuid>.json` beside `audio/`, one file per
/// recording, named after the recording's UUID, in `TranscriptFormat.json` (readable with
/// jq). A file is there exactly when the recording has a transcript; it stays while the
/// recording is in the trash (the UUID does not change) and goes when the recording is
/// removed for good. `store.json` holds nothing about it, so commands that do not look at
/// transcripts never read them, and only `find --text`, `transcript`, `info` and
/// `transcribe` open this folder. See ARCHITECTURE.md for why.
public struct TranscriptFiles: Sendable {
    public let location: StoreLocation

    public init(location: StoreLocation) {
        self.location = location
    }

    public var directory: String { location.transcriptsDirectory }

    public func path(of id: ItemID) -> String { directory + "/\(id).json" }

    public func exists(_ id: ItemID) -> Bool { FileSystem.exists(path(of: id)) }

    /// The raw file, nil when the recording has none.
    public func bytes(of id: ItemID) -> [UInt8]? { try? FileSystem.read(path(of: id)) }

    /// The recording's transcript, nil when it has none; an unreadable file is an error
    /// naming it.
    public func read(_ id: ItemID) throws -> Transcript? {
        guard let bytes = try FileSystem.read(path(of: id)) else { return nil }
        do {
            return try TranscriptFiles.decode(bytes)
        } catch {
            throw RecError.failure(path(of: id), "\(error)")
        }
    }

    /// Replaces the recording's transcript atomically: a crash leaves the old one or the
    /// new one, never half of either.
    public func write(_ transcript: Transcript, for id: ItemID, duration: Double?) throws {
        try FileSystem.makeDirectories(directory)
        try FileSystem.writeAtomically(Array(TranscriptFormat.json.render(transcript, duration: duration).utf8), to: path(of: id))
    }

    public func remove(_ id: ItemID) {
        try? FileSystem.remove(path(of: id))
    }

    /// The UUIDs of every transcript file (temporary files and other names skipped).
    public func ids() -> [ItemID] {
        StoreLocation.entries(of: directory).compactMap { name in
            guard !name.hasPrefix("."), name.hasSuffix(".json") else { return nil }
            return ItemID(String(name.dropLast(5)))
        }
    }

    /// Names in the folder that are not `<uuid>.json` nor a temporary file.
    public func strangers() -> [String] {
        StoreLocation.entries(of: directory).filter { name in
            !name.hasPrefix(".") && !(name.hasSuffix(".json") && ItemID(String(name.dropLast(5))) != nil)
        }
    }

    public struct Unreadable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads what `TranscriptFormat.json` writes.
    public static func decode(_ bytes: [UInt8]) throws -> Transcript {
        do {
            return try bytes.withUnsafeBufferPointer { buffer in
                var r = JSONReader(buffer)
                var transcript = Transcript(engine: "", model: "", created: Timestamp(millisecondsSinceEpoch: 0), quality: .draft, segments: [])
                var seenSegments = false
                try r.beginObject()
                var first = true
                while let key = try r.nextKey(first: &first) {
                    switch String(decoding: key, as: UTF8.self) {
                    case "engine": transcript.engine = try r.readString()
                    case "model": transcript.model = try r.readString()
                    case "created":
                        let text = try r.readString()
                        guard let time = Timestamp(iso8601: text) else { throw Unreadable(description: "\"created\" is not a time: \(text)") }
                        transcript.created = time
                    case "quality":
                        let text = try r.readString()
                        transcript.quality = Transcript.Quality(rawValue: text) ?? .draft
                    case "segments":
                        transcript.segments = try readSegments(&r)
                        seenSegments = true
                    default: try r.skipValue()
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
            var segment = Transcript.Segment(start: nil, end: nil, text: "")
            try r.beginObject()
            var first = true
            while let key = try r.nextKey(first: &first) {
                switch String(decoding: key, as: UTF8.self) {
                case "start": segment.start = try optionalSeconds(&r)
                case "end": segment.end = try optionalSeconds(&r)
                case "text": segment.text = try r.readString()
                case "words":
                    try r.beginArray()
                    var firstWord = true
                    while try r.nextElement(first: &firstWord) {
                        var word = Transcript.Word(start: 0, end: 0, text: "")
                        try r.beginObject()
                        var firstKey = true
                        while let wordKey = try r.nextKey(first: &firstKey) {
                            switch String(decoding: wordKey, as: UTF8.self) {
                            case "start": word.start = try optionalSeconds(&r) ?? 0
                            case "end": word.end = try optionalSeconds(&r) ?? 0
                            case "text": word.text = try r.readString()
                            default: try r.skipValue()
                            }
                        }
                        segment.words.append(word)
                    }
                default: try r.skipValue()
                }
            }
            segments.append(segment)
        }
        return segments
    }
}

extension Transcript {
    /// The latest time it names (a segment's or word's end, else its start), 0 without times.
    public var lastTime: Double {
        var last = 0.0
        for segment in segments {
            last = max(last, segment.end ?? segment.start ?? 0)
            for word in segment.words { last = max(last, word.end) }
        }
        return last
    }

    /// Cut to `duration` seconds: segments that start after it go, times past it become it.
    public func clipped(to duration: Double) -> Transcript {
        var copy = self
        copy.segments = segments.compactMap { segment in
            if let start = segment.start, start > duration { return nil }
            var s = segment
            s.end = s.end.map { min($0, duration) }
            s.words = s.words.filter { $0.start <= duration }.map { Transcript.Word(start: $0.start, end: min($0.end, duration), text: $0.text) }
            return s
        }
        return copy
    }
}

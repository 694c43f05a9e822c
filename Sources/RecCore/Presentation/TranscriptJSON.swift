import RecStore
import RecValues

/// The JSON of transcripts that commands print: `info --json`'s "transcript" and
/// `transcribe --progress json`'s NDJSON events.
package enum TranscriptJSON {
    /// How many lines of a transcript `info` shows.
    package static let previewLines = 3

    /// `{"engine", "model", "quality", "created", "segments" (a count), "lines" (the first
    /// segments' text)}`, or null.
    static func writeSummary(_ transcript: Transcript?, to w: inout JSONWriter) {
        guard let transcript else { return w.raw("null") }
        w.beginObject()
        w.field("engine", transcript.engine)
        w.field("model", transcript.model)
        w.field("quality", transcript.quality.rawValue)
        w.field("created", transcript.created)
        w.field("segments", transcript.segments.count)
        w.field("lines", transcript.segments.prefix(previewLines).map(\.text))
        w.endObject()
    }

    /// One NDJSON line per event: {"event": "started", "index", "count", "path", "uuid"},
    /// {"event": "saved", "index", "path", "uuid", "engine", "quality", "segments"},
    /// {"event": "progress", "index", "path", "uuid", "done"} (the fraction of the audio decoded,
    /// about once a second of audio, built-in engine only),
    /// {"event": "skipped", "path", "uuid", "reason"}, {"event": "failed", "index", "path",
    /// "uuid", "error"}; `index` counts from 0.
    package static func event(_ event: Transcriber.Event, in library: Library) -> String {
        var w = JSONWriter()
        func item(_ item: Item) {
            w.field("path", library.document[item.id] != nil ? library.document.path(of: item.id) : item.name)
            w.field("uuid", item.id)
        }
        w.beginObject()
        switch event {
        case .started(let index, let count, let it):
            w.field("event", "started")
            w.field("index", index)
            w.field("count", count)
            item(it)
        case .progress(let index, _, let it, let done):
            w.field("event", "progress")
            w.field("index", index)
            item(it)
            w.field("done", (done * 1000).rounded() / 1000)
        case .saved(let index, let it, let transcript):
            w.field("event", "saved")
            w.field("index", index)
            item(it)
            w.field("engine", transcript.engine)
            w.field("quality", transcript.quality.rawValue)
            w.field("segments", transcript.segments.count)
        case .skipped(let it, let reason):
            w.field("event", "skipped")
            item(it)
            w.field("reason", reason)
        case .failed(let index, let it, let error):
            w.field("event", "failed")
            w.field("index", index)
            item(it)
            w.field("error", error.description)
        }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

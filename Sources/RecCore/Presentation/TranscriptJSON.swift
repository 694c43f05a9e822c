/// The JSON of transcripts that commands print: `info --json`'s "transcript" and
/// `transcribe --progress json`'s NDJSON events.
public enum TranscriptJSON {
    /// How many lines of a transcript `info` shows.
    public static let previewLines = 3

    /// `{"engine", "model", "quality", "created", "segments" (a count), "lines" (the first
    /// segments' text)}`, or null.
    static func writeSummary(_ transcript: Transcript?, to w: inout JSONWriter) {
        guard let transcript else { return w.raw("null") }
        w.raw("{\"engine\": ")
        w.string(transcript.engine)
        w.raw(", \"model\": ")
        w.string(transcript.model)
        w.raw(", \"quality\": ")
        w.string(transcript.quality.rawValue)
        w.raw(", \"created\": ")
        w.timestamp(transcript.created)
        w.raw(", \"segments\": ")
        w.int(transcript.segments.count)
        w.raw(", \"lines\": ")
        w.strings(transcript.segments.prefix(previewLines).map(\.text))
        w.raw("}")
    }

    /// One NDJSON line per event: {"event": "started", "index", "count", "path", "uuid"},
    /// {"event": "saved", "index", "path", "uuid", "engine", "quality", "segments"},
    /// {"event": "progress", "index", "path", "uuid", "done"} (the fraction of the audio decoded,
    /// about once a second of audio, built-in engine only),
    /// {"event": "skipped", "path", "uuid", "reason"}, {"event": "failed", "index", "path",
    /// "uuid", "error"}; `index` counts from 0.
    public static func event(_ event: Transcriber.Event, in library: Library) -> String {
        var w = JSONWriter()
        func item(_ item: Item) {
            w.raw(", \"path\": ")
            w.string(library.document[item.id] != nil ? library.document.path(of: item.id) : item.name)
            w.raw(", \"uuid\": ")
            w.id(item.id)
        }
        switch event {
        case .started(let index, let count, let it):
            w.raw("{\"event\": \"started\", \"index\": ")
            w.int(index)
            w.raw(", \"count\": ")
            w.int(count)
            item(it)
        case .progress(let index, _, let it, let done):
            w.raw("{\"event\": \"progress\", \"index\": ")
            w.int(index)
            item(it)
            w.raw(", \"done\": ")
            w.double((done * 1000).rounded() / 1000)
        case .saved(let index, let it, let transcript):
            w.raw("{\"event\": \"saved\", \"index\": ")
            w.int(index)
            item(it)
            w.raw(", \"engine\": ")
            w.string(transcript.engine)
            w.raw(", \"quality\": ")
            w.string(transcript.quality.rawValue)
            w.raw(", \"segments\": ")
            w.int(transcript.segments.count)
        case .skipped(let it, let reason):
            w.raw("{\"event\": \"skipped\"")
            item(it)
            w.raw(", \"reason\": ")
            w.string(reason)
        case .failed(let index, let it, let error):
            w.raw("{\"event\": \"failed\", \"index\": ")
            w.int(index)
            item(it)
            w.raw(", \"error\": ")
            w.string(error.description)
        }
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

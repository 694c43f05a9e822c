/// The JSON of `tags`, `marks` and `find` hits.
extension ItemJSON {
    /// `[{"tag": "work", "count": 3}, ...]`
    public static func tagCounts(_ counts: [(tag: String, count: Int)]) -> String {
        var w = JSONWriter()
        w.lines(counts) { w, entry in
            w.beginObject()
            w.field("tag", entry.tag)
            w.field("count", entry.count)
            w.endObject()
        }
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// `[{"index": 1, "frame": 48000, "seconds": 1.0, "label": "intro"}, ...]`
    public static func markers(_ item: Item) -> String {
        var w = JSONWriter()
        writeMarkers(item, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    static func writeMarkers(_ item: Item, to w: inout JSONWriter) {
        MarkerExport.writeList(item.annotations.markers, sampleRate: item.recording?.sampleRate ?? 1, to: &w)
    }

    /// `find --json` with text or annotation filters: each item as `ls --json` has it, plus
    /// `matches` (where the text was found: {"field": "name"}, {"field": "note", "snippet"},
    /// {"field": "marker", "index", "label", "seconds"}, {"field": "transcript", "seconds",
    /// "snippet"}) and `time` (the first marker hit's seconds, else the transcript hit's, or null): `play "$path" --seek "$time"` lands on the moment.
    public static func hits(_ hits: [SearchHit], paths: [String], location: StoreLocation) -> String {
        var w = JSONWriter()
        writeHits(hits, paths: paths, location: location, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    package static func writeHits(_ hits: [SearchHit], paths: [String], location: StoreLocation, to w: inout JSONWriter)
    {
        let audio = AudioFiles(location)
        w.raw("[")
        for (i, (hit, path)) in zip(hits, paths).enumerated() {
            w.raw(i == 0 ? "\n  " : ",\n  ")
            write(hit.item, path: path, audio: audio, to: &w) { w in writeMatches(of: hit, to: &w) }
            w.boundary()
        }
        w.raw(hits.isEmpty ? "]" : "\n]")
    }

    /// `"matches": [...], "time": t`: which fields matched, and where to start playing.
    private static func writeMatches(of hit: SearchHit, to w: inout JSONWriter) {
        // After the item's fields, which `write` puts down as text.
        w.continueObject()
        w.field("matches", hit.fields) { w, field in
            w.beginObject()
            switch field {
            case .name:
                w.field("field", "name")
            case .note(let snippet):
                w.field("field", "note")
                w.field("snippet", snippet)
            case .marker(let marker, let index, let seconds):
                w.field("field", "marker")
                w.field("index", index)
                w.field("label", marker.label)
                w.field("seconds", (seconds * 1000).rounded() / 1000)
            case .transcript(let seconds, let snippet):
                w.field("field", "transcript")
                w.field("seconds", orNull: seconds.map { ($0 * 1000).rounded() / 1000 })
                w.field("snippet", snippet)
            }
            w.endObject()
        }
        w.field("time", orNull: hit.time.map { ($0 * 1000).rounded() / 1000 })
    }
}

import RecStore
import RecValues

/// The JSON of `tags`, `marks` and `find` hits.
extension ItemJSON {
    /// `[{"tag": "work", "count": 3}, ...]`
    package static func tagCounts(_ counts: [(tag: String, count: Int)]) -> String {
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
    package static func markers(_ item: Item) -> String {
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
    package static func hits(_ hits: [SearchHit], paths: [String], location: StoreLocation) -> String {
        var w = JSONWriter()
        writeHits(hits, paths: paths, location: location, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    package static func writeHits(_ hits: [SearchHit], paths: [String], location: StoreLocation, to w: inout JSONWriter)
    {
        writeList(count: hits.count, paths: paths, location: location, matches: true, to: &w) { body in
            for (k, hit) in hits.enumerated() { body(k, hit) }
        }
    }

    /// `find --json`: with text filters each hit as `hits` writes it, else each item as
    /// `ls --json` does; written as `found` reads them (see `Finder.Found.forEachHit` for
    /// what it throws, after the hits before it are written).
    package static func writeFound(_ found: Finder.Found, matches: Bool, to w: inout JSONWriter) throws {
        try writeList(count: found.paths.count, paths: found.paths, location: found.location, matches: matches, to: &w)
        { body in try found.forEachHit(body) }
    }

    private static func writeList(
        count: Int, paths: [String], location: StoreLocation, matches: Bool, to w: inout JSONWriter,
        forEach: ((Int, SearchHit) -> Void) throws -> Void
    ) rethrows {
        let audio = AudioFiles(location)
        w.raw("[")
        try forEach { i, hit in
            w.raw(i == 0 ? "\n  " : ",\n  ")
            if matches {
                write(hit.item, path: paths[i], audio: audio, to: &w) { w in writeMatches(of: hit, to: &w) }
            } else {
                write(hit.item, path: paths[i], audio: audio, to: &w)
            }
            w.boundary()
        }
        w.raw(count == 0 ? "]" : "\n]")
    }

    /// `"matches": [...], "time": t`: which fields matched, and where to start playing.
    private static func writeMatches(of hit: SearchHit, to w: inout JSONWriter) {
        // After the item's fields, which `write` puts down as text.
        w.continueObject()
        w.key("matches")
        // A loop, not the generic `JSONWriter.array`, which runs unspecialised from here.
        w.raw("[")
        for (i, field) in hit.fields.enumerated() {
            if i > 0 { w.raw(", ") }
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
        w.raw("]")
        w.field("time", orNull: hit.time.map { ($0 * 1000).rounded() / 1000 })
    }
}

import RecStore
import RecSystem
import RecValues

/// `chapters PATH`: where a recording's subject changes (`Chapters`, over its transcript),
/// and `--apply`, which keeps them as markers labelled with their words.
package enum RecordingChapters {
    package static func of(_ item: Item, in library: Library) throws -> [Chapters.Chapter] {
        let path = library.document.path(of: item.id)
        guard item.recording != nil else { throw RecError.failure(path, "is a folder, not a recording") }
        return Chapters.of(try TranscriptFiles(location: library.location).required(item.id, path: path))
    }

    /// A chapter's marker label: its words.
    package static func label(_ chapter: Chapters.Chapter) -> String {
        String(chapter.words.joined(separator: ", ").prefix(200))
    }

    /// Whether `chapter` is among `markers` already (`--apply` made it): a marker of its label
    /// within a second of its start, at `sampleRate`.
    package static func isMarked(_ chapter: Chapters.Chapter, among markers: [Marker], sampleRate: Int) -> Bool {
        let label = label(chapter)
        let rate = Double(sampleRate)
        return markers.contains { $0.label == label && abs(Double($0.frame) / rate - chapter.start) <= 1 }
    }

    /// Adds a marker at each chapter's start (one transaction, which `undo` takes back),
    /// leaving a chapter that is marked already (`isMarked`).
    package static func apply(_ chapters: [Chapters.Chapter], to item: Item, in library: Library) throws {
        guard let info = item.recording else { return }
        if library.isReadOnly { throw library.documents.readOnlyError }
        library.documents.summary = "chapters of \(library.document.path(of: item.id)) added as markers"
        try library.documents.transaction { tx in
            for chapter in chapters {
                let markers = tx.document[item.id]?.annotations.markers ?? []
                if isMarked(chapter, among: markers, sampleRate: info.sampleRate) { continue }
                let frame = Int64((chapter.start * Double(info.sampleRate)).rounded())
                try tx.addMarker(to: item.id, Marker(frame: frame, label: label(chapter)))
            }
        }
    }

    /// `chapters --json` and the server's `/api/chapters`: `[{"start": SECONDS, "words": [...]}]`.
    package static func json(_ chapters: [Chapters.Chapter]) -> String {
        var w = JSONWriter()
        w.array(chapters) { w, chapter in
            w.beginObject()
            w.field("start", (chapter.start * 1000).rounded() / 1000)
            w.key("words")
            w.strings(chapter.words)
            w.endObject()
        }
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

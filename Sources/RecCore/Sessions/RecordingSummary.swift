import RecStore
import RecSystem
import RecTranscripts
import RecValues

/// `summarize PATH`: a recording's transcript summarized by the user's own program
/// (`Summarizer`), and with `--apply` kept as the first paragraph of its note, where `find
/// --text`, export and sync already carry notes.
package enum RecordingSummary {
    /// The first line of the note's paragraph that a summary is kept in.
    package static let prefix = "Summary: "

    /// What `summarizer` makes of `item`'s transcript; a recording without one is refused
    /// before the summarizer runs.
    package static func summary(of item: Item, in library: Library, by summarizer: Summarizer) throws -> String {
        let path = library.document.path(of: item.id)
        guard item.recording != nil else { throw RecError.failure(path, "is a folder, not a recording") }
        let transcript = try TranscriptFiles(location: library.location).required(item.id, path: path)
        guard transcript.segments.contains(where: { !$0.text.isEmpty }) else {
            throw RecError.failure(path, "its transcript is empty: there is nothing to summarize")
        }
        return try summarizer.summarize(TranscriptFormat.timedLines(transcript))
    }

    /// `note` with `summary` as its first paragraph: in place of the summary it has (the
    /// paragraph that starts with `prefix`, up to the first blank line), else before the rest.
    package static func note(_ note: String, with summary: String) -> String {
        let paragraph = prefix + summary
        var rest = Substring(note)
        if rest.hasPrefix(prefix) {
            if let blank = rest.firstRange(of: "\n\n") {
                rest = rest[blank.upperBound...]
            } else {
                rest = ""
            }
        }
        while rest.first == "\n" { rest = rest.dropFirst() }
        return rest.isEmpty ? paragraph : paragraph + "\n\n" + rest
    }

    /// Keeps `summary` in `item`'s note (one transaction, which `undo` takes back).
    package static func apply(_ summary: String, to item: Item, in library: Library) throws {
        if library.isReadOnly { throw library.documents.readOnlyError }
        let path = library.document.path(of: item.id)
        library.documents.summary = "summary of \(path) kept in its note"
        try library.documents.transaction { tx in
            let current = tx.document[item.id]?.annotations.note ?? item.annotations.note
            _ = try tx.setNote(note(current, with: summary), at: path, from: .root)
        }
    }
}

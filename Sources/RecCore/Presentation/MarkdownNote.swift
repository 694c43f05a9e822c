import RecStore
import RecSystem
import RecValues

/// `export PATH --markdown`: a recording as a Markdown note for Obsidian, Logseq or any folder
/// of Markdown: YAML front matter (name, date, duration, tags, uuid), its name as the title,
/// the audio, its note, then its transcript in paragraphs, each after its time, with its
/// markers and chapters as headings where they fall. Below a last line of its own, what the user writes
/// is theirs: writing the file again keeps it (`merged`).
package enum MarkdownNote {
    package struct Options: Sendable {
        /// Times link to the served page, `BASE/r/UUID#t=SECONDS`; plain `[mm:ss]` without.
        package var linkBase: String?
        /// Obsidian's `![[file]]` for the audio, rather than Markdown's `![name](file)`.
        package var wikilinks = false
        /// The audio's file beside the note, when it was copied there.
        package var audioFile: String?
        /// Where the subject changes (`Chapters`, when it changes at all) is a heading too,
        /// labelled with the chapter's words, unless a marker of that label (`chapters --apply`)
        /// is already there.
        package var chapters = true

        package init(linkBase: String? = nil, wikilinks: Bool = false, audioFile: String? = nil, chapters: Bool = true)
        {
            self.linkBase = linkBase
            self.wikilinks = wikilinks
            self.audioFile = audioFile
            self.chapters = chapters
        }
    }

    /// The line after which the file is the user's.
    package static let keptBelow =
        "<!-- recnotes: what you write below this line is kept when the note is written again -->"

    /// A new paragraph starts after a pause this long, or after this many segments.
    static let paragraphPause = 2.0
    static let paragraphSegments = 6

    package static func render(_ item: Item, transcript: Transcript?, options: Options) -> String {
        let info = item.recording
        var out = "---\n"
        out += "name: \(quoted(item.name))\n"
        out += "date: \(item.created.iso8601)\n"
        if let info { out += "duration: \(quoted(Format.duration(info.duration)))\n" }
        out += "tags: [\(item.annotations.tags.map(quoted).joined(separator: ", "))]\n"
        out += "uuid: \(item.id)\n"
        out += "---\n\n# \(item.name)\n\n"
        if let audio = options.audioFile {
            out += options.wikilinks ? "![[\(audio)]]\n\n" : "![\(item.name)](\(linkTarget(audio)))\n\n"
        } else if let base = options.linkBase {
            out += "[Listen](\(pageLink(base, item.id, nil)))\n\n"
        }
        let note = item.annotations.note.trimmingNewlines()
        if !note.isEmpty { out += note + "\n\n" }
        let rate = Double(info?.sampleRate ?? 48_000)
        var markers = item.annotations.markers.sorted { $0.frame < $1.frame }.map {
            (seconds: Double($0.frame) / rate, label: $0.label)
        }
        if options.chapters, let transcript, case let chapters = Chapters.of(transcript, atLeast: 2), !chapters.isEmpty
        {
            for chapter in chapters
            where !RecordingChapters.isMarked(
                chapter, among: item.annotations.markers, sampleRate: info?.sampleRate ?? 48_000)
            {
                markers.append((chapter.start, RecordingChapters.label(chapter)))
            }
            markers.sort { $0.seconds < $1.seconds }
        }
        func time(_ seconds: Double) -> String {
            let shown = "[\(clock(seconds))]"
            guard let base = options.linkBase else { return shown }
            return "\(shown)(\(pageLink(base, item.id, seconds)))"
        }
        // A marker's time is the paragraph's after it, unless the speech starts later.
        func headings(before seconds: Double?) {
            while let marker = markers.first, seconds.map({ marker.seconds <= $0 }) ?? true {
                markers.removeFirst()
                let label = marker.label.isEmpty ? "Marker" : marker.label
                out += "## \(label)\n\n"
                if seconds.map({ $0 - marker.seconds >= 2 }) ?? true { out += time(marker.seconds) + "\n\n" }
            }
        }
        var paragraph: [Transcript.Segment] = []
        func endParagraph() {
            guard let first = paragraph.first else { return }
            let text = paragraph.map(\.text).filter { !$0.isEmpty }.joined(separator: " ")
            out += (first.start.map { time($0) + " " } ?? "") + text + "\n\n"
            paragraph = []
        }
        for segment in transcript?.segments ?? [] where !segment.text.isEmpty {
            let start = segment.start
            var pause = 0.0
            if let end = paragraph.last?.end ?? nil, let start { pause = start - end }
            let markerFalls = start.map { s in markers.first.map { $0.seconds <= s } ?? false } ?? false
            if markerFalls || pause >= paragraphPause || paragraph.count >= paragraphSegments { endParagraph() }
            if markerFalls { headings(before: start) }
            paragraph.append(segment)
        }
        endParagraph()
        headings(before: nil)
        out += keptBelow + "\n"
        return out
    }

    /// `new` with what the user wrote below `keptBelow` in `existing`; nil when `existing`
    /// is not a note this wrote (it has no such line), so that it is not written over.
    package static func merged(_ new: String, over existing: String) -> String? {
        let lines = existing.split(separator: "\n", omittingEmptySubsequences: false)
        guard let line = lines.firstIndex(where: { $0 == keptBelow }) else { return nil }
        return new + lines[(line + 1)...].joined(separator: "\n")
    }

    /// A name a note's file can have: `/` and what a file system or a wiki link refuses
    /// become `-`.
    package static func fileName(_ name: String) -> String {
        let refused: Set<Character> = ["/", "\\", ":", "*", "?", "\"", "<", ">", "|", "#", "^", "[", "]"]
        let cleaned = String(name.map { refused.contains($0) || $0.isNewline ? "-" : $0 })
        return cleaned.hasPrefix(".") ? "-" + cleaned.dropFirst() : cleaned
    }

    /// `01:23`, or `1:02:03` from an hour on: a moment, to the second.
    static func clock(_ seconds: Double) -> String {
        let shown = Format.clock(seconds)
        return shown.hasPrefix("00:")
            ? String(shown.dropFirst(3)) : shown.first == "0" ? String(shown.dropFirst()) : shown
    }

    static func pageLink(_ base: String, _ id: ItemID, _ seconds: Double?) -> String {
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard let seconds else { return "\(root)/r/\(id)" }
        let tenths = (seconds * 10).rounded() / 10
        let shown = tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
        return "\(root)/r/\(id)#t=\(shown)"
    }

    /// A Markdown link target with its spaces escaped.
    static func linkTarget(_ file: String) -> String { file.replacingSpaces() }

    /// A YAML string: JSON's quoting, which YAML reads as it is.
    static func quoted(_ text: String) -> String {
        var w = JSONWriter()
        w.string(text)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingNewlines() -> String {
        var text = Substring(self)
        while text.last?.isNewline == true || text.last == " " { text = text.dropLast() }
        while text.first?.isNewline == true { text = text.dropFirst() }
        return String(text)
    }

    fileprivate func replacingSpaces() -> String {
        var out = ""
        for character in self { out += character == " " ? "%20" : String(character) }
        return out
    }
}

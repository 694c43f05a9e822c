import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Where transcripts live: `transcripts/<uuid>.json` beside `audio/`, one file per
/// recording, named after the recording's UUID, in `TranscriptFormat.json` (readable with
/// jq). A file is there exactly when the recording has a transcript; it stays while the
/// recording is in the trash (the UUID does not change) and goes when the recording is
/// removed for good. `store.json` holds nothing about it, so commands that do not look at
/// transcripts never read them. See docs/design/code-map.md for why.
///
/// Beside each, `<uuid>.txt` is its search index, derived from the JSON and written after
/// it: one line per segment, `START<TAB>TEXT`, START in seconds (empty when unknown). It
/// holds a few bytes a line more than the text itself (the JSON's word times make that
/// several times bigger), so `find --text` reads about what grep would over the same text
/// as plain files; only for a hit does it read the JSON, for the word's own time.
/// `fsck` rebuilds an index that is missing or out of date.
package struct TranscriptFiles: Sendable {
    package let location: StoreLocation

    package init(location: StoreLocation) {
        self.location = location
    }

    package var directory: String { location.transcriptsDirectory }

    package func path(of id: ItemID) -> String { directory + "/\(id).json" }

    package func indexPath(of id: ItemID) -> String { directory + "/\(id).txt" }

    /// The search index of the recording's transcript, nil when it has none.
    package func indexBytes(of id: ItemID) -> [UInt8]? { try? FileSystem.read(indexPath(of: id)) }

    /// `indexBytes(of:)` for one recording after another, as `find --text` reads them: each
    /// opened by its name in the directory, which is opened once (and, when there is none,
    /// no index is looked for at all).
    final class IndexReader {
        private let directory: OpenFile?

        init(_ files: TranscriptFiles) { directory = OpenFile(files.directory, O_RDONLY | O_DIRECTORY) }

        func indexBytes(of id: ItemID) -> [UInt8]? {
            directory?.withDescriptor { try? FileSystem.read("\(id).txt", relativeTo: $0) } ?? nil
        }

        /// The identity of the recording's index file, nil when it has none.
        func indexIdentity(of id: ItemID) -> FileIdentity? {
            guard let directory else { return nil }
            var info = stat()
            guard directory.withDescriptor({ fstatat($0, "\(id).txt", &info, 0) }) == 0 else { return nil }
            return FileIdentity(info)
        }
    }

    package func exists(_ id: ItemID) -> Bool { FileSystem.exists(path(of: id)) }

    /// The raw file, nil when the recording has none.
    package func bytes(of id: ItemID) -> [UInt8]? { try? FileSystem.read(path(of: id)) }

    /// The recording's transcript, nil when it has none; an unreadable file is an error
    /// naming it.
    package func read(_ id: ItemID) throws -> Transcript? {
        guard let bytes = try FileSystem.read(path(of: id)) else { return nil }
        do {
            return try TranscriptCodec.decode(bytes)
        } catch {
            throw RecError.failure(path(of: id), "\(error)")
        }
    }

    /// The recording's transcript; a recording without one is an error that says how to
    /// make it (`path` as the user typed it).
    package func required(_ id: ItemID, path: String) throws -> Transcript {
        guard let transcript = try read(id) else {
            throw RecError.failure(path, "has no transcript; run 'recnotes transcribe \(Format.shellQuoted(path))'")
        }
        return transcript
    }

    /// Replaces the recording's transcript atomically: a crash leaves the old one or the
    /// new one, never half of either.
    package func write(_ transcript: Transcript, for id: ItemID, duration: Double?) throws {
        try FileSystem.makeDirectories(directory)
        try FileSystem.writeAtomically(
            Array(TranscriptCodec.encode(transcript).utf8), to: path(of: id))
        try FileSystem.writeAtomically(Self.index(transcript), to: indexPath(of: id))
    }

    /// The index first: a crash in between leaves a transcript without an index (which
    /// fsck rebuilds), never an index that finds a transcript that is gone.
    package func remove(_ id: ItemID) {
        try? FileSystem.remove(indexPath(of: id))
        try? FileSystem.remove(path(of: id))
    }

    /// Where a transcript that `transcribe` replaced is kept, so that `undo` can put it
    /// back: `undo/<uuid>.<n>.json` beside the journal (not in `transcripts/`, which holds
    /// only what recordings have now), named in the journal entry that replaced it, and
    /// removed when that entry is undone or trimmed from the journal.
    package var undoDirectory: String { location.undoDirectory }

    /// Keeps a copy of the recording's transcript for undo before it is replaced; the name
    /// of the copy, nil when there is no transcript to keep.
    package func keepForUndo(_ id: ItemID) throws -> String? {
        guard let bytes = try FileSystem.read(path(of: id)) else { return nil }
        try FileSystem.makeDirectories(undoDirectory)
        var number = 1
        while isKept("\(id).\(number).json") { number += 1 }
        let name = "\(id).\(number).json"
        try FileSystem.writeAtomically(bytes, to: undoDirectory + "/" + name)
        return name
    }

    package func isKept(_ name: String) -> Bool { FileSystem.exists(undoDirectory + "/" + name) }

    /// Whether `name` can be one `keepForUndo` made: a plain name in `undo/`, so that a
    /// damaged or hand-edited journal never has undo read or delete a file elsewhere.
    static func isKeptName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.contains("/")
    }

    /// Makes the kept copy `name` the recording's transcript again, index and all, and
    /// lets the copy go.
    func putBack(kept name: String, for id: ItemID) throws {
        let kept = undoDirectory + "/" + name
        guard let bytes = try FileSystem.read(kept) else { throw RecError.failure(kept, "the kept transcript is gone") }
        let transcript: Transcript
        do {
            transcript = try TranscriptCodec.decode(bytes)
        } catch {
            throw RecError.failure(kept, "\(error)")
        }
        try FileSystem.makeDirectories(directory)
        try FileSystem.writeAtomically(bytes, to: path(of: id))
        try FileSystem.writeAtomically(Self.index(transcript), to: indexPath(of: id))
        discardKept(name)
    }

    package func discardKept(_ name: String) {
        try? FileSystem.remove(undoDirectory + "/" + name)
    }

    /// The search index of `transcript` (see the type's comment).
    package static func index(_ transcript: Transcript) -> [UInt8] {
        var out: [UInt8] = []
        func seconds(_ value: Double) {
            out += Array(String((value * 1000).rounded() / 1000).utf8)
        }
        for segment in transcript.segments {
            if let start = segment.start { seconds(start) }
            out.append(0x09)
            // Same length: byte offsets into the line's text are offsets into the segment's.
            out += Array(segment.text.utf8).map { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
            out.append(0x0A)
        }
        return out
    }

    /// When the word at byte `offset` of the segment's text starts: the last timed word
    /// found in the text at or before it; nil without word times.
    package static func wordStart(in segment: Transcript.Segment, atByte offset: Int) -> Double? {
        let text = Array(segment.text.utf8)
        var from = 0
        var start: Double?
        for word in segment.words {
            let needle = Array(word.text.utf8)
            guard !needle.isEmpty, let at = find(needle, in: text, from: from) else { continue }
            if at > offset { break }
            start = word.start
            from = at + needle.count
        }
        return start
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count <= haystack.count - from else { return nil }
        var i = from
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The UUIDs of every transcript file (temporary files and other names skipped).
    package func ids() -> [ItemID] {
        FileSystem.entries(of: directory).compactMap { name in
            guard !name.hasPrefix("."), name.hasSuffix(".json") else { return nil }
            return ItemID(String(name.dropLast(5)))
        }
    }

    /// Index files (`<uuid>.txt`) without their transcript.
    package func orphanIndexes() -> [String] {
        let transcripts = Set(ids())
        return FileSystem.entries(of: directory).filter { name in
            guard !name.hasPrefix("."), name.hasSuffix(".txt"), let id = ItemID(String(name.dropLast(4))) else {
                return false
            }
            return !transcripts.contains(id)
        }
    }
}

extension Transcript {
    /// The latest time it names (a segment's or word's end, else its start), 0 without times.
    package var lastTime: Double {
        var last = 0.0
        for segment in segments {
            last = max(last, segment.end ?? segment.start ?? 0)
            for word in segment.words { last = max(last, word.end) }
        }
        return last
    }

    /// The part from `start` to `end` seconds, timed from `start`, as audio exported between
    /// trim points plays it: what lies wholly outside goes, times move back by `start` and
    /// stay within the part. A segment without times is kept (nothing says where it lies).
    package func trimmed(from start: Double, to end: Double) -> Transcript {
        func moved(_ time: Double) -> Double { min(max(time - start, 0), end - start) }
        var copy = self
        copy.segments = segments.compactMap { segment in
            if let from = segment.start, from >= end { return nil }
            if let to = segment.end, to <= start { return nil }
            var s = segment
            s.start = s.start.map(moved)
            s.end = s.end.map(moved)
            s.words = s.words.filter { $0.end > start && $0.start < end }
                .map { Transcript.Word(start: moved($0.start), end: moved($0.end), text: $0.text) }
            return s
        }
        return copy
    }

    /// Cut to `duration` seconds: segments that start after it go, times past it become it.
    package func clipped(to duration: Double) -> Transcript {
        var copy = self
        copy.segments = segments.compactMap { segment in
            if let start = segment.start, start > duration { return nil }
            var s = segment
            s.end = s.end.map { min($0, duration) }
            s.words = s.words.filter { $0.start <= duration }.map {
                Transcript.Word(start: $0.start, end: min($0.end, duration), text: $0.text)
            }
            return s
        }
        return copy
    }
}

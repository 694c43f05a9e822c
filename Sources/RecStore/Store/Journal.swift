import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The history of changes to the document store, newest last, in `journal.jsonl` beside
/// `store.json`: one JSON object per line, appended under the store lock after the store
/// itself is safely written. It is bounded and safe to lose: without it only `undo` and
/// `history` have less to go on; the documents are all in `store.json`.
package struct Journal {
    /// How to take one change back.
    package enum Step: Equatable, Sendable {
        /// `placement` is where the item was put, kept so that `fsck --repair` can rebuild a
        /// lost `store.json`; journals written before it was recorded have none.
        case added(ItemID, Placement? = nil)
        case moved(ItemID, fromParent: ItemID, fromName: String, toParent: ItemID, toName: String)
        case trashed(ItemID)
        case removedPermanently(ItemID, path: String)
        case restored(ItemID, Placement? = nil)
        /// A note, tags or markers changed from `before` to `after`.
        case annotated(ItemID, before: Annotations, after: Annotations)
        /// `transcribe` saved the recording's transcript. `replaced` names the file in
        /// `TranscriptFiles.undoDirectory` that keeps the transcript it replaced; nil when
        /// the recording had none. Not a change to `store.json`: only the journal has it.
        case transcribed(ItemID, replaced: String?)

        /// The item the step is about.
        package var id: ItemID {
            switch self {
            case .added(let id, _), .moved(let id, _, _, _, _), .trashed(let id), .removedPermanently(let id, _),
                .restored(let id, _),
                .annotated(let id, _, _), .transcribed(let id, _):
                return id
            }
        }
    }

    /// Where an added or restored item was put, and what it is.
    package struct Placement: Equatable, Sendable {
        package var parent: ItemID
        package var name: String
        package var kind: ItemKind
        package var created: Timestamp

        package init(parent: ItemID, name: String, kind: ItemKind, created: Timestamp) {
            self.parent = parent
            self.name = name
            self.kind = kind
            self.created = created
        }
    }

    package struct Entry: Equatable, Sendable {
        package var sequence: Int
        package var time: Timestamp
        /// The command line that made the change (`recnotes browse` for all of browse's).
        package var summary: String
        package var steps: [Step]
        /// What changed, and to which items, as it was when the change was made:
        /// `rename /Ideas/a → /Ideas/b`, `trash /Old`, `tags on /Ideas/b: +budget` (see
        /// `describe`). Entries written before it was recorded have none.
        package var change: String? = nil
    }

    /// Entries kept after trimming, and the count that triggers a trim.
    static let keep = 200
    static let trimAt = 400

    package let location: StoreLocation
    package var path: String { location.directory + "/journal.jsonl" }

    package init(location: StoreLocation) {
        self.location = location
    }

    /// Every entry that parses, oldest first; a damaged line is skipped.
    package func entries() -> [Entry] {
        guard let bytes = try? FileSystem.read(path) else { return [] }
        return bytes.withUnsafeBufferPointer { buffer in
            Self.lines(buffer).compactMap { try? JournalCodec.decode(UnsafeBufferPointer(rebasing: buffer[$0])) }
        }
    }

    /// The non-empty lines of `buffer`, found with memchr: `split` calls its closure for each
    /// byte, which costs more than the rest of reading a long journal.
    private static func lines(_ buffer: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        guard let base = buffer.baseAddress else { return [] }
        var lines: [Range<Int>] = []
        var start = 0
        while start < buffer.count {
            let end =
                memchr(base + start, 0x0A, buffer.count - start).map {
                    UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0))
                } ?? buffer.count
            if end > start { lines.append(start..<end) }
            start = end + 1
        }
        return lines
    }

    /// What numbering a new entry needs, without decoding every entry: the journal's number of
    /// lines (no fewer than `entries()` has: a damaged line is counted here, skipped there) and
    /// its last entry that parses. Decoding all of a used store's hundreds of entries cost a
    /// change as much as the rest of its work.
    func tail() -> (lines: Int, last: Entry?) {
        guard let bytes = try? FileSystem.read(path) else { return (0, nil) }
        return bytes.withUnsafeBufferPointer { buffer in
            let lines = Self.lines(buffer)
            for line in lines.reversed() {
                if let parsed = try? JournalCodec.decode(UnsafeBufferPointer(rebasing: buffer[line])) {
                    return (lines.count, parsed)
                }
            }
            return (lines.count, nil)
        }
    }

    /// Appends the transaction's steps, and what they changed as `before` becomes the
    /// transaction's document. Failures are ignored: the change itself is saved.
    func record(_ transaction: DocumentStore.Transaction, summary: String, before: Document) {
        guard transaction.journaled, !transaction.steps.isEmpty else { return }
        let (lines, last) = tail()
        let entry = Entry(
            sequence: (last?.sequence ?? 0) + 1, time: .now(), summary: summary, steps: transaction.steps,
            change: Entry.describe(transaction.steps, before: before, after: transaction.document))
        // Only a journal that may be due for its trim is decoded whole: its lines are at least its entries.
        if lines + 1 >= Journal.trimAt, case let existing = entries(), existing.count + 1 >= Journal.trimAt {
            let kept = Array(existing.suffix(Journal.keep - 1)) + [entry]
            rewrite(kept)
            // What the dropped entries kept for undo can no longer be undone to.
            let transcripts = TranscriptFiles(location: location)
            for name in Set(existing.dropLast(Journal.keep - 1).flatMap(\.keptTranscripts)) {
                transcripts.discardKept(name)
            }
            return
        }
        FileSystem.append(JournalCodec.encode(entry), to: path)
    }

    /// A sync's entry: what came in and went out (`change`), and no steps, since `undo`
    /// never takes back what a sync brought in. Failures are ignored, as in `record`.
    @discardableResult
    package func recordSync(summary: String, change: String) -> Int {
        let entry = Entry(
            sequence: (tail().last?.sequence ?? 0) + 1, time: .now(), summary: summary, steps: [], change: change)
        FileSystem.append(JournalCodec.encode(entry), to: path)
        return entry.sequence
    }

    /// A sync's entry said again once the sync has done more (moved audio after it pushed):
    /// the journal is written whole, so a kill leaves the entry as it was or as it is now.
    package func amendSync(_ sequence: Int, change: String) {
        var existing = entries()
        guard let index = existing.lastIndex(where: { $0.sequence == sequence && $0.isSync }) else { return }
        existing[index].change = change
        rewrite(existing)
    }

    /// Drops the entry numbered `sequence` (the newest when nil), after it has been undone.
    func drop(_ sequence: Int?) {
        var existing = entries()
        guard let index = sequence.map({ s in existing.lastIndex { $0.sequence == s } }) ?? existing.indices.last
        else { return }
        existing.remove(at: index)
        rewrite(existing)
    }

    private func rewrite(_ entries: [Entry]) {
        try? FileSystem.writeAtomically(entries.flatMap(JournalCodec.encode), to: path)
    }
}

extension DocumentStore {
    /// What `undo` took back (or, with `dryRun`, would take back).
    package struct Undone: Equatable, Sendable {
        package var entry: Journal.Entry
        /// The change as `undo` reports it, e.g. `record /Work/Standups/monday`.
        package var change: String
    }

    /// Takes back the newest journaled change, if nothing since conflicts with it. With
    /// `dryRun` every check is made and nothing is changed.
    @discardableResult
    package func undo(dryRun: Bool = false) throws -> Undone {
        struct Preview: Error {}
        let journal = self.journal
        var undone: Undone?
        do {
            try transaction { tx in
                // Read under the lock, so two undos never take back the same change. A sync
                // is passed over: what it brought in is never taken back, but this machine's
                // own change from before it is, unless what came in has changed the same
                // items since (the steps' checks refuse then, naming what changed).
                guard let entry = journal.entries().last(where: { !$0.isSync }) else {
                    throw RecError.failure("undo", "nothing to undo")
                }
                let change = entry.change(in: tx.document)
                try tx.undo(entry)
                tx.undoneSequence = entry.sequence
                for case (_, let replaced?) in tx.transcriptsToPutBack
                where !TranscriptFiles(location: location).isKept(replaced) {
                    throw RecError.failure(
                        "undo", "cannot undo '\(entry.summary)': the transcript it replaced is no longer kept")
                }
                undone = Undone(entry: entry, change: change)
                // Throwing out of the transaction discards the change, unsaved and unannounced.
                if dryRun { throw Preview() }
            }
        } catch is Preview {}
        guard let undone else { throw RecError.failure("undo", "nothing to undo") }
        return undone
    }
}

extension Journal.Entry {
    /// Written by `recordSync`: a sync, which undo refuses.
    package var isSync: Bool { steps.isEmpty && summary.hasPrefix("recnotes sync") }

    /// What the entry changed, for people: as recorded when it was made, or, for an entry
    /// written before that was, described now from its steps, with paths as they are in
    /// `document`.
    package func change(in document: Document) -> String {
        change ?? Self.describe(steps, before: document, after: document)
    }

    /// The one description of a change, from its steps (what the store's actions were), so
    /// that every front end's changes read alike: `mkdir /Work`, `add /Work/monday`,
    /// `rename /Work/a → /Work/b`, `move /Work/a → /Job/a`, `trash /Old`, `delete /Old`,
    /// `restore /Old`, `tags on /Work/a: +budget −q3`, `note on /Work/a`, `markers on
    /// /Work/a: +1`, `trim /Work/a`, `transcribe /Work/a`. Paths come from `before` for what
    /// an item was, `after` for what it became. Steps of one kind are listed together (at
    /// most three paths, an item inside a listed folder not again); kinds are joined by "; ".
    package static func describe(_ steps: [Journal.Step], before: Document, after: Document) -> String {
        func path(_ id: ItemID, in document: Document) -> String {
            if document[id] != nil { return document.path(of: id) }
            if let other = [before, after].first(where: { $0[id] != nil }) { return other.path(of: id) }
            return "@\(id.description.prefix(8))"
        }
        func join(_ parent: ItemID, _ name: String, in document: Document) -> String {
            let base = path(parent, in: document)
            return (base == "/" ? "" : base) + "/" + name
        }
        // Each verb (and what it did to all of them) with its paths, in the order first met.
        var groups: [(verb: String, detail: String, paths: [String])] = []
        func add(_ verb: String, _ path: String, _ detail: String = "") {
            if let i = groups.firstIndex(where: { $0.verb == verb && $0.detail == detail }) {
                groups[i].paths.append(path)
            } else {
                groups.append((verb, detail, [path]))
            }
        }
        let added = Set(steps.compactMap { step -> ItemID? in if case .added(let id, _) = step { id } else { nil } })
        for step in steps {
            switch step {
            case .added(let id, let placement):
                let isFolder = (after[id] ?? before[id])?.isFolder ?? (placement?.kind == .folder)
                add(isFolder ? "mkdir" : "add", path(id, in: after))
            case .restored(let id, _):
                add("restore", path(id, in: after))
            case .moved(let id, let fromParent, let fromName, let toParent, let toName):
                let from = join(fromParent, fromName, in: before)
                let to = join(toParent, toName, in: after)
                add(fromParent == toParent ? "rename" : "move", "\(from) → \(to)")
            case .trashed(let id):
                add("trash", after.trashEntry(id)?.path ?? path(id, in: before))
            case .removedPermanently(_, let removed):
                add("delete", removed)
            case .annotated(let id, let old, let new):
                // What an item was born with (a recording's markers) is part of adding it.
                if added.contains(id) && old.isEmpty { continue }
                let (what, detail) = annotationChange(from: old, to: new)
                add(what, path(id, in: after), detail)
            case .transcribed(let id, _):
                add("transcribe", path(id, in: after))
            }
        }
        let described = groups.map { group -> String in
            let shown = group.paths.filter { candidate in
                !group.paths.contains { candidate != $0 && candidate.hasPrefix($0 == "/" ? "/" : $0 + "/") }
            }
            let listed = shown.prefix(3).joined(separator: " ")
            let more = shown.count > 3 ? " and \(shown.count - 3) more" : ""
            return "\(group.verb) \(listed)\(more)\(group.detail)"
        }
        return described.isEmpty ? "change" : described.joined(separator: "; ")
    }

    /// `level on`, `level off, denoise on`: the flags that changed, as they are now.
    private static func enhancementChange(from old: Enhancement, to new: Enhancement) -> String {
        var changed: [String] = []
        if old.level != new.level { changed.append("level \(new.level ? "on" : "off")") }
        if old.denoise != new.denoise { changed.append("denoise \(new.denoise ? "on" : "off")") }
        return changed.joined(separator: ", ")
    }

    /// `("tags on", ": +budget −q3")`, `("note and markers on", "")`, `("trim", "")`: which of
    /// an item's annotations changed, and for tags and markers how.
    private static func annotationChange(from old: Annotations, to new: Annotations) -> (String, String) {
        var fields: [String] = []
        var detail = ""
        if old.note != new.note { fields.append("note") }
        if old.tags != new.tags {
            fields.append("tags")
            let added = new.tags.filter { !old.tags.contains($0) }.map { "+" + $0 }
            let removed = old.tags.filter { !new.tags.contains($0) }.map { "−" + $0 }
            detail = ": " + (added + removed).joined(separator: " ")
        }
        if old.markers != new.markers {
            fields.append("markers")
            if fields.count == 1 {
                let change = new.markers.count - old.markers.count
                detail = change > 0 ? ": +\(change)" : change < 0 ? ": −\(-change)" : ""
            }
        }
        if old.trim != new.trim {
            if fields.isEmpty && old.enhance == new.enhance {
                return (new.trim == nil ? "clear trim of" : "trim", "")
            }
            fields.append("trim points")
        }
        if old.enhance != new.enhance {
            if fields.isEmpty { return ("enhance", ": " + enhancementChange(from: old.enhance, to: new.enhance)) }
            fields.append("enhancement")
        }
        if fields.count > 1 { detail = "" }
        let named =
            fields.count > 1
            ? fields.dropLast().joined(separator: ", ") + " and " + fields.last! : fields.first ?? "notes"
        return ("\(named) on", detail)
    }
}

extension DocumentStore.Transaction {
    mutating func undo(_ entry: Journal.Entry) throws {
        journaled = false
        let what = "cannot undo '\(entry.summary)'"
        func conflict(_ why: String) -> RecError { RecError.failure("undo", "\(what): \(why)") }
        for step in entry.steps.reversed() {
            switch step {
            case .added(let id, _), .restored(let id, _):
                guard let item = document[id] else {
                    throw conflict("@\(id.description.prefix(8)) has since been removed")
                }
                // An empty folder holds nothing worth keeping; anything else goes to the trash.
                try remove(id, permanently: item.isFolder && item.children.isEmpty)
            case .moved(let id, let fromParent, let fromName, let toParent, let toName):
                guard let item = document[id] else {
                    throw conflict("@\(id.description.prefix(8)) has since been removed")
                }
                guard item.parent == toParent, item.name == toName else {
                    throw conflict("\(document.path(of: id)) has since been moved or renamed")
                }
                do {
                    try move(id, into: fromParent, name: fromName)
                } catch let error as RecError {
                    throw conflict("\(error.description)")
                }
            case .trashed(let id):
                guard document.trashEntry(id) != nil else { throw conflict("the trash has been emptied since") }
                do {
                    try restore(id)
                } catch let error as RecError {
                    throw conflict(error.description)
                }
            case .removedPermanently(_, let path):
                throw conflict("\(path) was removed permanently")
            case .annotated(let id, let before, let after):
                guard let item = document[id] else {
                    throw conflict("@\(id.description.prefix(8)) has since been removed")
                }
                guard item.annotations == after else {
                    throw conflict(
                        "the notes, tags, markers, trim points or enhancement of \(document.path(of: id)) have changed since"
                    )
                }
                try annotate(id, with: before)
            case .transcribed(let id, let replaced):
                let trashed = document.trash.contains { $0.items.contains { $0.id == id } }
                guard document[id] != nil || trashed else {
                    throw conflict("@\(id.description.prefix(8)) has since been removed")
                }
                transcriptsToPutBack.append((id, replaced))
            }
        }
        steps = []
    }
}

extension Journal.Entry {
    /// The files this entry keeps in `TranscriptFiles.undoDirectory`.
    var keptTranscripts: [String] {
        steps.compactMap { step in
            if case .transcribed(_, let replaced?) = step { return replaced }
            return nil
        }
    }
}

import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `find`'s index (issues 12 and 13): what its filters look at, so that a search reads one
/// or two files instead of parsing `store.json` and opening a transcript per recording.
///
/// Two files under `cache/`, each derived from one source and naming it:
/// - `ItemIndex` (`cache/find-items`), from `store.json`: every item under the root in
///   the order `find` lists them (so a folder's subtree is one run of positions), with its
///   kind, creation time, length, tags, path, and its name, note and marker labels folded
///   as search compares them, and where its object lies in `store.json`;
/// - `TranscriptIndex` (`cache/find-transcripts`), from `transcripts/`: each transcript's
///   search index (`TranscriptFiles.index`), its lines folded.
///
/// Neither is ever the truth. A file whose source has changed since (`SourceIdentity`), or
/// that cannot be read, is ignored: `find` makes it again (`Finder`, `SearchIndexFiles`)
/// and searches that. Deleting `cache/` loses nothing. The store keeps the items' index
/// current itself when it writes `store.json` whole (`SearchIndexFiles.storeWritten`); a
/// change spliced through the reads' table logs what it changed instead (`ItemIndexLog`),
/// and the next search patches the index from that (`ItemIndex.caughtUp`). Either way the
/// first search after a change does not open the store.
///
/// Search on the index is exact, not a first pass: each field's folded text ends with a NUL
/// (an item's) or a line feed (a transcript's lines), and no word from the command line can
/// hold either, so a word found in the run of them is found in one field, as
/// `SearchQuery.match` finds it. Where a hit matched is worked out by `match` itself, on
/// the item decoded from its place in `store.json`.
struct ItemIndex {
    var source: SourceIdentity
    /// `ContentHash` of the `store.json` it was made from: checked when `source` is
    /// `.recent`, whose identity alone does not prove the file unchanged.
    var contentHash: UInt64
    var items: [IndexedItem]
    /// Names, paths and tags, as UTF-8.
    var strings: [UInt8]
    /// Each item's folded name, note and labels, each followed by a NUL, item after item.
    var text: [UInt8]

    /// The position of `id`, nil when it is not under the root.
    func position(of id: ItemID) -> Int? {
        items.firstIndex { $0.id == id }
    }

    func path(at position: Int) -> String {
        String(decoding: strings[items[position].path], as: UTF8.self)
    }

    /// The items under the item at `top` (not itself) that `query` matches, in order.
    func search(_ query: SearchQuery, under top: Int, transcripts: TranscriptIndex?) -> [Int] {
        let range = (top + 1)..<items[top].subtreeEnd
        let textHits = query.hasTextFilters ? textMatches(query.wordBytes, in: range, transcripts: transcripts) : nil
        var hits: [Int] = []
        for position in range {
            if let textHits, !textHits[position - range.lowerBound] { continue }
            let item = items[position]
            let admitted = query.admits(
                kind: item.isFolder ? .folder : .recording, created: item.created,
                duration: item.isFolder ? nil : item.duration,
                hasTag: { hasTag($0, item) }, name: { String(decoding: strings[item.name], as: UTF8.self) })
            if admitted { hits.append(position) }
        }
        return hits
    }

    private func hasTag(_ tag: String, _ item: IndexedItem) -> Bool {
        var tag = tag
        return tag.withUTF8 { wanted in
            var start = item.tags.lowerBound
            while start < item.tags.upperBound {
                var end = start
                while strings[end] != 0 { end += 1 }
                if end - start == wanted.count, strings[start..<end].elementsEqual(wanted) { return true }
                start = end + 1
            }
            return false
        }
    }

    /// For each position in `range`, whether every word occurs in the item's name, note, a
    /// marker label, or (a recording's) transcript. Each word is looked for once through all
    /// of the text, not item by item: most items hold none of it.
    private func textMatches(_ words: [[UInt8]], in range: Range<Int>, transcripts: TranscriptIndex?) -> [Bool] {
        var all = Array(repeating: true, count: range.count)
        guard !range.isEmpty else { return all }
        // The positions of the recordings in range by id, for the transcripts' hits.
        var recordings: [ItemID: Int] = [:]
        if let transcripts, !transcripts.entries.isEmpty {
            recordings.reserveCapacity(range.count)
            for position in range where !items[position].isFolder { recordings[items[position].id] = position }
        }
        let textStart = items[range.lowerBound].text.lowerBound
        let textEnd = items[range.upperBound - 1].text.upperBound
        for word in words {
            var found = Array(repeating: false, count: range.count)
            TextFolding.occurrences(of: word, in: text, from: textStart, to: textEnd) { offset in
                let position = Self.last(in: range, startingAtOrBefore: offset) { items[$0].text.lowerBound }
                found[position - range.lowerBound] = true
                return items[position].text.upperBound
            }
            if let transcripts, !recordings.isEmpty {
                let entries = transcripts.entries
                TextFolding.occurrences(
                    of: word, in: transcripts.text, from: entries.first?.text.lowerBound ?? 0,
                    to: entries.last?.text.upperBound ?? 0
                ) { offset in
                    let entry = Self.last(in: entries.indices, startingAtOrBefore: offset) {
                        entries[$0].text.lowerBound
                    }
                    if let position = recordings[entries[entry].id] { found[position - range.lowerBound] = true }
                    return entries[entry].text.upperBound
                }
            }
            for k in all.indices where !found[k] { all[k] = false }
        }
        return all
    }

    /// The last position in `range` whose run starts at or before `offset` (runs lie one
    /// after another in order): the one holding `offset`, a word found there.
    static func last(in range: Range<Int>, startingAtOrBefore offset: Int, start: (Int) -> Int) -> Int {
        Swift.max(range.lowerBound, range.partitionPoint { start($0) <= offset } - 1)
    }

    /// store.json open for `forEachItem`, checked to be the file the index was made from
    /// before anything is read from it: a caller knows it can answer before it prints. The
    /// descriptor keeps that file (recnotes replaces store.json, never writes into it), so
    /// only a change made in place by something else could still fail a read later.
    struct StoreFile {
        let file: OpenFile

        init?(_ index: ItemIndex, location: StoreLocation) {
            // A recent source's bytes were checked as the index was found current.
            let identity: FileIdentity
            switch index.source {
            case .present(let known), .recent(let known): identity = known
            case .absent, .untrusted: return nil
            }
            guard let file = OpenFile(location.storeFile, O_RDONLY),
                file.withDescriptor({ FileIdentity(descriptor: $0) }) == identity
            else { return nil }
            self.file = file
        }
    }

    /// Calls `body` with each of the whole items at `positions` (its index in `positions`,
    /// and the item), in order, decoded from their places in `store` (opened by `StoreFile`),
    /// until `body` returns false; false then, or when an item's bytes are not the item the
    /// index expects there. Marker ids are not derived (`DocumentCodec.decodeItem`): the
    /// items are for showing. When the items are much of the file (a search that finds
    /// thousands), it is read a megabyte at a time into one buffer (items lie in the file
    /// about in `find`'s order), else each item with a `pread` of its own.
    func forEachItem(at positions: [Int], in store: StoreFile, _ body: (Int, Item) -> Bool) -> Bool {
        store.file.withDescriptor { fd in
            Self.forEachItem(in: positions.map { items[$0].storeRange }, of: fd) { k, item in
                item.id == items[positions[k]].id && body(k, item)
            }
        }
    }

    /// The items whose objects lie at `ranges` of the `store.json` open as `fd`, decoded in
    /// order and handed to `body` until it returns false; false then, or when a range does
    /// not hold an item (`find`'s hits, and the reads' items: `Library.reading`).
    static func forEachItem(in ranges: [Range<Int>], of fd: Int32, _ body: (Int, Item) -> Bool) -> Bool {
        guard !ranges.isEmpty else { return true }
        var low = Int.max
        var high = 0
        var total = 0
        var largest = 0
        for range in ranges {
            low = min(low, range.lowerBound)
            high = max(high, range.upperBound)
            total += range.count
            largest = max(largest, range.count)
        }
        // Reading bytes no hit needs costs less than a system call per hit, up to a point.
        let windowed = total * 4 >= high - low
        // A quarter of a megabyte at a time: a fresh megabyte cost 256 page faults as pread
        // first filled it (find --json of 7,040 hits reads 10 MB), a quarter of that 64, and
        // the preads it takes more cost less.
        let capacity = windowed ? max(min(1 << 18, high - low), largest) : largest
        // Filled by pread, not zeroed first.
        var buffer = [UInt8](unsafeUninitializedCapacity: capacity) { $1 = $0.count }
        // The bytes of store.json that `buffer` holds.
        var window = 0..<0
        for (k, range) in ranges.enumerated() {
            if range.lowerBound < window.lowerBound || range.upperBound > window.upperBound {
                let end = windowed ? min(range.lowerBound + capacity, high) : range.upperBound
                guard Self.read(fd, range.lowerBound..<end, into: &buffer) else { return false }
                window = range.lowerBound..<end
            }
            let start = range.lowerBound - window.lowerBound
            guard
                let item = try? buffer.withUnsafeBufferPointer({
                    try DocumentCodec.decodeItem(
                        UnsafeBufferPointer(rebasing: $0[start..<start + range.count]), markerIDs: false)
                }),
                body(k, item)
            else { return false }
        }
        return true
    }

    /// `range` of the file open as `fd` into the start of `buffer`, whole.
    private static func read(_ fd: Int32, _ range: Range<Int>, into buffer: inout [UInt8]) -> Bool {
        buffer.withUnsafeMutableBytes { bytes in
            var done = 0
            while done < range.count {
                let n = System.retrying {
                    pread(fd, bytes.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
                }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
    }

    /// The item at `position`'s fields as `TextFolding.foldedFields` made them.
    func withFoldedFields<R>(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        text.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[items[position].text])) }
    }
}

/// One item as `ItemIndex` holds it. Ranges into `strings` and `text` are the index's.
struct IndexedItem: Equatable {
    var id: ItemID
    var isFolder: Bool
    var created: Timestamp
    /// Seconds; 0 for a folder.
    var duration: Double
    /// The parent's position, -1 for the root.
    var parent: Int
    /// One past the position of its last descendant: its subtree is `position..<subtreeEnd`.
    var subtreeEnd: Int
    /// Its object in `store.json`.
    var storeRange: Range<Int>
    var name: Range<Int>
    var path: Range<Int>
    /// Its tags, each followed by a NUL.
    var tags: Range<Int>
    var text: Range<Int>
}

/// Every transcript's search index, folded: entries in no particular order but one after
/// another in `text`, each one's lines followed by a line feed. Each entry names the
/// identity of its `<uuid>.txt`, so that making the index again reads only the files that
/// changed.
struct TranscriptIndex {
    var source: SourceIdentity
    var entries: [(id: ItemID, file: SourceIdentity, text: Range<Int>)]
    var text: [UInt8]

    /// The same transcripts with the same folded text (what `find` compares), whatever the
    /// identities say.
    func hasSameText(as other: TranscriptIndex) -> Bool {
        entries.count == other.entries.count
            && zip(entries, other.entries).allSatisfy { a, b in
                a.id == b.id && text[a.text].elementsEqual(other.text[b.text])
            }
    }
}

/// What an index was made from, as it was then: a file's or directory's identity, its
/// absence, or `recent` when it had changed too recently to tell a later change from it by
/// its identity alone (`untrusted`: the same, from an older index that did not keep it).
enum SourceIdentity: Equatable {
    case present(FileIdentity)
    case absent
    case recent(FileIdentity)
    case untrusted

    /// `path` now, taken before it is read. A file changed within the last second is not
    /// trusted: a directory keeps its inode, and another change within the same clock tick
    /// would leave its time as it is (`store.json`, always replaced by a rename, gets a new
    /// inode anyway; this keeps a hand edit in place honest too).
    static func of(_ path: String) -> SourceIdentity { of(FileIdentity(path: path)) }

    /// A file's identity as it was taken, nil for a file that is not there.
    static func of(_ identity: FileIdentity?) -> SourceIdentity {
        guard let identity else { return .absent }
        let now = Timestamp.now().millisecondsSinceEpoch
        let modified = Int64(identity.modifiedSeconds) * 1000 + Int64(identity.modifiedNanoseconds / 1_000_000)
        return now - modified >= 1000 ? .present(identity) : .recent(identity)
    }

    /// Whether `path` is still what this names.
    func isCurrent(_ path: String) -> Bool {
        switch self {
        case .present(let identity): return FileIdentity(path: path) == identity
        case .absent: return FileIdentity(path: path) == nil
        case .recent, .untrusted: return false
        }
    }
}

extension ItemIndex {
    /// The index of `library`'s document, made from the same bytes it was read from; nil
    /// when `store.json` has changed since it was read.
    static func build(from library: Library) -> ItemIndex? {
        let location = library.location
        guard let loaded = library.documents.identity, FileIdentity(path: location.storeFile) == loaded else {
            return nil
        }
        let source = SourceIdentity.of(loaded)
        // Where the items lie, as the store found them when it read or wrote the file; if
        // it has not kept them (it made the file), it is read again.
        if let ranges = library.documents.itemRanges, let known = library.documents.source {
            return build(library.document, ranges: ranges, source: known.identity, contentHash: known.contentHash)
        }
        guard let bytes = try? FileSystem.read(location.storeFile), FileIdentity(path: location.storeFile) == loaded,
            let decoded = try? bytes.withUnsafeBufferPointer({ try DocumentCodec.decodeVersioned($0) })
        else { return nil }
        return build(library.document, ranges: decoded.itemRanges, source: source, contentHash: ContentHash.of(bytes))
    }

    /// The index of `document`, whose items lie at `ranges` in the `store.json` it was read
    /// from, whose bytes hash to `contentHash`.
    static func build(
        _ document: Document, ranges itemRanges: [(id: ItemID, range: Range<Int>)], source: SourceIdentity,
        contentHash: UInt64
    ) -> ItemIndex? {
        var ranges: [ItemID: Range<Int>] = [:]
        ranges.reserveCapacity(itemRanges.count)
        for (id, range) in itemRanges { ranges[id] = range }
        let order = document.preorder()
        var positions: [ItemID: Int] = [:]
        positions.reserveCapacity(order.count)
        for (position, item) in order.enumerated() { positions[item.id] = position }
        // Children follow their parent, so sizes add up from the end.
        var sizes = Array(repeating: 0, count: order.count)
        for position in order.indices.reversed() {
            sizes[position] += 1
            if let parent = order[position].parent.flatMap({ positions[$0] }) { sizes[parent] += sizes[position] }
        }
        var index = ItemIndex(source: source, contentHash: contentHash, items: [], strings: [], text: [])
        index.items.reserveCapacity(order.count)
        for (item, path) in zip(order, document.paths(of: order)) {
            guard let storeRange = ranges[item.id] else { return nil }
            func string(_ text: String) -> Range<Int> {
                let start = index.strings.count
                index.strings.append(contentsOf: text.utf8)
                return start..<index.strings.count
            }
            let name = string(item.name)
            let path = string(path)
            let tagsStart = index.strings.count
            for tag in item.annotations.tags {
                index.strings.append(contentsOf: tag.utf8)
                index.strings.append(0)
            }
            let textStart = index.text.count
            TextFolding.appendFoldedFields(of: item, to: &index.text)
            let position = index.items.count
            index.items.append(
                IndexedItem(
                    id: item.id, isFolder: item.isFolder, created: item.created,
                    duration: item.recording?.duration ?? 0,
                    parent: item.parent.flatMap { positions[$0] } ?? -1, subtreeEnd: position + sizes[position],
                    storeRange: storeRange, name: name, path: path, tags: tagsStart..<index.strings.count,
                    text: textStart..<index.text.count))
        }
        return index
    }
}

extension TranscriptIndex {
    /// Every transcript's search index in `transcripts/`, folded line by line as
    /// `TranscriptIndexSearch` folds them.
    /// `previous` (an older index, current or not) lends the text of every file whose
    /// identity it recorded and that has not changed since: only new and replaced files are
    /// read (a transcript is always replaced by a rename, so a changed one has a new inode,
    /// and one changed within the last second is never lent, as with any source).
    static func build(location: StoreLocation, reusing previous: TranscriptIndex? = nil) -> TranscriptIndex {
        build(location: location, source: SourceIdentity.of(location.transcriptsDirectory), reusing: previous)
    }

    static func build(location: StoreLocation, source: SourceIdentity, reusing previous: TranscriptIndex? = nil)
        -> TranscriptIndex
    {
        let directory = location.transcriptsDirectory
        var index = TranscriptIndex(source: source, entries: [], text: [])
        guard source != .absent else { return index }
        // About the old size: growing 20 MB by doubling copies and faults in most of it again.
        index.text.reserveCapacity((previous?.text.count ?? 0) + (1 << 16))
        var lent: [ItemID: (file: FileIdentity, text: Range<Int>)] = [:]
        lent.reserveCapacity(previous?.entries.count ?? 0)
        for entry in previous?.entries ?? [] {
            if case .present(let file) = entry.file { lent[entry.id] = (file, entry.text) }
        }
        let reader = TranscriptFiles.IndexReader(TranscriptFiles(location: location))
        for name in FileSystem.entries(of: directory) where name.hasSuffix(".txt") && !name.hasPrefix(".") {
            guard let id = ItemID(String(name.dropLast(4))), let identity = reader.indexIdentity(of: id) else {
                continue
            }
            let start = index.text.count
            if let previous, let old = lent[id], old.file == identity {
                index.text.append(contentsOf: previous.text[old.text])
            } else {
                guard let bytes = reader.indexBytes(of: id) else { continue }
                TranscriptIndexSearch.forEachLine(of: bytes) { _, _, text in
                    index.text.append(contentsOf: TextFolding.foldedUTF8(String(decoding: text, as: UTF8.self)))
                    index.text.append(0x0A)
                    return true
                }
            }
            index.entries.append((id, SourceIdentity.of(identity), start..<index.text.count))
        }
        return index
    }
}

extension ItemIndex {
    /// The index in `cache/`, nil when there is none, it cannot be read, or `store.json` has
    /// changed since it was made.
    static func current(at location: StoreLocation) -> ItemIndex? {
        guard let source = SearchIndexCodec.source(of: location.itemIndexFile) else { return nil }
        if case .recent(let identity) = source {
            // Made from a store.json then just written (by the store itself, as a change
            // keeps the index): current if the file has that identity and those bytes still.
            guard FileIdentity(path: location.storeFile) == identity,
                let bytes = try? FileSystem.read(location.itemIndexFile),
                let index = SearchIndexCodec.decodeItems(bytes), index.source == source,
                index.isMadeFrom(contentOf: location.storeFile)
            else { return nil }
            return index
        }
        return SearchIndexFiles.current(
            location.itemIndexFile, madeFrom: location.storeFile, SearchIndexCodec.decodeItems)
    }

    /// This index after a change of annotations to `changed` items alone: every item where
    /// it was, at its place in `ranges` (the file as written after the change, in this
    /// index's order), the changed ones with their new tags and text; the bytes
    /// `build` makes for the document after the change. nil when `ranges` is not in step.
    func patched(
        _ changed: [ItemID: Item], ranges: [(id: ItemID, range: Range<Int>)], source: SourceIdentity,
        contentHash: UInt64
    ) -> ItemIndex? {
        guard ranges.count == items.count else { return nil }
        var index = ItemIndex(source: source, contentHash: contentHash, items: [], strings: [], text: [])
        index.items.reserveCapacity(items.count)
        index.strings.reserveCapacity(strings.count + 256)
        index.text.reserveCapacity(text.count + 4096)
        func copy(_ range: Range<Int>) -> Range<Int> {
            let start = index.strings.count
            index.strings.append(contentsOf: strings[range])
            return start..<index.strings.count
        }
        for (position, old) in items.enumerated() {
            guard ranges[position].id == old.id else { return nil }
            var item = old
            item.storeRange = ranges[position].range
            item.name = copy(old.name)
            item.path = copy(old.path)
            let textStart = index.text.count
            if let new = changed[old.id] {
                let tagsStart = index.strings.count
                for tag in new.annotations.tags {
                    index.strings.append(contentsOf: tag.utf8)
                    index.strings.append(0)
                }
                item.tags = tagsStart..<index.strings.count
                TextFolding.appendFoldedFields(of: new, to: &index.text)
            } else {
                item.tags = copy(old.tags)
                index.text.append(contentsOf: text[old.text])
            }
            item.text = textStart..<index.text.count
            index.items.append(item)
        }
        return index
    }

    /// This index after a change that added or moved items (`StoreTable.restructured`'s
    /// arguments): each item of the new file at its place in `ranges`, a kept one with its
    /// fields as they were, its parent's new position and, under a moved or renamed folder,
    /// its new path; a `changed` one made from the item as it is now. The bytes `build`
    /// makes for the whole document after the change; nil when something does not add up.
    func restructured(
        changed: [ItemID: Item], ranges: [(id: ItemID, range: Range<Int>)], origins: [Int?],
        source: SourceIdentity, contentHash: UInt64
    ) -> ItemIndex? {
        guard ranges.count == origins.count else { return nil }
        var now = Array(repeating: -1, count: items.count)
        var byID: [ItemID: Int] = [:]
        for (position, origin) in origins.enumerated() {
            if let origin { now[origin] = position }
            if origin == nil || changed[ranges[position].id] != nil { byID[ranges[position].id] = position }
        }
        var index = ItemIndex(source: source, contentHash: contentHash, items: [], strings: [], text: [])
        index.items.reserveCapacity(ranges.count)
        index.strings.reserveCapacity(strings.count + 256)
        index.text.reserveCapacity(text.count + 256)
        func append(_ bytes: some Collection<UInt8>) -> Range<Int> {
            let start = index.strings.count
            index.strings.append(contentsOf: bytes)
            return start..<index.strings.count
        }
        // Whose path is not the one kept: a changed item's that differs, and all under it.
        var moved = Array(repeating: false, count: ranges.count)
        func path(_ name: Range<Int>, under parent: Int) -> Range<Int> {
            let parentPath = index.items[parent].path
            let start = index.strings.count
            if parentPath.count != 1 { index.strings.append(contentsOf: index.strings[parentPath]) }
            index.strings.append(UInt8(ascii: "/"))
            index.strings.append(contentsOf: index.strings[name])
            return start..<index.strings.count
        }
        for (position, entry) in ranges.enumerated() {
            if let origin = origins[position], changed[entry.id] == nil {
                let old = items[origin]
                guard old.id == entry.id, origin < items.count else { return nil }
                var item = old
                item.parent = old.parent >= 0 ? now[old.parent] : -1
                guard item.parent < position, item.parent >= 0 || position == 0 else { return nil }
                item.storeRange = entry.range
                item.subtreeEnd = position + 1
                item.name = append(strings[old.name])
                if item.parent >= 0, moved[item.parent] {
                    moved[position] = true
                    item.path = path(item.name, under: item.parent)
                } else {
                    item.path = append(strings[old.path])
                }
                item.tags = append(strings[old.tags])
                let textStart = index.text.count
                index.text.append(contentsOf: text[old.text])
                item.text = textStart..<index.text.count
                index.items.append(item)
            } else {
                guard let new = changed[entry.id] else { return nil }
                let parent = new.parent.map { byID[$0] ?? self.position(of: $0).map { now[$0] } ?? -1 } ?? -1
                guard parent < position, parent >= 0 || position == 0 else { return nil }
                let name = append(new.name.utf8)
                let path = parent >= 0 ? path(name, under: parent) : append("/".utf8)
                if let origin = origins[position] {
                    moved[position] = !index.strings[path].elementsEqual(strings[items[origin].path])
                } else {
                    moved[position] = true
                }
                let tagsStart = index.strings.count
                for tag in new.annotations.tags {
                    index.strings.append(contentsOf: tag.utf8)
                    index.strings.append(0)
                }
                let textStart = index.text.count
                TextFolding.appendFoldedFields(of: new, to: &index.text)
                index.items.append(
                    IndexedItem(
                        id: new.id, isFolder: new.isFolder, created: new.created,
                        duration: new.recording?.duration ?? 0, parent: parent, subtreeEnd: position + 1,
                        storeRange: entry.range, name: name, path: path, tags: tagsStart..<index.strings.count,
                        text: textStart..<index.text.count))
            }
        }
        // Children follow their parent, so a subtree's end is known from the end backwards.
        for position in index.items.indices.reversed() {
            index.items[position].subtreeEnd = max(index.items[position].subtreeEnd, position + 1)
            let parent = index.items[position].parent
            if parent >= 0 {
                index.items[parent].subtreeEnd = max(index.items[parent].subtreeEnd, index.items[position].subtreeEnd)
            }
        }
        return index
    }

    /// Whether the file at `path` is the one this was made from: its identity, and for a
    /// `recent` one its bytes too (read whole, its identity the same before and after).
    func isMadeFrom(contentOf path: String) -> Bool {
        guard case .recent(let identity) = source else { return source.isCurrent(path) }
        return FileSystem.withOpened(path, O_RDONLY) { fd -> Bool in
            guard FileIdentity(descriptor: fd) == identity, let bytes = try? FileSystem.read(path),
                FileIdentity(descriptor: fd) == identity, FileIdentity(path: path) == identity
            else { return false }
            return ContentHash.of(bytes) == contentHash
        } ?? false
    }
}

extension TranscriptIndex {
    static func current(at location: StoreLocation) -> TranscriptIndex? {
        SearchIndexFiles.current(
            location.transcriptIndexFile, madeFrom: location.transcriptsDirectory, SearchIndexCodec.decodeTranscripts)
    }
}

/// Keeping `find`'s index current.
enum SearchIndexFiles {
    /// The index file at `path`, decoded, when the source it names is `source` as it is now.
    static func current<Index>(_ path: String, madeFrom source: String, _ decode: ([UInt8]) -> Index?) -> Index? {
        // The source first, from the file's first words: a stale index is not read whole.
        guard SearchIndexCodec.source(of: path)?.isCurrent(source) == true, let bytes = try? FileSystem.read(path),
            SearchIndexCodec.source(in: bytes)?.isCurrent(source) == true
        else { return nil }
        return decode(bytes)
    }

    /// The indexes of `library` as it was read: each the one in `cache/` when that is
    /// current, else made now and written there (best effort: a store that cannot be
    /// written keeps none, and `find` works without). The transcripts' only when
    /// `transcripts` (a text search) asks for them. The items' index is nil when
    /// `store.json` changed since the library read it.
    @discardableResult
    static func refresh(_ library: Library, transcripts: Bool) -> (items: ItemIndex?, transcripts: TranscriptIndex?) {
        let location = library.location
        var items = ItemIndex.current(at: location)
        if items == nil { items = ItemIndex.caughtUp(at: location) }
        if items == nil, let made = ItemIndex.build(from: library) {
            items = made
            saveItems(made, in: location)
        }
        return (items, transcripts ? currentTranscripts(location) : nil)
    }

    /// The transcripts' index in `cache/` when it is current, else made again from the one
    /// there (which lends the text of every file unchanged since) and written.
    static func currentTranscripts(_ location: StoreLocation) -> TranscriptIndex {
        if let current = TranscriptIndex.current(at: location) { return current }
        let previous = (try? FileSystem.read(location.transcriptIndexFile)).flatMap(SearchIndexCodec.decodeTranscripts)
        let made = TranscriptIndex.build(location: location, reusing: previous)
        save(SearchIndexCodec.encode(made), to: location.transcriptIndexFile, in: location)
        return made
    }

    /// The index files (and the reads' table) that are current by their sources' identities but do not say what
    /// the sources say (a hand edit, a disk error, or a bug): `fsck` reports them, and
    /// `--repair` removes them. Paths relative to the store directory.
    /// `document` and `itemRanges` are `store.json` as fsck read it.
    static func disagreeing(
        with document: Document, itemRanges: [(id: ItemID, range: Range<Int>)], location: StoreLocation
    ) -> [String] {
        var wrong: [String] = []
        // A file named by an identity stamped as it was written carries no hash (0): only a
        // `present` source can, since only a hash makes a `recent` one current.
        func hash(_ store: [UInt8], as source: SourceIdentity, stored: UInt64) -> UInt64 {
            if case .present = source, stored == 0 { return 0 }
            return ContentHash.of(store)
        }
        if let bytes = try? FileSystem.read(location.itemIndexFile), let stored = SearchIndexCodec.decodeItems(bytes),
            stored.isMadeFrom(contentOf: location.storeFile),
            let store = try? FileSystem.read(location.storeFile),
            ItemIndex.build(
                document, ranges: itemRanges, source: stored.source,
                contentHash: hash(store, as: stored.source, stored: stored.contentHash)
            )
            .map(SearchIndexCodec.encode) != bytes
        {
            wrong.append("cache/" + FileSystem.baseName(of: location.itemIndexFile))
        }
        if let table = StoreTable.current(at: location), let store = try? FileSystem.read(location.storeFile),
            StoreTable.encode(
                document, ranges: itemRanges, source: table.source,
                contentHash: hash(store, as: table.source, stored: table.contentHash),
                spliceable: store.withUnsafeBufferPointer { DocumentCodec.isSpliceable($0, itemRanges) }) != table.bytes
        {
            wrong.append("cache/" + StoreTable.fileName)
        }
        if let bytes = try? FileSystem.read(location.transcriptIndexFile),
            let stored = SearchIndexCodec.decodeTranscripts(bytes),
            stored.source.isCurrent(location.transcriptsDirectory),
            !TranscriptIndex.build(location: location, source: stored.source).hasSameText(as: stored)
        {
            wrong.append("cache/" + FileSystem.baseName(of: location.transcriptIndexFile))
        }
        return wrong
    }

    /// After the store wrote `store.json` (under its lock): the items' index made again from
    /// the document in memory and where the write put each item, naming the file just
    /// written, when there is an index to keep (a store never searched gets none). Best
    /// effort, as every save here: an index that cannot be written is left stale, never
    /// wrong, since it names the file before.
    static func storeWritten(_ store: DocumentStore) {
        StoreTable.storeWritten(store)
        let location = store.location
        guard !store.isReadOnly, FileSystem.exists(location.itemIndexFile), let ranges = store.itemRanges,
            let source = store.source,
            let made = ItemIndex.build(
                store.document, ranges: ranges, source: source.identity, contentHash: source.contentHash)
        else { return }
        saveItems(made, in: location)
    }

    /// After the store spliced a change into `store.json` through the reads' table
    /// (`DocumentStore.PartialWrite`, under its lock): the table patched from the same change
    /// instead of made again from a whole document, which the store did not read (every item
    /// after a changed one lies elsewhere in the file, and for `mkdir` and `mv` items were
    /// added or moved). find's index is not read here: the change is logged beside it
    /// (`ItemIndexLog`), and the next `find` patches it (`ItemIndex.caughtUp`), so that a
    /// change costs what changed, not the index's size.
    ///
    /// In two steps, so that the costly one overlaps the wait for the disk: this makes the
    /// table's bytes or log record and the index's record (while the new file is fsynced,
    /// before it is in place), and the closure it returns writes them (once it is in place,
    /// so that a reader meanwhile still finds the old file's table valid).
    static func storeSpliced(
        _ write: DocumentStore.PartialWrite, after table: StoreTable, source: SourceIdentity, in location: StoreLocation
    ) -> () -> Void {
        guard location.isWritable else { return {} }
        // A change of annotations is logged for the table (`StoreTableLog`), not written
        // into it, up to `StoreTableLog.limit` records; then the table is written whole.
        let record =
            write.layout == nil && table.layers.count < StoreTableLog.limit
            ? StoreTableLog.annotations(
                old: { (id: table.id($0), range: table.storeRange($0)) }, new: write.itemRanges,
                changed: Set(write.changed.keys), position: table.position(of:), base: table.source,
                baseHash: table.contentHash, made: source,
                madeHash: write.contentHash
            ) : nil
        let (itemRanges, contentHash) = (write.itemRanges, write.contentHash)
        func patched() -> [UInt8]? { table.patched(ranges: itemRanges, source: source, contentHash: contentHash) }
        var bytes: [UInt8]?
        if record == nil {
            bytes =
                if let layout = write.layout {
                    table.restructured(
                        write.document, touched: Set(write.changed.keys), layout: layout, source: source,
                        contentHash: write.contentHash)
                } else {
                    patched()
                }
            // A debug build (every test's) holds the table written to the one made from the
            // whole document of the file just written.
            assert(
                bytes == nil
                    || {
                        let file = write.file.bytes
                        guard let loaded = try? file.withUnsafeBufferPointer({ try DocumentCodec.load($0) }) else {
                            return false
                        }
                        return StoreTable.encode(
                            loaded.document, ranges: loaded.itemRanges, source: source, contentHash: write.contentHash,
                            spliceable: true) == bytes
                    }(), "the table written after a splice is not the one the whole document makes")
        }
        let indexRecord = ItemIndexLog.Record(
            base: table.source, baseHash: table.contentHash, made: source, madeHash: write.contentHash,
            restructured: write.layout != nil, changed: Array(write.changed.keys))
        return {
            // A record that cannot be appended: the table written whole instead.
            if let record, StoreTableLog.append(record, in: location) {
            } else if let whole = bytes ?? patched() {
                StoreTable.write(whole, in: location)
            }
            ItemIndexLog.append(indexRecord, in: location)
        }
    }

    /// find's items index written, and the changes logged for the one before it dropped
    /// (`ItemIndexLog`): the index written names the file it was made from.
    static func saveItems(_ index: ItemIndex, in location: StoreLocation) {
        save(SearchIndexCodec.encode(index), to: location.itemIndexFile, in: location)
        try? FileSystem.remove(location.itemIndexLogFile)
    }

    /// Not flushed to the disk: after a crash the file is whole or gone (the rename), and
    /// one that is gone or stale is made again. A store that cannot be written keeps none.
    private static func save(_ bytes: [UInt8], to path: String, in location: StoreLocation) {
        guard location.isWritable else { return }
        try? FileSystem.makeDirectories(location.cacheDirectory)
        try? FileSystem.writeAtomically(bytes, to: path, durable: false)
    }
}

extension ItemIndex: ItemTree {
    var rootNode: Int { 0 }
    func id(of node: Int) -> ItemID { items[node].id }
    func parent(of node: Int) -> Int? { items[node].parent >= 0 ? items[node].parent : nil }
    func isFolder(_ node: Int) -> Bool { items[node].isFolder }
    func node(withID id: ItemID) -> Int? { position(of: id) }

    func child(named name: String, in folder: Int) -> Int? {
        var name = name
        return name.withUTF8 { wanted in
            var next = folder + 1
            while next < items[folder].subtreeEnd {
                if strings[items[next].name].elementsEqual(wanted) { return next }
                next = items[next].subtreeEnd
            }
            return nil
        }
    }

    /// The index holds every item under the root, as the document does.
    func nodes(withPrefix nibbles: [UInt8]) -> [Int]? {
        items.indices.filter { items[$0].id.hasPrefix(nibbles: nibbles) }
    }

    func path(of node: Int) -> String { path(at: node) }
}

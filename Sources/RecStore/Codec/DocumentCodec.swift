import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The on-disk layout of `store.json`. One object per item, one item per line, written
/// depth-first from the root, so the file is readable by people and by `jq`:
///
///     {
///     "version": 3,
///     "items": [
///     {"uuid": "00000000-…", "type": "folder", "name": "Recordings", "parent": null, "created": "…", "children": ["…"]},
///     {"uuid": "…", "type": "recording", "name": "standup", "parent": "…", "created": "…",
///      "duration": 12.5, "frames": 600000, "sampleRate": 48000, "channels": 1, "format": "opus", "file": "….opus",
///      "analysis": {…}}
///
/// Each group of an item's fields is written and read by its own small codec
/// (`AnalysisCodec`, `AnnotationCodec`, `ChangeTimesCodec`); a new optional field is one more such pair, and a
/// key this version does not know is skipped on reading.
///     ]
///     }
///
/// `jq '.items[] | select(.type == "recording") | .name' store.json` lists every recording.
package enum DocumentCodec {
    package static func encode(_ document: Document) -> [UInt8] { encodeWithRanges(document).bytes }

    /// `encode`, and where each item of the `items` array lies in the bytes, as
    /// `decodeVersioned` gives them: what the store hands `find`'s index after a write.
    static func encodeWithRanges(_ document: Document) -> (
        bytes: [UInt8], itemRanges: [(id: ItemID, range: Range<Int>)]
    ) {
        encodeWithRanges(document, capacity: nil) { item, w in writeItem(item, to: &w) }
    }

    /// `encodeWithRanges`, each item of the `items` array written by `write` (a merge copies
    /// the bytes of items it did not change).
    static func encodeWithRanges(
        _ document: Document, capacity: Int?, writing write: (Item, inout JSONWriter) -> Void
    ) -> (
        bytes: [UInt8], itemRanges: [(id: ItemID, range: Range<Int>)]
    ) {
        let ordered = document.preorder()
        var ranges: [(id: ItemID, range: Range<Int>)] = []
        ranges.reserveCapacity(ordered.count)
        var w = JSONWriter(capacity: capacity ?? ordered.count * 260 + 64)
        writeHead(to: &w)
        for (index, item) in ordered.enumerated() {
            // Where the reader's ranges start: after the comma (the line break included),
            // and the first after the bracket and the blank space.
            if index > 0 { w.raw(",") } else { w.raw("\n") }
            let start = w.bytes.count
            if index > 0 { w.raw("\n") }
            write(item, &w)
            ranges.append((item.id, start..<w.bytes.count))
        }
        writeTail(document, to: &w)
        return (w.bytes, ranges)
    }

    /// What comes before the first item.
    private static func writeHead(to w: inout JSONWriter) {
        w.beginObject()
        w.lineKey("version", indented: false)
        w.int(Document.currentVersion)
        w.lineKey("items", indented: false)
        w.raw("[")
    }

    /// What comes after the last item: the end of `items`, the trash and the end.
    private static func writeTail(_ document: Document, to w: inout JSONWriter) {
        w.raw("\n]")
        if !document.trash.isEmpty {
            w.lineKey("trash", indented: false)
            w.raw("[\n")
            for (index, entry) in document.trash.enumerated() {
                if index > 0 { w.raw(",\n") }
                w.beginObject()
                w.field("uuid", entry.id)
                w.field("parent", entry.parent)
                w.field("path", entry.path)
                w.field("removed", entry.removed)
                // One item a line, as in `items`, so that `salvage` finds them.
                w.key("items")
                w.raw("[\n  ")
                for (k, item) in entry.items.enumerated() {
                    if k > 0 { w.raw(",\n  ") }
                    writeItem(item, to: &w)
                }
                w.raw("]")
                w.endObject()
            }
            w.raw("\n]")
        }
        w.endLineObject()
        w.raw("\n")
    }

    /// `store.json` as the store last read or wrote it: the bytes, and where each item of
    /// the `items` array lies in them (as `decodeVersioned` gives them).
    struct Written {
        var bytes: [UInt8]
        var itemRanges: [(id: ItemID, range: Range<Int>)]
    }

    /// `encodeWithRanges(document)`, byte for byte, without encoding what did not change: an
    /// item whose value is the same as in `before` (the document `written` was read from or
    /// written as) is copied from `written`'s bytes; only the others (changed, added, or
    /// whose bytes are not laid out as `writeItem` writes them) are encoded. The header and
    /// the trash are written as ever. The caller vouches that `written` is a current-version
    /// file that decoded to `before` without being put in order (`Loaded.isAsWritten`).
    ///
    /// `annotated`, when given, says that only these items changed and only in what they
    /// carry (note, tags, markers, trim points: what `annotate` changes), so that the order
    /// of the items is the same: then the walk over the document is skipped too, and only
    /// these are looked up and encoded.
    ///
    /// `touched`, when given, holds every item whose value may differ from `before`'s (added,
    /// removed, changed, moved, or a folder whose children changed): then only the folders
    /// above them are walked, and every other subtree is copied as the one run of bytes it is.
    static func encodeSplicing(
        _ document: Document, over before: Document, written: Written, annotated: Set<ItemID>? = nil,
        touched: Set<ItemID>? = nil
    ) -> (
        bytes: [UInt8], itemRanges: [(id: ItemID, range: Range<Int>)]
    ) {
        if let annotated, document.count == before.count,
            let spliced = written.bytes.withUnsafeBufferPointer({ bytes in
                splicingInPlace(annotated, document, over: before, bytes: bytes, itemRanges: written.itemRanges)
                    .map { (bytes: $0.file.bytes, itemRanges: $0.itemRanges) }
            })
        {
            return spliced
        }
        if let touched, let spliced = splicingTouched(touched, document, over: before, written: written) {
            return spliced
        }
        let old = written.itemRanges
        // The old ranges are in the old file's order, which a change leaves alone but for the
        // items it touched: walked alongside the new order, the next old one is almost always
        // the item written next; a table is made only for an item found out of step (a move).
        var next = 0
        var byID: [ItemID: Range<Int>]?
        func range(of id: ItemID) -> Range<Int>? {
            while next < old.count, document.items[old[next].id] == nil { next += 1 }
            if next < old.count, old[next].id == id {
                next += 1
                return old[next - 1].range
            }
            guard before.items[id] != nil else { return nil }
            if byID == nil { byID = Dictionary(old.map { ($0.id, $0.range) }, uniquingKeysWith: { a, _ in a }) }
            return byID![id]
        }
        return written.bytes.withUnsafeBufferPointer { bytes in
            encodeWithRanges(document, capacity: bytes.count + 4096) { item, w in
                if let range = range(of: item.id), before.items[item.id] == item,
                    let line = asWritten(UnsafeBufferPointer(rebasing: bytes[range]))
                {
                    w.bytes.append(contentsOf: line)
                } else {
                    writeItem(item, to: &w)
                }
            }
        }
    }

    /// `encodeSplicing` of a change to `annotated` items alone when `document` and `before`
    /// hold only some items (`Library.changing`): `bytes` is the whole file, `itemRanges`
    /// where every item lies in it (the reads' table's), and what follows the items (the
    /// trash, which a change of annotations leaves alone) is copied as it is. nil unless the
    /// file is a current version's, laid out as written (its head as `writeHead` writes it).
    static func splicingAnnotations(
        _ annotated: Set<ItemID>, _ document: Document, over before: Document, bytes: UnsafeBufferPointer<UInt8>,
        itemRanges: [(id: ItemID, range: Range<Int>)], knownSpliceable: Bool = false
    ) -> (file: SplicedFile, itemRanges: [(id: ItemID, range: Range<Int>)])? {
        guard knownSpliceable || isSpliceable(bytes, itemRanges) else { return nil }
        return splicingInPlace(
            annotated, document, over: before, bytes: bytes, itemRanges: itemRanges, keepingTail: true,
            laidOutAsWritten: true)
    }

    /// Whether `bytes` are laid out as this version writes them, so that a change can be
    /// spliced into them with `itemRanges` (where each item lies): the head as `writeHead`
    /// writes it, the items one a line as `encodeWithRanges` writes them
    /// (`isLaidOutAsWritten`), and what follows them as `writeTail` writes the trash. Reads
    /// every line: the reads' table records it (`StoreTable.isSpliceable`) for the file it
    /// names, so that a splice through it need not.
    static func isSpliceable(_ bytes: UnsafeBufferPointer<UInt8>, _ itemRanges: [(id: ItemID, range: Range<Int>)])
        -> Bool
    {
        var head = JSONWriter(capacity: 64)
        writeHead(to: &head)
        head.raw("\n")
        guard let first = itemRanges.first, let last = itemRanges.last, first.range.lowerBound == head.bytes.count,
            bytes.starts(with: head.bytes), last.range.upperBound <= bytes.count
        else { return false }
        return isLaidOutAsWritten(bytes, itemRanges) && tailIsAsWritten(bytes, from: last.range.upperBound)
    }

    /// `encodeSplicing` of a change that added or moved items (`mkdir`, `mv`) when `document`
    /// holds only some items (`Library.changing`): the walk of `splicingTouched`, with the
    /// file as it was described by the reads' table (each item's range, its children, its
    /// subtree's run) instead of a whole document before. `document` must hold every touched
    /// item and each one's ancestors (the partial document does: the paths walked and the
    /// folders listed); the trash is untouched and copied as it is. Also gives where each
    /// item of the new file came from in the table (`TableLayout`: runs of it, not one entry
    /// per item), from which the table is made again (`StoreTable.restructured`). nil where
    /// `splicingAnnotations` is, or when something does not add up (then the whole document
    /// is read). Costs the items walked and the subtrees copied, not the table's size (but
    /// for the look-up by id of the touched items and their folders, `StoreTable.position`).
    static func splicingStructure(
        _ touched: Set<ItemID>, _ document: Document, bytes: UnsafeBufferPointer<UInt8>, table: StoreTable
    ) -> (file: SplicedFile, layout: TableLayout)? {
        guard table.count > 0, document.items[.root] != nil,
            table.isSpliceable
                || isSpliceable(bytes, (0..<table.count).map { (id: table.id($0), range: table.storeRange($0)) })
        else { return nil }
        // The table's position of each item the walk meets by id (few: the touched ones and
        // the folders above them); their children's come from the table itself.
        var known: [ItemID: Int?] = [:]
        func oldPosition(_ id: ItemID) -> Int? {
            if let found = known[id] { return found }
            let found = table.position(of: id)
            known[id] = found
            return found
        }
        var marked = Set<ItemID>()
        for id in touched where document.items[id] != nil {
            // Every touched item must reach the root through decoded items.
            var current = id
            var reached = false
            while let item = document.items[current] {
                guard marked.insert(current).inserted else {
                    reached = true
                    break
                }
                guard let parent = item.parent else {
                    reached = current == .root
                    break
                }
                current = parent
            }
            guard reached else { return nil }
        }
        let added = touched.filter { document.items[$0] != nil && oldPosition($0) == nil }.count
        let removed = touched.filter { document.items[$0] == nil }.count
        guard removed == 0 else { return nil }
        var s = TableSplice(bytes: bytes, table: table)
        func children(of folder: ItemID, at position: Int) -> Bool {
            let oldChildren = oldPosition(folder).map(table.children(of:)) ?? []
            var j = 0
            for child in document.items[folder]!.children {
                if marked.contains(child) {
                    let placed = s.emit(child, parent: position, touched: touched, document, at: oldPosition)
                    if document.items[child]!.isFolder, !children(of: child, at: placed.position) { return false }
                    s.close(placed.piece)
                    continue
                }
                // Untouched, so it was here before, in the same order among the untouched.
                while j < oldChildren.count, table.id(oldChildren[j]) != child { j += 1 }
                guard j < oldChildren.count, oldChildren[j] > 0 else { return false }
                s.copy(oldChildren[j], table.subtreeEnd(oldChildren[j]), parent: position)
                j += 1
            }
            return true
        }
        let root = s.emit(.root, parent: -1, touched: touched, document, at: oldPosition)
        guard children(of: .root, at: root.position), s.layout.count == table.count + added else { return nil }
        s.close(root.piece)
        s.file.copy(table.storeRange(table.count - 1).upperBound..<bytes.count)
        s.file.finish()
        return (s.file, s.layout)
    }

    /// Where the items of a file spliced through the reads' table (`splicingStructure`) came
    /// from, in the new table's order: a subtree kept as it was is one piece, a run of the
    /// table's positions whose bytes moved by one shift, so that the table is made again by
    /// copying runs of its records (`StoreTable.restructured`), with no array per item.
    struct TableLayout {
        enum Piece: Equatable {
            /// The table's positions `run` (one subtree, its root first), their bytes in the
            /// new file `shift` from where they were, the root's parent at position `parent`.
            case kept(Range<Int>, shift: Int, parent: Int)
            /// One item on its own line: `origin` its table position (nil: added), `range`
            /// where it lies now, `parent` its parent's position (-1: the root), `end` where
            /// its subtree ends.
            case placed(id: ItemID, origin: Int?, range: Range<Int>, parent: Int, end: Int)
        }
        var pieces: [Piece] = []
        /// Items in the new file.
        var count = 0
    }

    /// The items of a file as `splicingStructure` writes them, as `encodeWithRanges` does
    /// (see `SplicedItems`), recorded as `TableLayout`'s pieces.
    private struct TableSplice {
        let table: StoreTable
        var file: SplicedFile
        var layout = TableLayout()

        init(bytes: UnsafeBufferPointer<UInt8>, table: StoreTable) {
            self.table = table
            file = SplicedFile(old: bytes)
            DocumentCodec.writeHead(to: &file.w)
        }

        /// The item `id` under the item at `parent`, its old line copied unless it is
        /// `touched` or was not in the old file (`position` finds where it was), else
        /// encoded from `document`; its piece's index and its position. Its subtree's end is
        /// set by `close` once its children are in.
        mutating func emit(
            _ id: ItemID, parent: Int, touched: Set<ItemID>, _ document: Document, at position: (ItemID) -> Int?
        ) -> (piece: Int, position: Int) {
            if layout.count == 0 { file.w.raw("\n") } else { file.w.raw(",") }
            let start = file.count
            if layout.count > 0 { file.w.raw("\n") }
            let k = position(id)
            if !touched.contains(id), let k {
                let range = table.storeRange(k)
                let lineLength = range.count - (k == 0 ? 0 : 1)
                file.copy((range.upperBound - lineLength)..<range.upperBound)
            } else {
                DocumentCodec.writeItem(document.items[id]!, to: &file.w)
            }
            let at = layout.count
            layout.pieces.append(.placed(id: id, origin: k, range: start..<file.count, parent: parent, end: at + 1))
            layout.count += 1
            return (layout.pieces.count - 1, at)
        }

        /// The placed item of piece `index` ends its subtree here.
        mutating func close(_ index: Int) {
            guard case .placed(let id, let origin, let range, let parent, _) = layout.pieces[index] else { return }
            layout.pieces[index] = .placed(id: id, origin: origin, range: range, parent: parent, end: layout.count)
        }

        /// The old items `k0..<k1`, one subtree, as they were, under the item at `parent`.
        mutating func copy(_ k0: Int, _ k1: Int, parent: Int) {
            file.w.raw(",")
            let first = table.storeRange(k0).lowerBound
            let shift = file.count - first
            file.copy(first..<table.storeRange(k1 - 1).upperBound)
            layout.pieces.append(.kept(k0..<k1, shift: shift, parent: parent))
            layout.count += k1 - k0
        }
    }

    /// The items of a file as `splicingTouched` writes them, as
    /// `encodeWithRanges` does: the first after a line break, every other one after a comma,
    /// its range starting with its line break. An item is copied from its line in `bytes`
    /// (at `old`'s ranges) or encoded again.
    private struct SplicedItems {
        let old: [(id: ItemID, range: Range<Int>)]
        var file: SplicedFile
        var ranges: [(id: ItemID, range: Range<Int>)] = []

        /// `count`: how many items the new file will hold.
        init(bytes: UnsafeBufferPointer<UInt8>, old: [(id: ItemID, range: Range<Int>)], count: Int) {
            self.old = old
            file = SplicedFile(old: bytes)
            ranges.reserveCapacity(count)
            DocumentCodec.writeHead(to: &file.w)
        }

        /// The item `id`, its old line copied unless it is `touched` or was not in the old
        /// file (`position` finds where it was), else encoded from `document`.
        mutating func emit(
            _ id: ItemID, touched: Set<ItemID>, _ document: Document, at position: (ItemID) -> Int?
        ) {
            if ranges.isEmpty { file.w.raw("\n") } else { file.w.raw(",") }
            let start = file.count
            if !ranges.isEmpty { file.w.raw("\n") }
            let k = position(id)
            if !touched.contains(id), let k {
                let range = old[k].range
                let lineLength = range.count - (k == 0 ? 0 : 1)
                file.copy((range.upperBound - lineLength)..<range.upperBound)
            } else {
                DocumentCodec.writeItem(document.items[id]!, to: &file.w)
            }
            ranges.append((id, start..<file.count))
        }

        /// The old items `k0..<k1`, one subtree, as they were.
        mutating func copy(_ k0: Int, _ k1: Int) {
            file.w.raw(",")
            let shift = file.count - old[k0].range.lowerBound
            file.copy(old[k0].range.lowerBound..<old[k1 - 1].range.upperBound)
            for k in k0..<k1 {
                ranges.append((old[k].id, (old[k].range.lowerBound + shift)..<(old[k].range.upperBound + shift)))
            }
        }
    }

    /// Whether what follows the last item, from `offset`, is what `writeTail` writes for the
    /// trash it holds: no other key, nothing reformatted, so that it can be copied as it is.
    private static func tailIsAsWritten(_ buffer: UnsafeBufferPointer<UInt8>, from offset: Int) -> Bool {
        var reader = JSONReader(buffer)
        var trash: [TrashEntry] = []
        do {
            reader.skip(to: offset)
            var notFirst = false
            guard try !reader.nextElement(first: &notFirst) else { return false }
            while let key = try reader.nextKey(first: &notFirst) {
                guard key.equals("trash"), trash.isEmpty else { return false }
                try reader.beginArray()
                var firstEntry = true
                while try reader.nextElement(first: &firstEntry) { trash.append(try decodeTrashEntry(&reader)) }
                if trash.isEmpty { return false }
            }
            try reader.finish()
        } catch {
            return false
        }
        // After the head, as the items are written: the writer knows the object is open.
        var w = JSONWriter(capacity: buffer.count - offset + 64)
        writeHead(to: &w)
        let start = w.bytes.count
        writeTail(Document(items: [:], trash: trash), to: &w)
        return w.bytes[start...].elementsEqual(buffer[offset...])
    }

    /// `encodeSplicing` of a change to `annotated` items alone: the file's bytes, each of
    /// these items encoded again in its place, the trash written anew (or with
    /// `keepingTail`, copied). nil when an item
    /// moved after all, or the bytes are not laid out as `encodeWithRanges` writes them
    /// (`isLaidOutAsWritten`): then the walk does it.
    private static func splicingInPlace(
        _ annotated: Set<ItemID>, _ document: Document, over before: Document, bytes: UnsafeBufferPointer<UInt8>,
        itemRanges: [(id: ItemID, range: Range<Int>)], keepingTail: Bool = false, laidOutAsWritten: Bool = false
    ) -> (file: SplicedFile, itemRanges: [(id: ItemID, range: Range<Int>)])? {
        for id in annotated {
            guard let new = document.items[id], let old = before.items[id], new.name == old.name,
                new.parent == old.parent, new.children == old.children
            else { return nil }
        }
        var ranges = itemRanges
        guard let first = ranges.first, let last = ranges.last, laidOutAsWritten || isLaidOutAsWritten(bytes, ranges)
        else { return nil }
        var file = SplicedFile(old: bytes)
        writeHead(to: &file.w)
        file.w.raw("\n")
        // The bytes from `copied` on are still to be copied; an item after the last one
        // encoded again lies `shift` bytes later than it did.
        var copied = first.range.lowerBound
        var shift = file.count - copied
        // Most changes annotate one item or a few: compared in a list, not hashed for each
        // of 100,000 items.
        let few = annotated.count <= 8 ? Array(annotated) : nil
        for k in ranges.indices {
            let range = ranges[k].range
            ranges[k].range = (range.lowerBound + shift)..<(range.upperBound + shift)
            let id = ranges[k].id
            guard few?.contains(id) ?? annotated.contains(id), let item = document.items[id] else { continue }
            // After its line break, but for the first.
            let start = range.lowerBound + (k == 0 ? 0 : 1)
            file.copy(copied..<start)
            writeItem(item, to: &file.w)
            ranges[k].range = ranges[k].range.lowerBound..<file.count
            copied = range.upperBound
            shift = file.count - copied
        }
        if keepingTail {
            file.copy(copied..<bytes.count)
        } else {
            file.copy(copied..<last.range.upperBound)
            writeTail(document, to: &file.w)
        }
        file.finish()
        return (file, ranges)
    }

    /// `encodeSplicing` knowing which items were `touched`: the root and the folders above a
    /// touched item are walked in display order; each of their children that is neither is
    /// the same subtree as before, under the same folder, and its bytes are copied as one run
    /// (from its line to where its next sibling's started, or its folder's subtree ended).
    /// nil when the file is not laid out as written or something does not add up: then the
    /// whole walk does it.
    private static func splicingTouched(
        _ touched: Set<ItemID>, _ document: Document, over before: Document, written: Written
    ) -> (bytes: [UInt8], itemRanges: [(id: ItemID, range: Range<Int>)])? {
        let old = written.itemRanges
        guard old.first?.id == .root, old.count == before.count, document.items[.root] != nil else { return nil }
        var position: [ItemID: Int] = [:]
        position.reserveCapacity(old.count)
        for (k, entry) in old.enumerated() { position[entry.id] = k }
        var marked = Set<ItemID>()
        for id in touched {
            var current: ItemID? = id
            while let x = current, let item = document.items[x], marked.insert(x).inserted { current = item.parent }
        }
        /// Where the item's subtree ended in the old file: where the next item that is not
        /// under it started.
        func oldEnd(of id: ItemID) -> Int? {
            var x = id
            while let parent = before.items[x]?.parent {
                guard let siblings = before.items[parent]?.children, let i = siblings.firstIndex(of: x) else {
                    return nil
                }
                if i + 1 < siblings.count { return position[siblings[i + 1]] }
                x = parent
            }
            return x == .root ? old.count : nil
        }
        return written.bytes.withUnsafeBufferPointer {
            bytes -> (bytes: [UInt8], itemRanges: [(id: ItemID, range: Range<Int>)])? in
            guard isLaidOutAsWritten(bytes, old) else { return nil }
            var s = SplicedItems(bytes: bytes, old: old, count: document.count)
            let oldPosition: (ItemID) -> Int? = { position[$0] }
            func children(of folder: ItemID, oldEnd end: Int?) -> Bool {
                let oldChildren = before.items[folder]?.children ?? []
                var j = 0
                for child in document.items[folder]!.children {
                    if marked.contains(child) {
                        s.emit(child, touched: touched, document, at: oldPosition)
                        if document.items[child]!.isFolder, !children(of: child, oldEnd: oldEnd(of: child)) {
                            return false
                        }
                        continue
                    }
                    // Untouched, so it was here before, in the same order among the untouched.
                    while j < oldChildren.count, oldChildren[j] != child { j += 1 }
                    guard j < oldChildren.count, let k0 = position[child],
                        let k1 = j + 1 < oldChildren.count ? position[oldChildren[j + 1]] : end, k1 > k0, k0 > 0
                    else { return false }
                    s.copy(k0, k1)
                    j += 1
                }
                return true
            }
            s.emit(.root, touched: touched, document, at: oldPosition)
            guard children(of: .root, oldEnd: old.count), s.ranges.count == document.count else { return nil }
            writeTail(document, to: &s.file.w)
            s.file.finish()
            return (s.file.bytes, s.ranges)
        }
    }

    /// Whether the items lie as `encodeWithRanges` writes them: the first right after the
    /// head, every other one after a comma after the one before, each one line from `{"uuid"`.
    private static func isLaidOutAsWritten(
        _ bytes: UnsafeBufferPointer<UInt8>, _ ranges: [(id: ItemID, range: Range<Int>)]
    ) -> Bool {
        var previousEnd = 0
        for (k, entry) in ranges.enumerated() {
            let range = entry.range
            guard k == 0 || (range.lowerBound == previousEnd + 1 && bytes[previousEnd] == UInt8(ascii: ",")),
                let line = asWritten(UnsafeBufferPointer(rebasing: bytes[range])),
                (k == 0) == (line.count == range.count)
            else { return false }
            previousEnd = range.upperBound
        }
        return true
    }

    private static let itemStart = Array(#"{"uuid": ""#.utf8)

    /// An item's bytes from a decoded range without the line break before them, if they are
    /// laid out as `writeItem` writes them (one line, starting with the uuid, ending with the
    /// brace); nil for an item reformatted by hand or by jq, which is then encoded again.
    private static func asWritten(_ range: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        var item = range[...]
        if item.first == UInt8(ascii: "\n") { item = item.dropFirst() }
        guard item.count > itemStart.count, item.last == UInt8(ascii: "}"),
            zip(item, itemStart).allSatisfy({ $0 == $1 })
        else { return nil }
        let line = UnsafeBufferPointer(rebasing: item)
        guard memchr(line.baseAddress!, 0x0A, line.count) == nil else { return nil }
        return line
    }

    static func writeItem(_ item: Item, to w: inout JSONWriter) {
        w.beginObject()
        w.field("uuid", item.id)
        w.key("type")
        w.raw(item.isFolder ? "\"folder\"" : "\"recording\"")
        w.field("name", item.name)
        w.key("parent")
        w.optionalID(item.parent)
        w.field("created", item.created)
        if let info = item.recording {
            w.field("duration", info.duration)
            w.field("frames", info.frames)
            w.field("sampleRate", info.sampleRate)
            w.field("channels", info.channels)
            w.field("format", info.format.rawValue)
            w.field("file", info.file)
            AnalysisCodec.write(info.analysis, to: &w)
        } else {
            w.key("children")
            w.ids(item.children)
        }
        AnnotationCodec.write(item.annotations, to: &w)
        ChangeTimesCodec.write(item.changed, to: &w)
        w.endObject()
    }

    package struct Corrupt: Error, Equatable, CustomStringConvertible {
        /// What kind of wrong: `fsck --repair` rebuilds from JSON that does not decode and from
        /// a file that is not a store, never from a newer version's store.
        package enum Kind: Equatable, Sendable {
            case syntax, notAStore, newerVersion, brokenLinks
        }
        package var kind: Kind
        package var reason: String
        package var description: String { reason }
    }

    /// What a load found wrong with the links between items. A normal load refuses a store
    /// with any of these; `fsck` loads leniently and reports them.
    package enum LinkProblem: Equatable, Sendable, CustomStringConvertible {
        case missingRoot
        case missingParent(ItemID, parent: ItemID)
        case parentNotAFolder(ItemID, parent: ItemID)
        case childListMismatch(folder: ItemID)
        case unreachable(ItemID)
        case duplicateName(folder: ItemID, name: String)
        case duplicateID(ItemID)

        package var description: String {
            switch self {
            case .missingRoot: return "the root folder \(ItemID.root) is missing"
            case .missingParent(let id, let parent): return "item \(id) has parent \(parent), which does not exist"
            case .parentNotAFolder(let id, let parent): return "item \(id) has parent \(parent), which is not a folder"
            case .childListMismatch(let folder):
                return "folder \(folder) lists children that do not match its items' parent links"
            case .unreachable(let id): return "item \(id) cannot be reached from the root (a parent cycle)"
            case .duplicateName(let folder, let name):
                return "folder \(folder) holds more than one item named \"\(name)\""
            case .duplicateID(let id): return "uuid \(id) is used by more than one item"
            }
        }
    }

    /// Decodes and checks. In strict mode any link problem is an error; otherwise the links
    /// are rebuilt from the parent pointers and the problems are returned.
    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>, strict: Bool = true) throws -> (
        Document, [LinkProblem]
    ) {
        let decoded = try decodeVersioned(bytes, strict: strict)
        return (decoded.document, decoded.problems)
    }

    /// The version a store.json says it was written as, from its top-level `"version"` alone
    /// (the items are skipped, not decoded); nil when it is not an object with one. What sync
    /// asks of a remote's store.json before taking it: a fast-forward runs no merge driver.
    package static func declaredVersion(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var reader = JSONReader(bytes)
        do {
            try reader.beginObject()
            var first = true
            while let key = try reader.nextKey(first: &first) {
                if key.equals("version") { return Int(try reader.readInt()) }
                try reader.skipValue()
            }
        } catch {}
        return nil
    }

    /// `decode`, and the version the file was written as.
    /// `itemRanges` says where each item of the `items` array lies in `bytes` (what `find`'s
    /// index keeps, so that it decodes only the items it prints); the trash's are not listed.
    package static func decodeVersioned(_ bytes: UnsafeBufferPointer<UInt8>, strict: Bool = true) throws
        -> (document: Document, problems: [LinkProblem], version: Int, itemRanges: [(id: ItemID, range: Range<Int>)])
    {
        let loaded = try load(bytes, strict: strict)
        return (loaded.document, loaded.problems, loaded.version, loaded.itemRanges)
    }

    /// What `decodeVersioned` gives, and whether the document is what the bytes say as they
    /// are: what the store needs to write its next change by splicing (`encodeSplicing`).
    struct Loaded {
        var document: Document
        var problems: [LinkProblem]
        var version: Int
        var itemRanges: [(id: ItemID, range: Range<Int>)]
        /// False when reading changed the document from what the bytes say (children put in
        /// display order, or an older version upgraded), so that an item's bytes may not be
        /// what `writeItem` writes for its value.
        var isAsWritten: Bool
    }

    static func load(_ bytes: UnsafeBufferPointer<UInt8>, strict: Bool = true) throws -> Loaded {
        var reader = JSONReader(bytes)
        var items: [ItemID: Item] = [:]
        var ranges: [(id: ItemID, range: Range<Int>)] = []
        var version: Int64?
        var sawItems = false
        var duplicates: [LinkProblem] = []
        var trash: [TrashEntry] = []
        do {
            try reader.beginObject()
            var first = true
            while let key = try reader.nextKey(first: &first) {
                if key.equals("version") {
                    let at = reader.position
                    version = try reader.readInt()
                    if version! > Int64(Document.currentVersion) {
                        throw Corrupt(
                            kind: .newerVersion,
                            reason:
                                "version \(version!) is newer than this recnotes understands (\(Document.currentVersion)); upgrade recnotes"
                        )
                    }
                    if version! < 1 { throw reader.failure("version must be 1 or more", at: at) }
                } else if key.equals("items") {
                    sawItems = true
                    try reader.beginArray()
                    items.reserveCapacity(expectedItemCount(bytes))
                    var firstItem = true
                    while try reader.nextElement(first: &firstItem) {
                        let start = reader.position
                        let item = try decodeItem(&reader)
                        ranges.append((item.id, start..<reader.position))
                        if items.updateValue(item, forKey: item.id) != nil { duplicates.append(.duplicateID(item.id)) }
                    }
                } else if key.equals("trash") {
                    try reader.beginArray()
                    var firstEntry = true
                    while try reader.nextElement(first: &firstEntry) { trash.append(try decodeTrashEntry(&reader)) }
                } else {
                    try reader.skipValue()
                }
            }
            try reader.finish()
        } catch let failure as JSONReader.Failure {
            throw Corrupt(
                kind: .syntax,
                reason: "corrupt JSON at line \(failure.line), column \(failure.column): \(failure.message)")
        }
        guard version != nil else {
            throw Corrupt(kind: .notAStore, reason: "not a recnotes store: no \"version\" field")
        }
        guard sawItems else { throw Corrupt(kind: .notAStore, reason: "not a recnotes store: no \"items\" array") }
        var document = Document(items: items, trash: trash)
        var unsorted: [ItemID] = []
        let problems = duplicates + document.checkLinks(unsorted: &unsorted)
        // Children out of display order are no damage: a store written before names sorted
        // naturally (by code point), or edited by hand. They are put in order here, and
        // written so with the next change.
        if problems.isEmpty { document.sortChildren(of: unsorted) }
        let isAsWritten = problems.isEmpty && unsorted.isEmpty && version! == Int64(Document.currentVersion)
        if !problems.isEmpty {
            if strict {
                let more =
                    problems.count > 1
                    ? " (and \(problems.count - 1) more problem\(problems.count > 2 ? "s" : ""); run recnotes fsck)"
                    : "; run recnotes fsck"
                throw Corrupt(kind: .brokenLinks, reason: "broken links: \(problems[0])\(more)")
            }
            document.rebuildLinks()
        }
        return Loaded(
            document: document, problems: problems, version: Int(version!), itemRanges: ranges,
            isAsWritten: isAsWritten)
    }

    /// About how many items the file holds, to size the table once: `encode` writes one
    /// item a line (a string cannot hold a raw line break). A file reformatted by hand or
    /// by jq has more lines than items, or fewer; the table then is bigger than needed, or
    /// grows as usual.
    private static func expectedItemCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var lines = 0
        var offset = 0
        while offset < bytes.count, let hit = memchr(base + offset, 0x0A, bytes.count - offset) {
            lines += 1
            offset = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit)) + 1
        }
        return min(lines, bytes.count / 32)
    }

    /// One item, from its bytes as `decodeVersioned`'s `itemRanges` gave them. Without
    /// `markerIDs`, markers an older store gave no id keep none (`Marker.unassigned`): for an
    /// item only shown (`find`'s hits), since deriving them costs and no output shows them.
    /// With `headOnly`, only what comes first in an item as `writeItem` lays it out is read:
    /// its uuid, type, name, parent, creation time, and a recording's audio fields or a
    /// folder's children; its annotations, analysis and change times are left in the bytes
    /// (empty, none and unknown in the item). What a merge looks at of an item that is the
    /// same on every side (`SharedItemsCodec`); an item laid out otherwise is read whole.
    static func decodeItem(_ bytes: UnsafeBufferPointer<UInt8>, markerIDs: Bool = true, headOnly: Bool = false)
        throws -> Item
    {
        var reader = JSONReader(bytes)
        return try decodeItem(&reader, markerIDs: markerIDs, headOnly: headOnly)
    }

    static func decodeTrashEntry(_ r: inout JSONReader) throws -> TrashEntry {
        let start = r.position
        var parent: ItemID?
        var path: String?
        var removed: Timestamp?
        var entryItems: [Item] = []
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("parent") {
                let at = r.position
                guard let id = ItemID(utf8: try r.readRawString()) else {
                    throw r.failure("parent is not a UUID", at: at)
                }
                parent = id
            } else if key.equals("path") {
                path = try r.readString()
            } else if key.equals("removed") {
                let at = r.position
                guard let t = Timestamp(utf8: try r.readRawString()) else {
                    throw r.failure("removed is not an ISO 8601 time", at: at)
                }
                removed = t
            } else if key.equals("items") {
                try r.beginArray()
                var firstItem = true
                while try r.nextElement(first: &firstItem) { entryItems.append(try decodeItem(&r)) }
            } else {
                try r.skipValue()
            }
        }
        guard let parent, let path, let removed, !entryItems.isEmpty else {
            throw r.failure("trash entry needs parent, path, removed and items", at: start)
        }
        return TrashEntry(parent: parent, path: path, removed: removed, items: entryItems)
    }

    private static func decodeItem(_ r: inout JSONReader, markerIDs: Bool = true, headOnly: Bool = false) throws
        -> Item
    {
        let start = r.position
        var id: ItemID?
        var type: ItemKind?
        var name: String?
        var parent: ItemID??
        var created: Timestamp?
        var children: [ItemID] = []
        var duration: Double?
        var frames: Int64?
        var sampleRate: Int64?
        var channels: Int64?
        var format: AudioFormat?
        var file: String?
        var analysis: AudioAnalysis?
        var annotations = Annotations()
        var changed = ChangeTimes.unknown
        var sawChildren = false

        func readID(_ r: inout JSONReader, _ what: String) throws -> ItemID {
            let at = r.position
            let raw = try r.readRawString()
            guard let value = ItemID(utf8: raw) else { throw r.failure("\(what) is not a UUID", at: at) }
            return value
        }

        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("uuid") {
                id = try readID(&r, "uuid")
            } else if key.equals("type") {
                let at = r.position
                let raw = try r.readRawString()
                if raw.equals("folder") {
                    type = .folder
                } else if raw.equals("recording") {
                    type = .recording
                } else {
                    throw r.failure("type must be \"folder\" or \"recording\"", at: at)
                }
            } else if key.equals("name") {
                name = try r.readString()
            } else if key.equals("parent") {
                parent = r.readNull() ? .some(nil) : try readID(&r, "parent")
            } else if key.equals("created") {
                let at = r.position
                let raw = try r.readRawString()
                guard let t = Timestamp(utf8: raw) else { throw r.failure("created is not an ISO 8601 time", at: at) }
                created = t
            } else if key.equals("children") {
                try r.beginArray()
                var firstChild = true
                while try r.nextElement(first: &firstChild) { children.append(try readID(&r, "child")) }
                sawChildren = true
            } else if key.equals("duration") {
                duration = try r.readDouble()
            } else if key.equals("frames") {
                frames = try r.readInt()
            } else if key.equals("sampleRate") {
                sampleRate = try r.readInt()
            } else if key.equals("channels") {
                channels = try r.readInt()
            } else if key.equals("format") {
                let at = r.position
                let name = try r.readString()
                guard let known = AudioFormat(rawValue: name) else {
                    throw r.failure(
                        "unknown audio format \"\(name)\" (known: \(AudioFormat.allCases.map(\.rawValue).joined(separator: ", ")))",
                        at: at)
                }
                format = known
            } else if key.equals("file") {
                file = try r.readString()
            } else if key.equals("analysis") {
                analysis = try AnalysisCodec.read(&r)
            } else if try AnnotationCodec.read(key, from: &r, into: &annotations) {
                continue
            } else if key.equals("changed") {
                changed = try ChangeTimesCodec.read(&r)
            } else {
                try r.skipValue()
            }
            if headOnly, id != nil, name != nil, parent != nil, created != nil, let type {
                let audio =
                    duration != nil && frames != nil && sampleRate != nil && channels != nil && format != nil
                    && file != nil
                if type == .folder ? sawChildren : audio { break }
            }
        }
        func missing(_ field: String) -> JSONReader.Failure { r.failure("item has no \"\(field)\"", at: start) }
        guard let id else { throw missing("uuid") }
        guard let type else { throw missing("type") }
        guard let name else { throw missing("name") }
        guard let parent else { throw missing("parent") }
        guard let created else { throw missing("created") }
        if (parent == nil) != (id == .root) {
            throw r.failure(id == .root ? "the root folder has a parent" : "item \(id) has no parent", at: start)
        }
        if let problem = NameRules.violation(name), id != .root {
            throw r.failure("item \(id) has an invalid name: \(problem)", at: start)
        }
        if type == .folder, !annotations.markers.isEmpty {
            throw r.failure("folder \(id) has markers; only recordings do", at: start)
        }
        if type == .folder, annotations.trim != nil {
            throw r.failure("folder \(id) has trim points; only recordings do", at: start)
        }
        if type == .folder, !annotations.enhance.isOff {
            throw r.failure("folder \(id) is enhanced; only recordings are", at: start)
        }
        // Markers of a store before version 4 have no ids: they get ids derived from the
        // recording, the same on every machine (`Marker.derivedID`).
        if markerIDs { annotations.assignMarkerIDs(item: id) }
        switch type {
        case .folder:
            return Item(
                id: id, parent: parent, name: name, created: created, children: children, recording: nil,
                annotations: annotations, changed: changed)
        case .recording:
            guard let duration else { throw missing("duration") }
            guard let frames else { throw missing("frames") }
            guard let sampleRate else { throw missing("sampleRate") }
            guard let channels else { throw missing("channels") }
            guard let format else { throw missing("format") }
            guard let file else { throw missing("file") }
            guard duration >= 0, frames >= 0,
                StoredLayout.isPlausible(rate: Int64(sampleRate), channels: Int64(channels))
            else {
                throw r.failure("recording \(id) has out-of-range audio fields", at: start)
            }
            // The slash looked for in the bytes: `utf8.contains` walks the String's view an
            // index at a time, which `find --json` paid for every name.
            let hasSlash = file.utf8.withContiguousStorageIfAvailable { $0.contains(47) } ?? file.utf8.contains(47)
            guard !file.isEmpty, !hasSlash, file != ".", file != ".." else {
                throw r.failure("recording \(id) has an invalid file name", at: start)
            }
            analysis?.frames = frames
            analysis?.sampleRate = Int(sampleRate)
            return Item(
                id: id, parent: parent, name: name, created: created, children: [],
                recording: RecordingInfo(
                    duration: duration, frames: frames, sampleRate: Int(sampleRate),
                    channels: Int(channels), format: format, file: file, analysis: analysis),
                annotations: annotations, changed: changed)
        }
    }
}

extension DocumentCodec {
    /// What a broken `store.json` (cut short by a crash of the disk, or damaged by an edit)
    /// still holds: `encode` writes one item, and one trash entry, a line, so every line
    /// that decodes whole on its own is one of them as it was last written. Lines that do
    /// not are skipped; nothing is checked against anything else (`fsck --repair` places
    /// what it finds).
    static func salvage(_ bytes: [UInt8]) -> (items: [Item], trash: [TrashEntry]) {
        var items: [Item] = []
        var trash: [TrashEntry] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            var line = line.drop { $0 == UInt8(ascii: " ") }
            while let last = line.last, last == UInt8(ascii: ",") || last == UInt8(ascii: " ") || last == 13 {
                line = line.dropLast()
            }
            guard line.first == UInt8(ascii: "{") else { continue }
            Array(line).withUnsafeBufferPointer { buffer in
                var reader = JSONReader(buffer)
                if let item = try? decodeItem(&reader), (try? reader.finish()) != nil {
                    items.append(item)
                    return
                }
                var again = JSONReader(buffer)
                if let entry = try? decodeTrashEntry(&again), (try? again.finish()) != nil { trash.append(entry) }
            }
        }
        return (items, trash)
    }
}

extension Document {
    /// Checks, in linear time, that parent pointers and children lists agree, that every
    /// item is reachable from the root, and that names are unique within each folder.
    /// `unsorted` gets the folders whose children are not in display order.
    func checkLinks(unsorted: inout [ItemID]) -> [DocumentCodec.LinkProblem] {
        var problems: [DocumentCodec.LinkProblem] = []
        guard let root = items[.root], root.isFolder else { return [.missingRoot] }
        _ = root
        var listedChildren = 0
        for (id, item) in items {
            if let parentID = item.parent {
                guard let parent = items[parentID] else {
                    problems.append(.missingParent(id, parent: parentID))
                    continue
                }
                if !parent.isFolder { problems.append(.parentNotAFolder(id, parent: parentID)) }
            }
            if item.isFolder {
                var mismatch = false
                var sorted = true
                var adjacent: [DocumentCodec.LinkProblem] = []
                var previous: Item?
                for child in item.children {
                    guard let c = items[child], c.parent == id else {
                        mismatch = true
                        continue
                    }
                    if let p = previous {
                        if p.name == c.name { adjacent.append(.duplicateName(folder: id, name: c.name)) }
                        if !displayOrder(p, c) { sorted = false }
                    }
                    previous = c
                }
                if sorted {
                    problems += adjacent
                } else {
                    unsorted.append(id)
                    // An older order or a hand-edited file: duplicates need not be adjacent.
                    var names = Set<String>()
                    for c in item.children.compactMap({ items[$0] }) where !names.insert(c.name).inserted {
                        problems.append(.duplicateName(folder: id, name: c.name))
                    }
                }
                listedChildren += item.children.count
                if mismatch { problems.append(.childListMismatch(folder: id)) }
            }
        }
        if problems.isEmpty {
            if listedChildren != items.count - 1 {
                // Some item's parent does not list it (or lists it twice).
                var counts: [ItemID: Int] = [:]
                for item in items.values where item.isFolder {
                    for child in item.children { counts[child, default: 0] += 1 }
                }
                for (id, item) in items where id != .root && counts[id] != 1 {
                    problems.append(.childListMismatch(folder: item.parent!))
                }
            }
            if problems.isEmpty && reachableCount() != items.count {
                let seen = Set(subtree(of: .root).map(\.id))
                for id in items.keys where !seen.contains(id) { problems.append(.unreachable(id)) }
            }
        }
        return problems
    }

    /// How many items the root reaches, walking children lists; a parent cycle keeps items
    /// out of reach.
    func reachableCount() -> Int {
        var count = 0
        var stack: [ItemID] = [.root]
        while let id = stack.popLast(), count <= items.count {
            count += 1
            if let children = items[id]?.children { stack.append(contentsOf: children) }
        }
        return count
    }

    /// Puts these folders' children lists in display order.
    mutating func sortChildren(of folders: [ItemID]) {
        for id in folders {
            items[id]!.children = children(of: id).sorted(by: displayOrder).map(\.id)
        }
    }

    /// Rebuilds every folder's children list from the parent pointers, in display order.
    mutating func rebuildLinks() {
        var byParent: [ItemID: [Item]] = [:]
        for item in items.values {
            if let p = item.parent, items[p]?.isFolder == true { byParent[p, default: []].append(item) }
        }
        for id in Array(items.keys) where items[id]!.isFolder {
            items[id]!.children = (byParent[id] ?? []).sorted(by: displayOrder).map(\.id)
        }
    }
}

import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `store.json` as a three-way merge reads and writes it (RecSync's merge driver): of the
/// three versions, most items are the same bytes in all of them. Such an item is decoded once
/// and only as far as the merge looks at it (its head: uuid, type, name, parent and a folder's
/// children), and written back as the bytes it was read from, unless the merge changed it.
/// Only the items that differ somewhere are decoded whole. Used only for files laid out as
/// this version's `DocumentCodec.encode` writes them (one item a line, `uuid` first); any
/// other file (an older version, or one edited by hand) is decoded whole, as ever.
package enum SharedItemsCodec {
    /// The three documents (base, ours, theirs), items the same in all three holding only their
    /// head, and where those lie in ours.
    package struct Decoded {
        package var documents: [Document]
        let ours: [UInt8]
        /// Items the same in all three: their head, and their bytes' range in `ours`.
        let shared: [ItemID: (head: Item, range: Range<Int>)]
        package var sharedCount: Int { shared.count }
        /// The items that are not the same bytes on all three sides, in any of them, sorted:
        /// the only ones a merge must look at (`LibraryMerge.merge(differing:)`).
        package var differing: [ItemID]
    }

    /// Which of the three files is wrong, and why.
    package struct Failure: Error {
        package var index: Int
        package var error: any Error
    }

    /// nil when any file is not laid out as this version writes it, or is not a store (or a
    /// newer one): the caller decodes them whole, which says what is wrong. Throws `Failure`
    /// for an item that differs between the sides and does not decode, or broken links.
    package static func decode(_ files: [[UInt8]]) throws -> Decoded? {
        precondition(files.count == 3)
        // Each step works on the three files apart: theirs (or half of ours) on a second
        // thread while the rest is done here, the machine's two cores.
        let (mine, other) = try JoinableThread.both(
            { [Self.scan(files[0]), Self.scan(files[1])] }, { Self.scan(files[2]) })
        let found = mine + [other]
        var scans: [Scan] = []
        for scan in found {
            guard let scan, scan.version == Document.currentVersion else { return nil }
            scans.append(scan)
        }
        let ours = files[1]
        let (base, theirs) = try JoinableThread.both({ ranges(scans[0]) }, { ranges(scans[2]) })
        let half = scans[1].items.count / 2
        let (first, second) = try JoinableThread.both(
            { try sharedItems(files, scans[1].items[..<half], base, theirs) },
            { try sharedItems(files, scans[1].items[half...], base, theirs) })
        var shared: [ItemID: (head: Item, range: Range<Int>)] = [:]
        shared.reserveCapacity(first.count + second.count)
        for (id, head, range) in first + second { shared[id] = (head, range) }
        let (two, last) = try JoinableThread.both(
            { try (0..<2).map { try document(files, scans, $0, shared: shared) } },
            { try document(files, scans, 2, shared: shared) })
        // The items the merge must look at: the others are the same on all three sides.
        var differing = Set<ItemID>()
        for scan in scans {
            for (id, _) in scan.items where shared[id] == nil { differing.insert(id) }
        }
        return Decoded(documents: two + [last], ours: ours, shared: shared, differing: differing.sorted())
    }

    private static func scan(_ file: [UInt8]) -> Scan? { file.withUnsafeBufferPointer { Self.scan($0) } }

    private static func ranges(_ scan: Scan) -> [ItemID: Range<Int>] {
        Dictionary(scan.items.map { ($0.id, $0.range) }, uniquingKeysWith: { a, _ in a })
    }

    /// Of these items of ours, those that are the same bytes in base and theirs, with their head.
    private static func sharedItems(
        _ files: [[UInt8]], _ items: ArraySlice<(id: ItemID, range: Range<Int>)>, _ base: [ItemID: Range<Int>],
        _ theirs: [ItemID: Range<Int>]
    ) throws -> [(ItemID, Item, Range<Int>)] {
        var shared: [(ItemID, Item, Range<Int>)] = []
        shared.reserveCapacity(items.count)
        do {
            try files[0].withUnsafeBufferPointer { b in
                try files[1].withUnsafeBufferPointer { o in
                    try files[2].withUnsafeBufferPointer { t in
                        for (id, range) in items {
                            guard let rb = base[id], let rt = theirs[id], same(o, range, b, rb), same(o, range, t, rt)
                            else { continue }
                            shared.append((id, try head(UnsafeBufferPointer(rebasing: o[range])), range))
                        }
                    }
                }
            }
        } catch {
            throw Failure(index: 1, error: error)
        }
        return shared
    }

    private static func document(
        _ files: [[UInt8]], _ scans: [Scan], _ index: Int, shared: [ItemID: (head: Item, range: Range<Int>)]
    ) throws -> Document {
        do {
            return try document(files[index], scans[index], shared: shared)
        } catch {
            throw Failure(index: index, error: error)
        }
    }

    /// The merged document as `store.json`: an item the merge left as it was in all three is
    /// copied from ours; one it changed (renamed for a clash, moved back from a cycle) is
    /// decoded whole from ours and written with the change.
    package static func encode(_ document: Document, _ decoded: Decoded) -> [UInt8] {
        decoded.ours.withUnsafeBufferPointer { o in
            DocumentCodec.encodeWithRanges(document, capacity: decoded.ours.count + 4096) { item, w in
                guard let (head, range) = decoded.shared[item.id] else {
                    DocumentCodec.writeItem(item, to: &w)
                    return
                }
                if head == item {
                    w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: o[range]))
                } else if var full = try? DocumentCodec.decodeItem(UnsafeBufferPointer(rebasing: o[range])) {
                    full.name = item.name
                    full.parent = item.parent
                    full.children = item.children
                    DocumentCodec.writeItem(full, to: &w)
                } else {
                    DocumentCodec.writeItem(item, to: &w)
                }
            }.bytes
        }
    }

    package struct Scan {
        var version: Int
        var items: [(id: ItemID, range: Range<Int>)]
        var trash: [TrashEntry]
    }

    private static let itemPrefix = Array(#"{"uuid": ""#.utf8)

    /// Where each item lies, by UUID, and the trash decoded; nil when the file is not laid
    /// out as `encode` writes it (an item a line, starting with its uuid) or does not read,
    /// which the whole decoding then says. An item is found as its line, not parsed: one
    /// that differs between the sides is decoded whole later, and one the same on all three
    /// is copied as it is.
    package static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Scan? {
        guard let base = bytes.baseAddress else { return nil }
        var reader = JSONReader(bytes)
        var version: Int64?
        var items: [(id: ItemID, range: Range<Int>)] = []
        var sawItems = false
        var trash: [TrashEntry] = []
        do {
            try reader.beginObject()
            var first = true
            while let key = try reader.nextKey(first: &first) {
                if key.equals("version") {
                    version = try reader.readInt()
                } else if key.equals("items") {
                    sawItems = true
                    try reader.beginArray()
                    var firstItem = true
                    while try reader.nextElement(first: &firstItem) {
                        reader.skipWhitespace()
                        let start = reader.position
                        let idStart = start + itemPrefix.count
                        guard idStart + 37 <= bytes.count,
                            itemPrefix.indices.allSatisfy({ bytes[start + $0] == itemPrefix[$0] }),
                            bytes[idStart + 36] == UInt8(ascii: "\""),
                            let id = ItemID(utf8: UnsafeBufferPointer(rebasing: bytes[idStart..<idStart + 36])),
                            let newline = memchr(base + start, 0x0A, bytes.count - start)
                        else { return nil }
                        var end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                        if bytes[end - 1] == UInt8(ascii: ",") { end -= 1 }
                        guard bytes[end - 1] == UInt8(ascii: "}") else { return nil }
                        reader.skip(to: end)
                        items.append((id, start..<end))
                    }
                } else if key.equals("trash") {
                    try reader.beginArray()
                    var firstEntry = true
                    while try reader.nextElement(first: &firstEntry) {
                        trash.append(try DocumentCodec.decodeTrashEntry(&reader))
                    }
                } else {
                    try reader.skipValue()
                }
            }
            try reader.finish()
        } catch {
            return nil
        }
        guard let version, sawItems else { return nil }
        return Scan(version: Int(version), items: items, trash: trash)
    }

    private static func same(
        _ a: UnsafeBufferPointer<UInt8>, _ ra: Range<Int>, _ b: UnsafeBufferPointer<UInt8>, _ rb: Range<Int>
    ) -> Bool {
        ra.count == rb.count && memcmp(a.baseAddress! + ra.lowerBound, b.baseAddress! + rb.lowerBound, ra.count) == 0
    }

    /// What of an item the merge looks at when all three sides hold the same bytes: its
    /// head (`DocumentCodec.decodeItem`'s `headOnly`). The rest stays in the bytes, which
    /// are written back as they were unless the merge changed the head.
    static func head(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Item {
        do {
            return try DocumentCodec.decodeItem(bytes, headOnly: true)
        } catch let failure as JSONReader.Failure {
            throw DocumentCodec.Corrupt(kind: .syntax, reason: "corrupt JSON in an item: \(failure.message)")
        }
    }

    /// One of the three documents: shared items as their heads, the others decoded whole;
    /// checked as `DocumentCodec.decode` checks a store.
    private static func document(_ file: [UInt8], _ scan: Scan, shared: [ItemID: (head: Item, range: Range<Int>)])
        throws -> Document
    {
        var items: [ItemID: Item] = [:]
        items.reserveCapacity(scan.items.count)
        var duplicates: [DocumentCodec.LinkProblem] = []
        try file.withUnsafeBufferPointer { bytes in
            for (id, range) in scan.items {
                let item: Item
                if let known = shared[id] {
                    item = known.head
                } else {
                    do {
                        item = try DocumentCodec.decodeItem(UnsafeBufferPointer(rebasing: bytes[range]))
                    } catch let failure as JSONReader.Failure {
                        throw DocumentCodec.Corrupt(kind: .syntax, reason: "corrupt item \(id): \(failure.message)")
                    }
                }
                if items.updateValue(item, forKey: item.id) != nil { duplicates.append(.duplicateID(item.id)) }
            }
        }
        var document = Document(items: items, trash: scan.trash)
        var unsorted: [ItemID] = []
        let problems = duplicates + document.checkLinks(unsorted: &unsorted)
        guard problems.isEmpty else {
            throw DocumentCodec.Corrupt(kind: .brokenLinks, reason: "broken links: \(problems[0]); run recnotes fsck")
        }
        document.sortChildren(of: unsorted)
        return document
    }
}

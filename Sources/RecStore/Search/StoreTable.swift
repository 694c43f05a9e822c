import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The reads' table (`cache/items-table`): every item under the root as a
/// fixed-width record, in `Document.preorder()`'s order, so that `pwd`, `status`, `ls` and
/// `info` find the few items they show and decode only those from their bytes in
/// `store.json`, instead of parsing all of it. A folder's subtree is a run of positions and
/// its children are in it in display order (each child's run ends where the next begins).
///
/// Layout (little-endian 64-bit words):
///
///     magic "RNTABLE2", checksum (`ContentHash` of everything after it),
///     source (as `SearchIndexCodec` writes one), store.json's content hash,
///     count, the document's item count, names' length,
///     flags (1: store.json is laid out as written, `DocumentCodec.isSpliceable`),
///     each item: id high, low, parent + 1 | subtree end << 32, store offset,
///                store length | name length << 32, name offset | folder << 63, duration bits;
///     the names (UTF-8)
///
/// Like `find`'s index it is derived, never the truth: it answers only while `store.json`
/// is the file it names (`SourceIdentity`, and for a `recent` one its content hash); a file
/// whose checksum, lengths or links do not add up is not used. What it says is checked
/// again against the items decoded from `store.json` (`Library.reading`): their ids, their
/// parents, a listed folder's children.
struct StoreTable {
    static let fileName = "items-table"
    static let magic = Array("RNTABLE2".utf8)
    static let headerSize = 8 * 13
    static let recordSize = 8 * 7

    /// The file's bytes: mapped, not copied (a read at 100,000 items would copy 5.6 MB).
    let storage: MappedBytes
    /// The table as it stands: its file's bytes, or with the log's records
    /// (`StoreTableLog`) folded in, what `encode` would make now.
    var bytes: [UInt8] {
        guard !layers.isEmpty else { return Array(storage.buffer) }
        return patched(
            ranges: (0..<count).map { (id: id($0), range: storeRange($0)) }, source: source, contentHash: contentHash)
            ?? Array(storage.buffer)
    }
    let count: Int
    /// Items in the document, under the root or not: when it is `count`, no item is
    /// outside the table (what a UUID prefix needs to be unique in the table alone).
    let documentCount: Int
    /// These three name the file the table describes: the one it was made from, or, with
    /// `layers`, the one the last record made.
    private(set) var identity: FileIdentity
    /// `store.json` as it was when the table was made (`identity`, present or recent).
    private(set) var source: SourceIdentity
    private(set) var contentHash: UInt64
    /// The changes of annotations logged since the file was written (`StoreTableLog`,
    /// `cache/items-table.pending`), in order: each item's range is read through them.
    private(set) var layers: [StoreTableLog.Record] = []
    /// `layers` folded into one step function over the table's own ranges: every edit's
    /// start in the file the table was made from and the sum of the length changes up to
    /// and with it (items keep their order in the file, so an item moves by the changes
    /// of the edits before it, whichever record made them), and the length now of the item
    /// edited there (items do not overlap, so an edit's start is its item's alone; an item
    /// edited by several records has as many entries, each with its last length). A range
    /// is then one binary search, whatever the number of records, with no look-up by item.
    private var editStarts: [Int] = []
    private var shiftsAfter: [Int] = []
    private var editedLengths: [Int] = []
    /// Whether `store.json` (the file named) is laid out as recnotes writes it
    /// (`DocumentCodec.isSpliceable`), checked when the table was made: then a splice
    /// through the table does not read every line of it again to know.
    let isSpliceable: Bool
    /// `store.json` as mapped (and hashed) to trust a `recent` table, when asked to keep it
    /// (`current(at:keepingBytes:)`): a change spliced through the table uses it instead of
    /// mapping the file a second time (`DocumentStore.splice`).
    private(set) var storeBytes: MappedBytes?

    private func word(_ position: Int, _ k: Int) -> UInt64 {
        UInt64(
            littleEndian: storage.buffer.loadUnaligned(
                fromByteOffset: Self.headerSize + position * Self.recordSize + k * 8, as: UInt64.self))
    }

    func id(_ position: Int) -> ItemID { ItemID(high: word(position, 0), low: word(position, 1)) }
    /// nil for the root.
    func parent(_ position: Int) -> Int? {
        let parent = Int(word(position, 2) & 0xFFFF_FFFF) - 1
        return parent >= 0 ? parent : nil
    }
    func subtreeEnd(_ position: Int) -> Int { Int(word(position, 2) >> 32) }
    func storeRange(_ position: Int) -> Range<Int> {
        let start = Int(word(position, 3))
        let length = Int(word(position, 4) & 0xFFFF_FFFF)
        guard !layers.isEmpty else { return start..<(start + length) }
        let low = editStarts.indices.partitionPoint { editStarts[$0] < start }
        let moved = start + (low > 0 ? shiftsAfter[low - 1] : 0)
        let edited = low < editStarts.count && editStarts[low] == start
        return moved..<(moved + (edited ? editedLengths[low] : length))
    }
    func isFolder(_ position: Int) -> Bool { word(position, 5) >> 63 == 1 }
    func duration(_ position: Int) -> Double { Double(bitPattern: word(position, 6)) }
    private func nameRange(_ position: Int) -> Range<Int> {
        let start = Self.headerSize + count * Self.recordSize + Int(word(position, 5) & ~(1 << 63))
        return start..<(start + Int(word(position, 4) >> 32))
    }
    func name(_ position: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: storage.buffer[nameRange(position)]), as: UTF8.self)
    }

    func position(of id: ItemID) -> Int? {
        (0..<count).first { word($0, 0) == id.high && word($0, 1) == id.low }
    }

    /// A folder's children, in display order.
    func children(of position: Int) -> [Int] {
        var children: [Int] = []
        var next = position + 1
        while next < subtreeEnd(position) {
            children.append(next)
            next = subtreeEnd(next)
        }
        return children
    }

    /// The item and its ancestors, up to the root.
    func ancestry(of position: Int) -> [Int] {
        var chain = [position]
        while let parent = parent(chain[chain.count - 1]) { chain.append(parent) }
        return chain
    }

    /// What `info` says a folder holds: the folders and recordings under it and their
    /// total duration (summed in the order `Document.subtree` sums them).
    func contents(of position: Int) -> (folders: Int, recordings: Int, duration: Double) {
        var folders = 0
        var recordings = 0
        var total = 0.0
        for p in (position + 1)..<subtreeEnd(position) {
            if isFolder(p) {
                folders += 1
            } else {
                recordings += 1
                total += duration(p)
            }
        }
        return (folders, recordings, total)
    }
}

extension StoreTable {
    /// The table of `document`, whose items lie at `ranges` in the `store.json` named by
    /// `source`; nil when an item has no range (the file is not the one the document was
    /// read from or written as) or the file is too large for its fields.
    static func encode(
        _ document: Document, ranges itemRanges: [(id: ItemID, range: Range<Int>)], source: SourceIdentity,
        contentHash: UInt64, spliceable: Bool
    ) -> [UInt8]? {
        // Preorder as `Document.preorder()` walks it, without copying whole items (a write
        // at 100,000 items pays for this): each item's id, parent's position, name, kind and
        // duration as it is met.
        let count = document.count
        var ids: [ItemID] = []
        var parents: [Int] = []
        var kinds: [(isFolder: Bool, duration: Double)] = []
        var nameEnds: [Int] = []
        var names: [UInt8] = []
        ids.reserveCapacity(count)
        parents.reserveCapacity(count)
        kinds.reserveCapacity(count)
        nameEnds.reserveCapacity(count)
        var stack: [(id: ItemID, parent: Int)] = [(.root, -1)]
        while let (id, parent) = stack.popLast() {
            guard let item = document.items[id] else { continue }
            let position = ids.count
            ids.append(id)
            parents.append(parent)
            kinds.append((item.isFolder, item.recording?.duration ?? 0))
            names.append(contentsOf: item.name.utf8)
            nameEnds.append(names.count)
            for child in item.children.reversed() { stack.append((child, position)) }
        }
        // A store recnotes wrote lists its items in this order; another is looked up by id.
        var ranges: [Range<Int>] = []
        if itemRanges.count == ids.count, zip(itemRanges, ids).allSatisfy({ $0.id == $1 }) {
            ranges = itemRanges.map(\.range)
        } else {
            var byID: [ItemID: Range<Int>] = [:]
            byID.reserveCapacity(itemRanges.count)
            for (id, range) in itemRanges { byID[id] = range }
            for id in ids {
                guard let range = byID[id] else { return nil }
                ranges.append(range)
            }
        }
        return write(
            ids: ids, parents: parents, kinds: kinds, nameEnds: nameEnds, names: names, ranges: ranges,
            documentCount: count, source: source, contentHash: contentHash, spliceable: spliceable)
    }

    /// The table's bytes, from its columns in preorder (`parents` -1 for the root,
    /// `nameEnds` where each name ends in `names`).
    private static func write(
        ids: [ItemID], parents: [Int], kinds: [(isFolder: Bool, duration: Double)], nameEnds: [Int], names: [UInt8],
        ranges: [Range<Int>], documentCount count: Int, source: SourceIdentity, contentHash: UInt64,
        spliceable: Bool
    ) -> [UInt8]? {
        guard ids.count < 1 << 31 else { return nil }
        // Children follow their parent, so a subtree's end is known from the end backwards.
        var ends = Array(0..<ids.count).map { $0 + 1 }
        for position in ids.indices.reversed() where parents[position] >= 0 {
            ends[parents[position]] = max(ends[parents[position]], ends[position])
        }
        var w = Words(capacity: headerSize + ids.count * recordSize + names.count)
        w.bytes += magic
        w.word(0)  // the checksum, below
        w.source(source)
        w.word(contentHash)
        w.int(ids.count)
        w.int(count)
        w.int(names.count)
        w.word(spliceable ? 1 : 0)
        for position in ids.indices {
            let range = ranges[position]
            guard range.count < 1 << 32 else { return nil }
            let name = position == 0 ? 0 : nameEnds[position - 1]
            w.word(ids[position].high)
            w.word(ids[position].low)
            w.word(UInt64(parents[position] + 1) | UInt64(ends[position]) << 32)
            w.int(range.lowerBound)
            w.word(UInt64(range.count) | UInt64(nameEnds[position] - name) << 32)
            w.word(UInt64(name) | (kinds[position].isFolder ? 1 << 63 : 0))
            w.word(kinds[position].duration.bitPattern)
        }
        w.bytes += names
        seal(&w.bytes)
        return w.bytes
    }

    /// The table in `cache/`, nil when there is none, it is damaged, or `store.json` is not
    /// the file it was made from.
    /// With `keepingBytes`, the bytes of `store.json` read to trust a `recent` one are kept
    /// in `storeBytes`.
    static func current(at location: StoreLocation, keepingBytes: Bool = false) -> StoreTable? {
        guard let storage = MappedBytes(mapping: location.storeTableFile), var table = StoreTable(storage) else {
            return nil
        }
        // The log before store.json's identity: a change after the log was read leaves
        // store.json past the chain's end, which then does not match it.
        if let logged = try? FileSystem.read(location.storeTableLogFile) {
            guard let records = StoreTableLog.decode(logged), table.following(records) else { return nil }
        }
        guard let now = FileIdentity(path: location.storeFile), now == table.identity else { return nil }
        switch table.source {
        case .present: return table
        case .recent:
            // Made from a store.json then just written: its identity alone does not prove a
            // second change in the same clock tick absent, its bytes do.
            // Mapped, not copied: the page cache holds it, and hashing reads it once.
            guard let store = MappedBytes(mapping: location.storeFile),
                store.identity == table.identity,
                ContentHash.of(store.buffer) == table.contentHash
            else { return nil }
            if keepingBytes { table.storeBytes = store }
            return table
        case .absent, .untrusted: return nil
        }
    }

    /// The records of `log` that continue from the file this table names, taken in as
    /// `layers` (a record that does not start where the chain stands is another chain's,
    /// left by a log that was not dropped, and is passed over); false when a range they give
    /// falls outside the file the last one made.
    mutating func following(_ log: [StoreTableLog.Record]) -> Bool {
        var edits: [(start: Int, change: Int)] = []
        // Each edited item's length now, by its start in the table's file.
        var lengths: [Int: Int] = [:]
        for record in log
        where ItemIndexLog.names(source, hash: contentHash, sameFileAs: record.base, hash: record.baseHash) {
            let made: FileIdentity
            switch record.made {
            case .present(let identity), .recent(let identity): made = identity
            case .absent, .untrusted: return false
            }
            // Each edit where the table (with the records before) has its item, inside the
            // file, and the file's length changed by theirs alone: then every item lies
            // inside the file made (they keep their order, and none overlaps another).
            var change = 0
            for edit in record.edits {
                guard edit.position < count, storeRange(edit.position) == edit.old,
                    edit.old.upperBound <= Int(identity.size)
                else { return false }
                change += edit.newLength - edit.old.count
            }
            guard Int(identity.size) + change == Int(made.size) else { return false }
            for edit in record.edits {
                let start = Int(word(edit.position, 3))
                edits.append((start, edit.newLength - edit.old.count))
                lengths[start] = edit.newLength
            }
            edits.sort { $0.start < $1.start }
            editStarts = edits.map(\.start)
            editedLengths = edits.map { lengths[$0.start]! }
            var sum = 0
            shiftsAfter = edits.map {
                sum += $0.change
                return sum
            }
            layers.append(record)
            (source, contentHash, identity) = (record.made, record.madeHash, made)
        }
        return true
    }

    /// What the second word of a table holds: the `ContentHash` of all that follows it.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        ContentHash.of(UnsafeRawBufferPointer(rebasing: bytes[16...]))
    }

    /// Writes a finished table's checksum into it.
    static func seal(_ bytes: inout [UInt8]) {
        let sum = bytes.withUnsafeBytes { checksum($0) }
        withUnsafeBytes(of: sum.littleEndian) { bytes.replaceSubrange(8..<16, with: $0) }
    }

    /// The table in `bytes`, when its checksum, lengths and links add up.
    init?(_ bytes: [UInt8]) { self.init(MappedBytes(bytes)) }

    init?(_ storage: MappedBytes) {
        let bytes = storage.buffer
        var r = WordReader(Array(bytes.prefix(Self.headerSize)))
        guard r.magic(Self.magic), let checksum = r.word(), let source = r.source(), let contentHash = r.word(),
            let count = r.count(), let documentCount = r.count(), let namesLength = r.count(),
            let flags = r.word(), flags <= 1, count >= 1, count < 1 << 31,
            count <= (bytes.count - Self.headerSize) / Self.recordSize,
            bytes.count == Self.headerSize + count * Self.recordSize + namesLength,
            checksum == Self.checksum(bytes)
        else { return nil }
        let identity: FileIdentity
        switch source {
        case .present(let known), .recent(let known): identity = known
        case .absent, .untrusted: return nil
        }
        self.storage = storage
        self.count = count
        self.documentCount = documentCount
        self.identity = identity
        self.source = source
        self.contentHash = contentHash
        isSpliceable = flags == 1
        // Every link inside the table and every range inside its files, so that nothing read
        // later can fall outside them: a parent before its child and its subtree around it.
        guard self.id(0) == .root, parent(0) == nil, subtreeEnd(0) == count else { return nil }
        let names = Self.headerSize + count * Self.recordSize..<bytes.count
        for position in 0..<count {
            let end = subtreeEnd(position)
            let name = nameRange(position)
            guard end > position, end <= count, name.lowerBound >= names.lowerBound,
                name.upperBound <= names.upperBound,
                storeRange(position).upperBound <= Int(identity.size)
            else { return nil }
            if position > 0 {
                guard let parent = parent(position), parent < position, end <= subtreeEnd(parent) else { return nil }
            }
        }
    }

    /// Writes the table of `document` as read from or written to `store.json` (best
    /// effort, not flushed: one that is gone or stale is made again; a store that cannot be
    /// written keeps none).
    static func save(
        _ document: Document, ranges: [(id: ItemID, range: Range<Int>)], source: SourceIdentity, contentHash: UInt64,
        spliceable: Bool, in location: StoreLocation
    ) {
        guard location.isWritable,
            let bytes = encode(
                document, ranges: ranges, source: source, contentHash: contentHash, spliceable: spliceable)
        else { return }
        try? FileSystem.makeDirectories(location.cacheDirectory)
        write(bytes, in: location)
    }

    /// A table's bytes written whole, and the log of changes to the one before it dropped:
    /// the table written names the file it describes (a reader that meets it with the old
    /// log finds no record that starts there, and one that meets the old table with no log
    /// finds it stale).
    static func write(_ bytes: [UInt8], in location: StoreLocation) {
        try? FileSystem.writeAtomically(bytes, to: location.storeTableFile, durable: false)
        try? FileSystem.remove(location.storeTableLogFile)
    }

    /// After a reading command succeeded: when it read the whole store (the table could not
    /// answer), the table made from it if the one in `cache/` is missing or stale, so that
    /// the next read is answered from it; when it read through a table that trusted
    /// `store.json` by its bytes (`recent`), and the file is now a second old, the table
    /// marked as trusting its identity, so that later reads do not read all of store.json
    /// to hash it. Never after a failed command, which changes no file.
    static func refresh(_ library: Library) {
        if let table = library.table {
            guard case .recent = table.source, case .present = SourceIdentity.of(table.identity),
                library.location.isWritable
            else { return }
            var bytes = table.bytes
            var w = Words(capacity: 48)
            w.source(.present(table.identity))
            bytes.replaceSubrange(16..<64, with: w.bytes)
            seal(&bytes)
            write(bytes, in: library.location)
            return
        }
        let store = library.documents
        guard !store.isPartial, let identity = store.identity, let ranges = store.itemRanges,
            let source = store.source, FileIdentity(path: library.location.storeFile) == identity,
            current(at: library.location) == nil
        else { return }
        save(
            store.document, ranges: ranges, source: source.identity, contentHash: source.contentHash,
            spliceable: store.isSpliceable, in: library.location)
    }

    /// This table after a change that moved no item, only where their bytes lie
    /// (`SearchIndexFiles.storeSpliced`): each record's range in `store.json` set from
    /// `ranges` (the new file's, in the table's order), the new file named as the source;
    /// nil when `ranges` is not in step with the table.
    func patched(ranges: [(id: ItemID, range: Range<Int>)], source: SourceIdentity, contentHash: UInt64) -> [UInt8]? {
        guard ranges.count == count else { return nil }
        var header = Words(capacity: 56)
        header.source(source)
        header.word(contentHash)
        // The old bytes copied once and their words set in place (a table of 100,000 items
        // is 5.6 MB: no array is made per record).
        let old = storage.buffer
        var valid = true
        var bytes = [UInt8](unsafeUninitializedCapacity: old.count) { raw, initialized in
            let base = UnsafeMutableRawPointer(raw.baseAddress!)
            base.copyMemory(from: old.baseAddress!, byteCount: old.count)
            header.bytes.withUnsafeBytes { (base + 16).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            // A splice writes what a full encode would: laid out as written.
            base.storeBytes(of: UInt64(1).littleEndian, toByteOffset: 96, as: UInt64.self)
            for (position, entry) in ranges.enumerated() {
                guard entry.id == id(position), entry.range.count < 1 << 32 else {
                    valid = false
                    break
                }
                let at = Self.headerSize + position * Self.recordSize
                let nameLength = word(position, 4) >> 32
                base.storeBytes(of: UInt64(entry.range.lowerBound).littleEndian, toByteOffset: at + 24, as: UInt64.self)
                base.storeBytes(
                    of: (UInt64(entry.range.count) | nameLength << 32).littleEndian, toByteOffset: at + 32,
                    as: UInt64.self)
            }
            initialized = old.count
        }
        guard valid else { return nil }
        Self.seal(&bytes)
        return bytes
    }

    /// This table after a change that added or moved items, spliced into `store.json`
    /// through it (`DocumentCodec.splicingStructure`): `layout` the new file's items in
    /// order, as runs of this table's positions kept whole (a subtree untouched, its bytes
    /// moved by one shift) and items placed on their own. An item placed that is `touched`
    /// or added takes its name and kind from `document` (which holds it and its ancestors),
    /// every other one keeps its record but for its links and range. The bytes `encode` makes
    /// for the whole document after the change; nil when something does not add up.
    /// A kept run is copied as one block of records and one of names, then each record's
    /// positions, offset in `store.json` and name offset moved by the run's shifts: no array
    /// per item, no look-up by id (at 100,000 items this was most of a `mkdir`'s own work).
    func restructured(
        _ document: Document, touched: Set<ItemID>, layout: DocumentCodec.TableLayout, source: SourceIdentity,
        contentHash: UInt64
    ) -> [UInt8]? {
        let n = layout.count
        guard n >= 1, n < 1 << 31 else { return nil }
        let namesBase = Self.headerSize + count * Self.recordSize
        // Where a kept run's names lie among this table's: one after another, in its order.
        func names(_ run: Range<Int>) -> Range<Int> {
            nameRange(run.lowerBound).lowerBound - namesBase..<nameRange(run.upperBound - 1).upperBound - namesBase
        }
        func fresh(_ id: ItemID, _ origin: Int?) -> Item? {
            origin == nil || touched.contains(id) ? document.items[id] : nil
        }
        var namesLength = 0
        var position = 0
        for piece in layout.pieces {
            switch piece {
            case .kept(let run, _, let parent):
                guard run.lowerBound > 0, run.upperBound <= count, subtreeEnd(run.lowerBound) == run.upperBound,
                    parent >= 0, parent < position
                else { return nil }
                namesLength += names(run).count
                position += run.count
            case .placed(let id, let origin, let range, let parent, let end):
                guard range.count < 1 << 32, parent < position, parent >= 0 || position == 0, end > position,
                    end <= n
                else { return nil }
                if let item = fresh(id, origin) {
                    namesLength += item.name.utf8.count
                } else if let origin, origin < count, self.id(origin) == id {
                    namesLength += nameRange(origin).count
                } else {
                    return nil
                }
                position += 1
            }
        }
        guard position == n else { return nil }
        var header = Words(capacity: Self.headerSize)
        header.bytes += Self.magic
        header.word(0)  // the checksum, below
        header.source(source)
        header.word(contentHash)
        header.int(n)
        header.int(n)
        header.int(namesLength)
        // A splice writes what a full encode would: laid out as written, whatever the table said.
        header.word(1)
        guard header.bytes.count == Self.headerSize else { return nil }
        let namesStart = Self.headerSize + n * Self.recordSize
        let total = namesStart + namesLength
        let old = storage.buffer.baseAddress!
        let layered = !layers.isEmpty
        var valid = true
        var bytes = [UInt8](unsafeUninitializedCapacity: total) { raw, initialized in
            let base = UnsafeMutableRawPointer(raw.baseAddress!)
            header.bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            var position = 0
            var nameAt = 0
            func put(_ at: Int, _ k: Int, _ value: UInt64) {
                base.storeBytes(of: value.littleEndian, toByteOffset: at + k * 8, as: UInt64.self)
            }
            pieces: for piece in layout.pieces {
                switch piece {
                case .kept(let run, let shift, let parent):
                    let to = Self.headerSize + position * Self.recordSize
                    (base + to).copyMemory(
                        from: old + Self.headerSize + run.lowerBound * Self.recordSize,
                        byteCount: run.count * Self.recordSize)
                    let span = names(run)
                    (base + namesStart + nameAt).copyMemory(
                        from: old + namesBase + span.lowerBound, byteCount: span.count)
                    // Inside the run every link moves with it; its root's parent is `parent`.
                    let moved = position - run.lowerBound
                    var expectedName = span.lowerBound
                    for k in run {
                        let at = to + (k - run.lowerBound) * Self.recordSize
                        let name = Int(word(k, 5) & ~(1 << 63))
                        let end = subtreeEnd(k) + moved
                        let linked = k == run.lowerBound ? parent : (self.parent(k) ?? -1) + moved
                        // Names one after another as the span copied says, links inside the run.
                        guard name == expectedName, linked >= (k == run.lowerBound ? 0 : position) else {
                            valid = false
                            break pieces
                        }
                        expectedName += nameRange(k).count
                        put(at, 2, UInt64(linked + 1) | UInt64(end) << 32)
                        put(at, 5, UInt64(name - span.lowerBound + nameAt) | (word(k, 5) & 1 << 63))
                        if layered {
                            let range = storeRange(k)
                            guard range.count < 1 << 32 else {
                                valid = false
                                break pieces
                            }
                            put(at, 3, UInt64(range.lowerBound + shift))
                            put(at, 4, UInt64(range.count) | (word(k, 4) & 0xFFFF_FFFF_0000_0000))
                        } else {
                            put(at, 3, UInt64(Int(word(k, 3)) + shift))
                        }
                    }
                    position += run.count
                    nameAt += span.count
                case .placed(let id, let origin, let range, let parent, let end):
                    let at = Self.headerSize + position * Self.recordSize
                    let nameLength: Int
                    let folder: Bool
                    let duration: UInt64
                    if let item = fresh(id, origin) {
                        var name = item.name
                        nameLength = name.withUTF8 { utf8 in
                            if let from = utf8.baseAddress {
                                (base + namesStart + nameAt).copyMemory(from: from, byteCount: utf8.count)
                            }
                            return utf8.count
                        }
                        folder = item.isFolder
                        duration = (item.recording?.duration ?? 0).bitPattern
                    } else {
                        let origin = origin!
                        let name = nameRange(origin)
                        nameLength = name.count
                        (base + namesStart + nameAt).copyMemory(from: old + name.lowerBound, byteCount: name.count)
                        folder = isFolder(origin)
                        duration = word(origin, 6)
                    }
                    put(at, 0, id.high)
                    put(at, 1, id.low)
                    put(at, 2, UInt64(parent + 1) | UInt64(end) << 32)
                    put(at, 3, UInt64(range.lowerBound))
                    put(at, 4, UInt64(range.count) | UInt64(nameLength) << 32)
                    put(at, 5, UInt64(nameAt) | (folder ? 1 << 63 : 0))
                    put(at, 6, duration)
                    position += 1
                    nameAt += nameLength
                }
            }
            initialized = total
        }
        guard valid else { return nil }
        Self.seal(&bytes)
        return bytes
    }

    /// After the store wrote `store.json` (under its lock): the table made again from the
    /// document in memory and where the write put each item, when there is one to keep.
    static func storeWritten(_ store: DocumentStore) {
        let location = store.location
        guard !store.isReadOnly, FileSystem.exists(location.storeTableFile), let ranges = store.itemRanges,
            let source = store.source
        else { return }
        save(
            store.document, ranges: ranges, source: source.identity, contentHash: source.contentHash,
            spliceable: store.isSpliceable, in: location)
    }
}

/// A file's bytes, mapped, not copied (the reads' table; `store.json` for a splice): read-only
/// and private. recnotes replaces these files, a new inode, so a mapping keeps the bytes it
/// was made from; only a program cutting the file short in place while it is read could
/// make a page vanish under it. The file stays open (`file`) while mapped, so that its
/// identity can be taken and its bytes copied by the kernel. Or copied from an array.
final class MappedBytes {
    let buffer: UnsafeRawBufferPointer
    /// The file mapped, open for reading; nil for bytes copied from an array.
    private let file: OpenFile?

    /// nil when the file cannot be opened or mapped, or is empty.
    /// `populate`: every page mapped at once, for bytes that are all read (one fault a
    /// page costs more); without, only the pages touched are (a splice into a file known to
    /// be laid out as written reads only its head, the changed items and its tail).
    init?(mapping path: String, populate: Bool = true) {
        guard let file = OpenFile(path, O_RDONLY) else { return nil }
        let mapping = file.withDescriptor { fd -> UnsafeRawBufferPointer? in
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_size > 0 else { return nil }
            let count = Int(info.st_size)
            guard let base = mmap(nil, count, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0),
                base != UnsafeMutableRawPointer(bitPattern: -1)
            else { return nil }
            return UnsafeRawBufferPointer(start: base, count: count)
        }
        guard let mapping else { return nil }
        buffer = mapping
        self.file = file
    }

    init(_ bytes: [UInt8]) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        copy.copyBytes(from: bytes)
        buffer = UnsafeRawBufferPointer(rebasing: copy[0..<bytes.count])
        file = nil
    }

    deinit {
        if file != nil {
            munmap(UnsafeMutableRawPointer(mutating: buffer.baseAddress), buffer.count)
        } else {
            buffer.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
        }
    }

    /// Runs `body` with the mapped file's descriptor (-1 for bytes copied from an array).
    func withDescriptor<T>(_ body: (Int32) throws -> T) rethrows -> T {
        guard let file else { return try body(-1) }
        return try file.withDescriptor(body)
    }

    /// The mapped file's identity now; nil for bytes copied from an array.
    var identity: FileIdentity? { withDescriptor { FileIdentity(descriptor: $0) } }
}

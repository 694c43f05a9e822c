import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Changes to `store.json` that `find`'s items index has not taken in yet (
/// `cache/find-items.pending`). A change spliced into `store.json` (`DocumentStore.splice`:
/// tag, note, mkdir, mv) appends one record here instead of reading, patching and writing
/// the whole index, whose size is the store's (5 MB at 10,000 items): its cost stays that
/// of what changed. The next `find` follows the records from the index's source to the
/// current `store.json` (`ItemIndex.caughtUp`), patches the index in memory, searches it,
/// and writes it back with the log dropped.
///
/// Like the index it is never the truth. A record says that the file `made` was written
/// from the file `base` by a change to the items `changed` alone (their annotations, or
/// for `restructured` their place too), under the store lock. A log with a record cut
/// short or damaged (each carries its length and checksum) is not read at all, and a chain
/// that does not lead from the index's source to the file the reads' table names now (a
/// change written whole, another program's edit, a record lost) is not followed: `find`
/// makes the index again, as without a log.
///
///     each record: magic "RNPEND01", payload length, payload's `ContentHash`, then the
///                  payload: base source (as the index files write one), its content hash,
///                  made source, its content hash, flags (1 restructured), count, each
///                  changed item's id high, low
enum ItemIndexLog {
    struct Record: Equatable {
        /// `store.json` before the change, as the reads' table named it.
        var base: SourceIdentity
        var baseHash: UInt64
        /// The file the change wrote (its hash 0 where its identity was stamped).
        var made: SourceIdentity
        var madeHash: UInt64
        /// Items were added or moved (`mkdir`, `mv`); else only `changed`'s annotations changed.
        var restructured: Bool
        var changed: [ItemID]
    }

    static let magic = Array("RNPEND01".utf8)
    /// A log this long means a store changed thousands of times without a search: the
    /// index is dropped then (the next `find` makes it; a store without one keeps no log),
    /// rather than kept behind a log that costs more to follow than to make it again.
    static let limit = 1 << 20

    static func encode(_ record: Record) -> [UInt8] {
        var payload = Words(capacity: 8 * (16 + 2 * record.changed.count))
        payload.chainLink(base: record.base, baseHash: record.baseHash, made: record.made, madeHash: record.madeHash)
        payload.word(record.restructured ? 1 : 0)
        payload.int(record.changed.count)
        for id in record.changed {
            payload.word(id.high)
            payload.word(id.low)
        }
        return LogFrames.frame(payload.bytes, magic: magic)
    }

    /// Every record in `bytes`, nil when any one of them cannot be read whole.
    static func decode(_ bytes: [UInt8]) -> [Record]? {
        LogFrames.records(bytes, magic: magic) { r in
            guard let (base, baseHash, made, madeHash) = r.chainLink(),
                let flags = r.word(), flags <= 1, let count = r.count(), count <= (r.bytes.count - r.at) / 16
            else { return nil }
            var changed: [ItemID] = []
            changed.reserveCapacity(count)
            for _ in 0..<count {
                guard let high = r.word(), let low = r.word() else { return nil }
                changed.append(ItemID(high: high, low: low))
            }
            return Record(
                base: base, baseHash: baseHash, made: made, madeHash: madeHash, restructured: flags == 1,
                changed: changed)
        }
    }

    /// After a change spliced into `store.json` (under the store lock), when there is an
    /// index to keep: `record` appended in one write. Best effort: a record that is not
    /// written whole makes the log unreadable, and the index is made again.
    static func append(_ record: Record, in location: StoreLocation) {
        let path = location.itemIndexLogFile
        guard location.isWritable, FileSystem.exists(location.itemIndexFile) else { return }
        if (FileSystem.size(path) ?? 0) >= limit {
            try? FileSystem.remove(location.itemIndexFile)
            try? FileSystem.remove(path)
            return
        }
        FileSystem.append(encode(record), to: path)
    }

    /// Whether an index made from `source` (whose bytes hash to `hash`) was made from the
    /// file `other` names: the same identity, and for a `recent` one the same content hash
    /// (a `present` identity names one file's bytes alone; the hash is 0 where an identity
    /// was stamped, see `DocumentStore.source`).
    static func names(_ source: SourceIdentity, hash: UInt64, sameFileAs other: SourceIdentity, hash otherHash: UInt64)
        -> Bool
    {
        switch (source, other) {
        case (.present(let a), .present(let b)), (.present(let a), .recent(let b)):
            return a == b
        case (.recent(let a), .present(let b)), (.recent(let a), .recent(let b)):
            return a == b && hash == otherHash
        default: return false
        }
    }
}

extension ItemIndex {
    /// The index in `cache/` brought up to the current `store.json` by the changes logged
    /// since it was made (`ItemIndexLog`), and written back with the log dropped (best
    /// effort: another change meanwhile leaves it stale, never wrong). nil when there is no
    /// log, it cannot be read, its records do not lead from the index's source to the file
    /// the reads' table names now, or an item is not where the table says: the caller makes
    /// the index again.
    static func caughtUp(at location: StoreLocation) -> ItemIndex? {
        // The log before the table: a change after the log was read leaves the table (and
        // store.json) past the chain's end, which then does not connect.
        guard let logged = try? FileSystem.read(location.itemIndexLogFile), let records = ItemIndexLog.decode(logged),
            !records.isEmpty, let table = StoreTable.current(at: location),
            let bytes = try? FileSystem.read(location.itemIndexFile), let index = SearchIndexCodec.decodeItems(bytes)
        else { return nil }
        var source = index.source
        var hash = index.contentHash
        var changed = Set<ItemID>()
        var restructured = false
        var followed = 0
        // A record that does not start where the chain stands is another chain's (left by a
        // log that was not dropped): each record names the file it was written from.
        for record in records
        where ItemIndexLog.names(source, hash: hash, sameFileAs: record.base, hash: record.baseHash) {
            (source, hash) = (record.made, record.madeHash)
            changed.formUnion(record.changed)
            restructured = restructured || record.restructured
            followed += 1
        }
        guard followed > 0,
            ItemIndexLog.names(source, hash: hash, sameFileAs: table.source, hash: table.contentHash)
        else { return nil }
        // Every item where the table says it lies now; the changed ones read from there.
        let ranges = (0..<table.count).map { (id: table.id($0), range: table.storeRange($0)) }
        let wanted = ranges.filter { changed.contains($0.id) }
        guard wanted.count == changed.count else { return nil }
        let read = FileSystem.withOpened(location.storeFile, O_RDONLY) { fd -> [ItemID: Item]? in
            guard FileIdentity(descriptor: fd) == table.identity else { return nil }
            var items: [ItemID: Item] = [:]
            let whole = forEachItem(in: wanted.map(\.range), of: fd) { k, item in
                items[item.id] = item
                return item.id == wanted[k].id
            }
            return whole ? items : nil
        }
        guard let items = read ?? nil else { return nil }
        let patched: ItemIndex?
        if restructured {
            var was: [ItemID: Int] = [:]
            was.reserveCapacity(index.items.count)
            for (position, item) in index.items.enumerated() { was[item.id] = position }
            patched = index.restructured(
                changed: items, ranges: ranges, origins: ranges.map { was[$0.id] }, source: table.source,
                contentHash: table.contentHash)
        } else {
            patched = index.patched(items, ranges: ranges, source: table.source, contentHash: table.contentHash)
        }
        guard let patched else { return nil }
        SearchIndexFiles.saveItems(patched, in: location)
        return patched
    }
}

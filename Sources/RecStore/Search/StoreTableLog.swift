import RecSystem
import RecValues

/// Changes to `store.json` that the reads' table (`StoreTable`, `cache/items-table`) has not
/// taken in yet (`cache/items-table.pending`): a change of annotations spliced
/// through the table (`tag`, `note --set`) appends its record here
/// (`SearchIndexFiles.storeSpliced`, under the store lock) and `StoreTable.current` reads
/// each item's range through the records. A change that adds or moves items (`mkdir`, `mv`)
/// writes the table whole, as does the change past `limit` records; writing it whole drops
/// the log (`StoreTable.write`). docs/design/spliced-write.md says what keeps a reader safe
/// from crashes and concurrent changes.
///
/// Why: without it, every change spliced into `store.json` writes the table whole (0.7 MB at
/// 10,000 items, 6.9 MB at 100,000: 6 % of a 100k `tag`, 19 % of a 100k `mkdir`), because
/// every item after the changed one now lies elsewhere in the file. A change of annotations
/// moves them all by the same amount, so a record of the changed items' old ranges and new
/// lengths says where every item lies now, whatever the store's size. The table itself is
/// never changed in place: a reader that mapped it keeps its bytes.
///
///     each record (framed as `LogFrames` says): magic "RNTDLT01", then the payload: base
///                 source (as the index files write one), its content hash, made source,
///                 its content hash, count, each edit's table position, old start, old
///                 length, new length (by old start, ascending)
enum StoreTableLog {
    /// One item whose bytes a change of annotations replaced.
    struct Edit: Equatable {
        /// Its position in the table.
        var position: Int
        /// Where it lay in the file the change was spliced into.
        var old: Range<Int>
        /// How long its bytes are in the file the change wrote.
        var newLength: Int
    }

    struct Record: Equatable {
        /// `store.json` before the change, as the reads' table (after the records before
        /// this one) named it.
        var base: SourceIdentity
        var baseHash: UInt64
        /// The file the change wrote (its hash 0 where its identity was stamped).
        var made: SourceIdentity
        var madeHash: UInt64
        /// By `old.lowerBound`, ascending, not overlapping.
        var edits: [Edit]

        /// Where the item at `position`, which lay at `old` in the base file, lies in the
        /// file made: an edited one's new bytes start where its old ones did, moved by the
        /// length changes of the edits before it, as every other item's do (items lie one
        /// after another in the file and only the edited ones' bytes were replaced).
        func range(_ position: Int, was old: Range<Int>) -> Range<Int> {
            // The edits starting before `old` (a record may hold many).
            let low = edits.indices.partitionPoint { edits[$0].old.lowerBound < old.lowerBound }
            var shift = 0
            for edit in edits[..<low] { shift += edit.newLength - edit.old.count }
            let start = old.lowerBound + shift
            if low < edits.count, edits[low].position == position, edits[low].old == old {
                return start..<(start + edits[low].newLength)
            }
            return start..<(start + old.count)
        }
    }

    static let magic = Array("RNTDLT01".utf8)

    /// The record of a change of annotations spliced into the file whose items lay at
    /// `old(position)` (id and range, in the table's order), which wrote them at `new`:
    /// each item whose bytes changed (`changed`, the ids the change annotated) as an edit;
    /// nil when an item changed is not where the table has it (then the change is not one
    /// of annotations alone, and the table is written whole). Costs the changed items, each
    /// found by `position` (the table's scan of its ids, `StoreTable.position(of:)`: two
    /// words compared per item, cheaper than hashing every id of `new`); a debug build
    /// checks every item's range through it.
    static func annotations(
        old: (Int) -> (id: ItemID, range: Range<Int>), new: [(id: ItemID, range: Range<Int>)], changed: Set<ItemID>,
        position: (ItemID) -> Int?, base: SourceIdentity, baseHash: UInt64, made: SourceIdentity, madeHash: UInt64
    ) -> Record? {
        var edits: [Edit] = []
        for id in changed {
            guard let position = position(id), position < new.count, new[position].id == id else { return nil }
            let was = old(position)
            guard was.id == id else { return nil }
            edits.append(Edit(position: position, old: was.range, newLength: new[position].range.count))
        }
        guard edits.count == changed.count else { return nil }
        edits.sort { $0.old.lowerBound < $1.old.lowerBound }
        let record = Record(base: base, baseHash: baseHash, made: made, madeHash: madeHash, edits: edits)
        assert(
            new.indices.allSatisfy { record.range($0, was: old($0).range) == new[$0].range },
            "a change of annotations' record does not place every item where the splice wrote it")
        return record
    }

    static func encode(_ record: Record) -> [UInt8] {
        var payload = Words(capacity: 8 * (15 + 4 * record.edits.count))
        payload.chainLink(base: record.base, baseHash: record.baseHash, made: record.made, madeHash: record.madeHash)
        payload.int(record.edits.count)
        for edit in record.edits {
            payload.int(edit.position)
            payload.int(edit.old.lowerBound)
            payload.int(edit.old.count)
            payload.int(edit.newLength)
        }
        return LogFrames.frame(payload.bytes, magic: magic)
    }

    /// Every record in `bytes`, nil when any one of them cannot be read whole or its edits
    /// are not in order (a record that says two things of one byte is not followed).
    static func decode(_ bytes: [UInt8]) -> [Record]? {
        LogFrames.records(bytes, magic: magic) { r in
            guard let (base, baseHash, made, madeHash) = r.chainLink(),
                let count = r.count(), count <= (r.bytes.count - r.at) / 32
            else { return nil }
            var edits: [Edit] = []
            edits.reserveCapacity(count)
            var end = 0
            for _ in 0..<count {
                // Bounded far past any store.json, so that no sum of them overflows.
                guard let position = r.count(), let start = r.count(), let length = r.count(),
                    let newLength = r.count(), start >= end, start < 1 << 48, length < 1 << 40, newLength < 1 << 40
                else { return nil }
                edits.append(Edit(position: position, old: start..<(start + length), newLength: newLength))
                end = start + length
            }
            return Record(base: base, baseHash: baseHash, made: made, madeHash: madeHash, edits: edits)
        }
    }
}

extension StoreTableLog {
    /// Records past this many: the table is written whole instead (and the log dropped), so
    /// that a reader follows at most this many records for each item's range.
    static let limit = 32

    /// After a change of annotations spliced into `store.json` (under the store lock):
    /// `record` appended in one write. false when it could not be written whole (the
    /// caller writes the table whole, which drops the log: a record cut short would make
    /// the log unreadable and the table unused).
    static func append(_ record: Record, in location: StoreLocation) -> Bool {
        FileSystem.append(encode(record), to: location.storeTableLogFile)
    }
}

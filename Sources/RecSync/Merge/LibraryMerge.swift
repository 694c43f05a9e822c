import RecStore
import RecValues

/// One conflict the merge resolved by its rules: what `sync` reports and the merge driver
/// appends to `merge-report.jsonl` (SYNC-INTERFACE.md).
package struct MergeConflict: Equatable, Sendable {
    package enum Kind: String, Sendable {
        case noteBoth = "note-both"
        case name, move, trim, trash, enhance
        case deleteVsChange = "delete-vs-change"
        case cycle
        case folderJoined = "folder-joined"
        case nameClash = "name-clash"
        case transcript
    }
    package var kind: Kind
    package var item: ItemID
    /// Where the item is in the merged library.
    package var path: String
    package var kept: String
    package var other: String

    package init(kind: Kind, item: ItemID, path: String, kept: String, other: String) {
        self.kind = kind
        self.item = item
        self.path = path
        self.kept = kept
        self.other = other
    }
}

/// The three-way merge of two libraries against the last one both shared ("The
/// merge: nothing a person did is lost"). Pure: decoded documents in, a document and the
/// conflicts out; the one home of the merge rules.
///
/// A field changed on both sides that cannot be combined (name, folder, trim points, trash
/// state, enhancement) takes the later change, by the change times of store version 4 (`Item.changed`),
/// and reports the other value; equal times (both unknown: changed by an older recnotes)
/// choose by value, so that both machines choose alike. Markers merge by id.
package enum LibraryMerge {
    ///
    /// `differing`, when the caller knows it (the merge driver, `SharedItemsCodec`): the
    /// items not the same on all three sides, sorted; every other item is taken from ours as
    /// it is, without looking at it (what the merge of three equal items gives).
    package static func merge(
        base: Document, ours: Document, theirs: Document, oursName: String = "this machine",
        theirsName: String = "other machine", differing: [ItemID]? = nil
    ) -> (document: Document, conflicts: [MergeConflict]) {
        var state = State(base: base, ours: ours, theirs: theirs, oursName: oursName, theirsName: theirsName)
        state.mergeItems(differing: differing)
        state.restoreMissingParents()
        state.breakCycles()
        state.joinFoldersAndRenameClashes()
        return state.finish()
    }

    /// An item without its children list, which the merge rebuilds from parent pointers.
    static func content(_ item: Item?) -> Item? {
        guard var item else { return nil }
        item.children = []
        return item
    }

    /// The value of one field after a three-way merge; `conflict` when both sides changed
    /// it differently (the value is then ours).
    static func merge3<T: Equatable>(_ b: T?, _ o: T, _ t: T) -> (value: T, conflict: Bool) {
        if o == t { return (o, false) }
        if let b, o == b { return (t, false) }
        if let b, t == b { return (o, false) }
        return (o, true)
    }

    /// A field with a change time after a three-way merge: one side's change is taken with
    /// its time; changed on both sides, the later change wins (`conflict`, and `oursWon`
    /// says which); at equal times the value that `tieBreak` puts first, whichever side
    /// merges.
    static func later<T: Equatable>(
        _ b: T?, _ o: (value: T, time: Timestamp), _ t: (value: T, time: Timestamp), tieBreak: (T, T) -> Bool
    ) -> (value: T, time: Timestamp, conflict: Bool, oursWon: Bool) {
        if o.value == t.value { return (o.value, max(o.time, t.time), false, true) }
        if let b, o.value == b { return (t.value, t.time, false, false) }
        if let b, t.value == b { return (o.value, o.time, false, true) }
        let oursWon = o.time != t.time ? o.time > t.time : tieBreak(o.value, t.value)
        return oursWon ? (o.value, o.time, true, true) : (t.value, t.time, true, false)
    }

    /// Markers, by id: one added on either side stays, one removed on either side goes.
    static func mergeMarkers(_ b: [Marker]?, _ o: [Marker], _ t: [Marker]) -> [Marker] {
        if o == t { return o }
        let base = Dictionary((b ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let theirs = Dictionary(t.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let ourIDs = Set(o.map(\.id))
        var merged: [Marker] = []
        for marker in o {
            if let other = theirs[marker.id] {
                // On both: one moved by one side (fsck's repair of a late marker) takes it.
                merged.append(marker == other || base[marker.id] == other ? marker : other)
            } else if base[marker.id] == nil {
                merged.append(marker)  // added on ours
            }
        }
        for marker in t where !ourIDs.contains(marker.id) && base[marker.id] == nil { merged.append(marker) }
        return MarkerRules.sorted(merged)
    }

    /// Tags and markers: what either side added stays, unless the other side removed it.
    static func mergeSets<T: Hashable>(_ b: [T]?, _ o: [T], _ t: [T]) -> Set<T> {
        let base = Set(b ?? [])
        let os = Set(o)
        let ts = Set(t)
        let removed = base.subtracting(os).union(base.subtracting(ts))
        return os.union(ts).subtracting(removed)
    }

    struct State {
        let base: Document
        let ours: Document
        let theirs: Document
        let oursName: String
        let theirsName: String
        var items: [ItemID: Item] = [:]
        /// Items that stay in the trash with what both sides did to them: a side that trashed
        /// an item keeps its annotations in the trash entry's copy, and they merge with the
        /// other side's as a kept item's would (applied to the trash entries by `finish`).
        var trashedCopies: [ItemID: Item] = [:]
        var pending: [(MergeConflict.Kind, ItemID, String, String)] = []

        init(base: Document, ours: Document, theirs: Document, oursName: String, theirsName: String) {
            self.base = base
            self.ours = ours
            self.theirs = theirs
            self.oursName = oursName
            self.theirsName = theirsName
        }

        mutating func report(_ kind: MergeConflict.Kind, _ id: ItemID, kept: String, other: String) {
            pending.append((kind, id, kept, other))
        }

        mutating func mergeItems(differing: [ItemID]?) {
            let ids: [ItemID]
            if let differing {
                // The children lists left in ours' items are rebuilt by `finish`.
                items = ours.items
                for id in differing { items[id] = nil }
                ids = differing
            } else {
                var all = Set(base.items.keys)
                all.formUnion(ours.items.keys)
                all.formUnion(theirs.items.keys)
                ids = all.sorted()
            }
            for id in ids {
                let b = content(base[id])
                let o = content(ours[id])
                let t = content(theirs[id])
                switch (o, t) {
                case (let o?, let t?):
                    items[id] = mergeItem(b, o, t)
                case (let o?, nil):
                    keepOrRemove(
                        id, b, kept: o, keptBy: (ours, oursName), removedBy: (theirs, theirsName), keptByOurs: true)
                case (nil, let t?):
                    keepOrRemove(
                        id, b, kept: t, keptBy: (theirs, theirsName), removedBy: (ours, oursName), keptByOurs: false)
                case (nil, nil):
                    mergeTrashedOnBoth(id, b)
                }
            }
        }

        /// An item in one side's library and not in the other's. New on the one side, or
        /// removed on the other: removed only if the one side left it alone. When the one
        /// side's change is to its trash state (restored from the trash) and the other put
        /// it in the trash since the base, both changed the trash state: the later wins.
        mutating func keepOrRemove(
            _ id: ItemID, _ b: Item?, kept item: Item, keptBy: (Document, String), removedBy: (Document, String),
            keptByOurs: Bool
        ) {
            let baseTrashed = Self.trashTime(id, in: base)
            let removedAt = Self.trashTime(id, in: removedBy.0)
            // Trashed on the other side since the base (not the base's own trash entry).
            let newlyTrashed = removedAt.flatMap { $0 != baseTrashed ? $0 : nil }
            // Restored on this side since the base: in the library now, not in the base's.
            let restored =
                item.changed.trash != (b?.changed.trash ?? ChangeTimes.unknownTime) || (b == nil && baseTrashed != nil)
            // What the other side did before it trashed the item (a tag, a marker, a note) is
            // in its trash entry's copy: merged in, whichever side keeps the item.
            let ancestor = b ?? LibraryMerge.content(Self.trashedCopy(id, in: base))
            var merged = item
            if newlyTrashed != nil, let other = LibraryMerge.content(Self.trashedCopy(id, in: removedBy.0)) {
                merged = keptByOurs ? mergeItem(ancestor, item, other) : mergeItem(ancestor, other, item)
            }
            if b == nil && !restored {
                items[id] = merged  // new on this side
                return
            }
            if b == item {
                return  // removed on the other side, left alone here
            }
            if restored, let trashedAt = newlyTrashed {
                // At equal times the trash wins, on either machine.
                if trashedAt >= item.changed.trash {
                    trashedCopies[id] = merged
                    report(.trash, id, kept: "in the trash (\(removedBy.1))", other: "restored on \(keptBy.1)")
                } else {
                    items[id] = merged
                    report(.trash, id, kept: "restored on \(keptBy.1)", other: "in the trash (\(removedBy.1))")
                }
                return
            }
            if b == nil {
                items[id] = merged  // restored here, still in the base's trash there
                return
            }
            items[id] = merged
            report(.deleteVsChange, id, kept: "changed on \(keptBy.1)", other: "removed on \(removedBy.1)")
        }

        /// An item in neither side's library: when both trashed it since the base, each
        /// copy may hold annotations of its own; the one trash entry that keeps it
        /// (`finish`) holds them all.
        mutating func mergeTrashedOnBoth(_ id: ItemID, _ b: Item?) {
            guard let o = LibraryMerge.content(Self.trashedCopy(id, in: ours)),
                let t = LibraryMerge.content(Self.trashedCopy(id, in: theirs)), o != t
            else { return }
            trashedCopies[id] = mergeItem(b ?? LibraryMerge.content(Self.trashedCopy(id, in: base)), o, t)
        }

        /// The item as it went to `document`'s trash last; nil when it is not there.
        static func trashedCopy(_ id: ItemID, in document: Document) -> Item? {
            for entry in document.trash.reversed() {
                if let item = entry.items.first(where: { $0.id == id }) { return item }
            }
            return nil
        }

        /// When `id` went to `document`'s trash last (alone or inside a folder); nil when it
        /// is not there.
        static func trashTime(_ id: ItemID, in document: Document) -> Timestamp? {
            for entry in document.trash.reversed() where entry.items.contains(where: { $0.id == id }) {
                return entry.removed
            }
            return nil
        }

        mutating func mergeItem(_ b: Item?, _ o: Item, _ t: Item) -> Item {
            // The same on both sides (most items): nothing to merge.
            if o == t { return o }
            var merged = o
            let name = later(b?.name, (o.name, o.changed.name), (t.name, t.changed.name), tieBreak: <)
            merged.name = name.value
            merged.changed.name = name.time
            if name.conflict {
                report(.name, o.id, kept: name.value, other: name.oursWon ? t.name : o.name)
            }
            if let op = o.parent, let tp = t.parent {
                let parent = later(b?.parent, (op, o.changed.parent), (tp, t.changed.parent), tieBreak: <)
                merged.parent = parent.value
                merged.changed.parent = parent.time
                if parent.conflict {
                    let (oursPath, theirsPath) = (ours.path(of: op), theirs.path(of: tp))
                    report(
                        .move, o.id, kept: parent.oursWon ? oursPath : theirsPath,
                        other: parent.oursWon ? theirsPath : oursPath)
                }
            }
            merged.changed.trash = max(o.changed.trash, t.changed.trash)
            let (ba, oa, ta) = (b?.annotations, o.annotations, t.annotations)
            let note = merge3(ba?.note, oa.note, ta.note)
            if note.conflict {
                merged.annotations.note =
                    oa.note + "\n--- above: \(oursName) · below: \(theirsName) ---\n" + ta.note
                report(.noteBoth, o.id, kept: "both notes, \(oursName)'s above \(theirsName)'s", other: "")
            } else {
                merged.annotations.note = note.value
            }
            merged.annotations.tags = mergeSets(ba?.tags, oa.tags, ta.tags).sorted()
            merged.annotations.markers = LibraryMerge.mergeMarkers(ba?.markers, oa.markers, ta.markers)
            let trim = later(
                ba?.trim, (oa.trim, o.changed.trim), (ta.trim, t.changed.trim),
                tieBreak: { Self.order($0) < Self.order($1) })
            merged.annotations.trim = trim.value
            merged.changed.trim = trim.time
            if trim.conflict {
                let rate = o.recording?.sampleRate ?? 0
                report(
                    .trim, o.id, kept: Self.describe(trim.value, rate: rate),
                    other: Self.describe(trim.oursWon ? ta.trim : oa.trim, rate: rate))
            }
            // Each flag of the enhancement (store version 6) merges as trim points do, under the
            // one change time: turned on or off on one side, that side's; on both (only an item
            // new on both sides, since a flag has two values), the later change.
            let level = later(
                ba?.enhance.level, (oa.enhance.level, o.changed.enhance), (ta.enhance.level, t.changed.enhance),
                tieBreak: { $0 && !$1 })
            let denoise = later(
                ba?.enhance.denoise, (oa.enhance.denoise, o.changed.enhance),
                (ta.enhance.denoise, t.changed.enhance), tieBreak: { $0 && !$1 })
            merged.annotations.enhance = Enhancement(level: level.value, denoise: denoise.value)
            merged.changed.enhance = max(level.time, denoise.time)
            if level.conflict || denoise.conflict {
                report(
                    .enhance, o.id, kept: merged.annotations.enhance.description,
                    other: (level.oursWon && denoise.oursWon ? ta : oa).enhance.description)
            }
            // The audio never changes once saved; its analysis may be measured on one side only,
            // or its loudness (store version 5) on one side only: the fuller one is kept.
            if let theirs = t.recording?.analysis, merged.recording?.analysis?.loudness == nil,
                merged.recording?.analysis == nil || theirs.loudness != nil
            {
                merged.recording?.analysis = theirs
            }
            return merged
        }

        /// Trim points by frames, so that both machines break a tie alike.
        static func order(_ trim: TrimPoints?) -> String {
            trim.map { "\($0.inFrame)-\($0.outFrame)" } ?? "none"
        }

        /// Trim points as a person reads them: `trim 00:00:01.20 to 00:00:05.00`.
        static func describe(_ trim: TrimPoints?, rate: Int) -> String {
            guard let trim else { return "no trim points" }
            guard rate > 0 else { return "trim frames \(trim.inFrame) to \(trim.outFrame)" }
            let (from, to) = (Double(trim.inFrame) / Double(rate), Double(trim.outFrame) / Double(rate))
            return "trim \(Format.preciseClock(from)) to \(Format.preciseClock(to))"
        }

        /// An item kept (changed on one side) in a folder removed on the other: the folder
        /// comes back too.
        mutating func restoreMissingParents() {
            var changed = true
            while changed {
                changed = false
                // By UUID: the result and the report do not depend on the table's order.
                let orphans = items.values.filter { $0.parent.map { items[$0] == nil } ?? false }
                for item in orphans.sorted(by: { $0.id < $1.id }) {
                    guard let parent = item.parent, items[parent] == nil else { continue }
                    // Not kept by the merge: removed, so the copy the trash holds (with what
                    // was done to it before the rm, merged when both sides trashed it) is the
                    // one that comes back.
                    let copy =
                        trashedCopies[parent] ?? Self.trashedCopy(parent, in: ours)
                        ?? Self.trashedCopy(parent, in: theirs) ?? ours[parent] ?? theirs[parent] ?? base[parent]
                        ?? trashed(parent)
                    if let found = content(copy), found.isFolder {
                        items[parent] = found
                        report(
                            .deleteVsChange, parent, kept: "kept for what changed inside it",
                            other: "removed on \(ours[parent] == nil ? oursName : theirsName)")
                    } else {
                        items[item.id]!.parent = .root
                    }
                    changed = true
                }
            }
        }

        func trashed(_ id: ItemID) -> Item? {
            for document in [ours, theirs, base] {
                if let item = Self.trashedCopy(id, in: document) { return item }
            }
            return nil
        }

        /// Two moves that together put a folder inside itself: the move of the first such
        /// folder (by UUID) is undone.
        mutating func breakCycles() {
            // A cycle needs a move: only items whose folder changed are walked up from.
            let moved = items.values.filter { $0.parent != base[$0.id]?.parent }.map(\.id).sorted()
            for id in moved {
                var seen: Set<ItemID> = [id]
                var current = items[id]?.parent
                var cyclic = false
                while let c = current {
                    if !seen.insert(c).inserted {
                        cyclic = true
                        break
                    }
                    current = items[c]?.parent
                }
                guard cyclic else { continue }
                // Undo a move within the cycle: of the first member whose folder changed.
                var member = id
                var chain: [ItemID] = []
                while !chain.contains(member) {
                    chain.append(member)
                    member = items[member]!.parent!
                }
                let cycle = chain.drop(while: { $0 != member })
                let undo =
                    cycle.sorted().first(where: { items[$0]!.parent != base[$0]?.parent }) ?? cycle.sorted()[0]
                let was = items[undo]!.parent!
                let back = base[undo]?.parent.flatMap { items[$0] != nil ? $0 : nil } ?? .root
                items[undo]!.parent = back
                let into = ours[was] != nil ? ours.path(of: was) : theirs.path(of: was)
                report(.cycle, undo, kept: "move undone", other: "moved into \(into)")
                if isCyclic(undo) { items[undo]!.parent = .root }
            }
        }

        func isCyclic(_ id: ItemID) -> Bool {
            var seen: Set<ItemID> = [id]
            var current = items[id]?.parent
            while let c = current {
                if !seen.insert(c).inserted { return true }
                current = items[c]?.parent
            }
            return false
        }

        /// Folders of one name made in one folder on both machines become one (the one with
        /// the smaller UUID stays, so both machines choose the same); other items of one name
        /// in one folder: all but the first are renamed " (2)", " (3)"…
        mutating func joinFoldersAndRenameClashes() {
            var byParent: [ItemID: [ItemID]] = [:]
            for item in items.values { if let p = item.parent { byParent[p, default: []].append(item.id) } }
            var queue: [ItemID] = [.root]
            while let folder = queue.popLast() {
                var byName: [String: [ItemID]] = [:]
                for child in byParent[folder] ?? [] { byName[items[child]!.name, default: []].append(child) }
                for (_, group) in byName.sorted(by: { $0.key < $1.key }) where group.count > 1 {
                    let sorted = group.sorted { rank($0) < rank($1) || (rank($0) == rank($1) && $0 < $1) }
                    let kept = sorted[0]
                    let keptIsNewFolder = items[kept]!.isFolder && base[kept] == nil
                    for id in sorted.dropFirst() {
                        let item = items[id]!
                        if keptIsNewFolder, item.isFolder, base[id] == nil {
                            for child in byParent[id] ?? [] { items[child]!.parent = kept }
                            byParent[kept, default: []].append(contentsOf: byParent[id] ?? [])
                            byParent[id] = nil
                            items[id] = nil
                            byParent[folder]!.removeAll { $0 == id }
                            report(.folderJoined, kept, kept: "one folder, made on both machines", other: "")
                        } else {
                            let taken = Set((byParent[folder] ?? []).compactMap { items[$0]?.name })
                            var n = 2
                            while taken.contains("\(item.name) (\(n))") { n += 1 }
                            items[id]!.name = "\(item.name) (\(n))"
                            report(.nameClash, id, kept: items[id]!.name, other: item.name)
                        }
                    }
                }
                queue.append(contentsOf: (byParent[folder] ?? []).filter { items[$0]?.isFolder == true }.sorted())
            }
        }

        /// Who keeps a clashing name: what both shared, then the smaller UUID, so that the
        /// result does not depend on which machine merges.
        func rank(_ id: ItemID) -> Int { base[id] != nil ? 0 : 1 }

        /// What of a trash entry is still removed once the merged library is known: the items
        /// `keeps` says the entry still holds. An item the merge kept (changed on the other
        /// side), or that a later trash entry holds, leaves the entry; when that brought its
        /// folder back (`restoreMissingParents`), what else the folder held and the other side
        /// left alone is still removed: it stays in the trash, as entries of its own, rather than
        /// going with the entry of a folder that is no longer in the trash.
        static func stillRemoved(_ entry: TrashEntry, keeps: (ItemID) -> Bool) -> [TrashEntry] {
            let remaining = entry.items.filter { keeps($0.id) }
            guard let first = remaining.first else { return [] }
            if first.id == entry.id {
                var kept = entry
                kept.items = remaining
                kept.listOnlyHeldChildren()
                return [kept]
            }
            let ids = Set(remaining.map(\.id))
            let byID = Dictionary(entry.items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            var entries: [TrashEntry] = []
            for top in remaining where !ids.contains(top.parent ?? .root) {
                // Its subtree among what remains, parents before children as the entry has them.
                var subtree: Set<ItemID> = [top.id]
                let members = remaining.filter { item in
                    if item.id == top.id { return true }
                    guard let parent = item.parent, subtree.contains(parent) else { return false }
                    subtree.insert(item.id)
                    return true
                }
                // Its path when removed: the entry's, down through the items between.
                var names: [String] = []
                var current: Item? = top
                while let item = current, item.id != entry.id {
                    names.insert(item.name, at: 0)
                    current = item.parent.flatMap { byID[$0] }
                }
                var split = TrashEntry(
                    parent: top.parent ?? .root, path: ([entry.path] + names).joined(separator: "/"),
                    removed: entry.removed, items: members)
                split.listOnlyHeldChildren()
                entries.append(split)
            }
            return entries
        }

        func finish() -> (document: Document, conflicts: [MergeConflict]) {
            var seen: Set<String> = []
            var entries: [TrashEntry] = []
            for entry in ours.trash + theirs.trash where seen.insert("\(entry.id) \(entry.removed)").inserted {
                entries.append(entry)
            }
            // An item trashed on both sides (or moved, then trashed) is in two entries: the
            // later removal keeps it, so that the trash names each UUID once. Equal times
            // choose by the entry's UUID, so that both machines choose alike.
            var keeper: [ItemID: Int] = [:]
            for (index, entry) in entries.enumerated() {
                for item in entry.items {
                    if let other = keeper[item.id],
                        (entries[other].removed, entries[other].id) >= (entry.removed, entry.id)
                    {
                        continue
                    }
                    keeper[item.id] = index
                }
            }
            var trash: [TrashEntry] = []
            for (index, entry) in entries.enumerated() {
                for var kept in Self.stillRemoved(entry, keeps: { items[$0] == nil && keeper[$0] == index }) {
                    for (position, item) in kept.items.enumerated() {
                        if let merged = trashedCopies[item.id] { kept.items[position].annotations = merged.annotations }
                    }
                    trash.append(kept)
                }
            }
            // By time, then UUID: both machines list the trash alike, whichever side is ours.
            trash.sort { ($0.removed, $0.id) < ($1.removed, $1.id) }
            let document = Document(linking: items, trash: trash)
            let conflicts = pending.map { kind, id, kept, other in
                MergeConflict(
                    kind: kind, item: id, path: document.whereabouts(of: id) ?? document.path(of: id), kept: kept,
                    other: other)
            }
            return (document, conflicts)
        }
    }
}

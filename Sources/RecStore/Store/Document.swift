import RecValues

/// The whole document store's content: a value, so a change is computed on a copy and
/// either persisted whole or not at all.
package struct Document: Equatable, Sendable {
    /// 2 added notes, tags and markers (`Annotations`); 3 added each recording's analysis
    /// (levels, waveform, speech regions: `RecordingInfo.analysis`). An older store reads
    /// as one without them, and is written as the current version on its first change (its
    /// original kept once as `store.json.v<N>`). 4 added each marker's id and each item's
    /// change times (`Marker.id`, `Item.changed`), which a merge of two libraries follows;
    /// an older store's markers get ids derived from what they are, the same on every machine.
    /// 5 added each analysis's loudness (`AudioAnalysis.loudness`, EBU R128); an older store's
    /// recordings read without it, which `fsck` notes and `fsck --repair` measures.
    /// 6 added each recording's enhancement (`Annotations.enhance`, `"enhance"`, and its change
    /// time `"changed": {"enhance"}`); an older store's recordings read with both off.
    package static let currentVersion = 6
    package static let rootName = "Recordings"

    package internal(set) var items: [ItemID: Item]
    /// Removed items, oldest first, kept with their audio until the trash is emptied.
    package internal(set) var trash: [TrashEntry]

    package init() {
        items = [.root: .folder(id: .root, name: Document.rootName, parent: nil, created: .now())]
        trash = []
    }

    /// Used by the codec; the caller vouches that links are consistent.
    init(items: [ItemID: Item], trash: [TrashEntry] = []) {
        self.items = items
        self.trash = trash
    }

    /// A document made of these items and trash, its children lists rebuilt from the parent
    /// pointers in display order: what a merge of two libraries (RecSync) assembles. The
    /// caller vouches that every parent is a folder among `items` and that there is no cycle.
    package init(linking items: [ItemID: Item], trash: [TrashEntry]) {
        self.init(items: items, trash: trash)
        rebuildLinks()
    }

    package var root: Item { items[.root]! }

    package subscript(id: ItemID) -> Item? { items[id] }

    package func trashEntry(_ id: ItemID) -> TrashEntry? { trash.last { $0.id == id } }

    package var count: Int { items.count }

    package func children(of id: ItemID) -> [Item] {
        guard let folder = items[id] else { return [] }
        return folder.children.compactMap { items[$0] }
    }

    package func child(named name: String, in folder: ItemID) -> Item? {
        guard let parent = items[folder] else { return nil }
        for id in parent.children {
            if let item = items[id], item.name == name { return item }
        }
        return nil
    }

    /// Root first, down to the item itself.
    package func ancestry(of id: ItemID) -> [Item] {
        var chain: [Item] = []
        var current = items[id]
        var guardCount = 0
        while let item = current, guardCount <= items.count {
            chain.append(item)
            current = item.parent.flatMap { items[$0] }
            guardCount += 1
        }
        return chain.reversed()
    }

    /// The absolute path, `/` for the root.
    package func path(of id: ItemID) -> String {
        // The names of `ancestry(of:)` but the first, without copying whole items (find
        // prints thousands of paths).
        var names: [String] = []
        var current = id
        while let item = items[current], names.count <= items.count {
            names.append(item.name)
            guard let parent = item.parent else { break }
            current = parent
        }
        return "/" + names.dropLast().reversed().joined(separator: "/")
    }

    /// Where an item is now, as a running job's status names it: its path; for an item in
    /// the trash (alone, or inside a removed folder), the path it had there, marked so; nil
    /// when it is neither (removed for good).
    package func whereabouts(of id: ItemID) -> String? {
        if items[id] != nil { return path(of: id) }
        for entry in trash.reversed() {
            guard var item = entry.items.first(where: { $0.id == id }) else { continue }
            var names: [String] = []
            while item.id != entry.id {
                names.append(item.name)
                guard let parent = item.parent, let up = entry.items.first(where: { $0.id == parent }) else { break }
                item = up
            }
            return ([entry.path] + names.reversed()).joined(separator: "/") + " (in the trash)"
        }
        return nil
    }

    /// `path(of:)` of each of these items of the document, every folder's path made once and
    /// no item looked up again: what `find` prints thousands of.
    package func paths(of items: some Sequence<Item>) -> [String] {
        var folderPaths: [ItemID: String] = [:]
        return items.map { item in
            guard let parent = item.parent, self.items.index(forKey: parent) != nil else { return path(of: item.id) }
            let prefix = folderPaths[parent] ?? path(of: parent)
            folderPaths[parent] = prefix
            return (prefix == "/" ? "" : prefix) + "/" + item.name
        }
    }

    package func isDescendant(_ id: ItemID, of ancestor: ItemID) -> Bool {
        var current = items[id]?.parent
        while let c = current {
            if c == ancestor { return true }
            current = items[c]?.parent
        }
        return false
    }

    /// The item and everything under it, parents before children.
    package func subtree(of id: ItemID) -> [Item] {
        var result: [Item] = []
        forEachInSubtree(of: id) { result.append($0) }
        return result
    }

    /// `subtree(of:)` one item at a time, without collecting copies of them all.
    func forEachInSubtree(of id: ItemID, _ body: (Item) -> Void) {
        var stack = [id]
        while let next = stack.popLast() {
            guard let item = items[next] else { continue }
            body(item)
            stack.append(contentsOf: item.children.reversed())
        }
    }

    /// Depth-first from the root in display order: the order items are written to disk,
    /// so that `store.json` reads like a tree and does not churn between runs.
    package func preorder() -> [Item] { subtree(of: .root) }

    // MARK: Mutations used by DocumentStore. They keep parent pointers and children lists
    // in step and report the index the item takes in its parent's display order.

    mutating func insert(_ item: Item) -> Int {
        let parentID = item.parent!
        items[item.id] = item
        return link(item.id, into: parentID)
    }

    mutating func unlink(_ id: ItemID) -> Int {
        guard let parentID = items[id]?.parent else { return 0 }
        let index = items[parentID]!.children.firstIndex(of: id) ?? 0
        items[parentID]!.children.remove(at: index)
        return index
    }

    mutating func link(_ id: ItemID, into parentID: ItemID) -> Int {
        let item = items[id]!
        let siblings = items[parentID]!.children
        let position = siblings.indices.partitionPoint { items[siblings[$0]].map { displayOrder($0, item) } ?? false }
        items[parentID]!.children.insert(id, at: position)
        items[id]!.parent = parentID
        return position
    }

    mutating func setName(_ name: String, of id: ItemID) {
        items[id]!.name = name
    }

    mutating func removeSubtree(_ id: ItemID) -> [Item] {
        let removed = subtree(of: id)
        for item in removed { items[item.id] = nil }
        return removed
    }
}

extension Document {
    /// The one way a name is made free: `base`, or `base (2)`, `base (3)` … whichever is free in `folder`.
    package func freeName(_ base: String, in folder: ItemID, except: ItemID?) -> String {
        func taken(_ name: String) -> Bool {
            guard let other = child(named: name, in: folder) else { return false }
            return other.id != except
        }
        guard taken(base) else { return base }
        var n = 2
        while taken("\(base) (\(n))") { n += 1 }
        return "\(base) (\(n))"
    }
}

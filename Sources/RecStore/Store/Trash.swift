import RecSystem
import RecValues

/// A removed item and everything that was under it, as `rm` left it: restorable to where it
/// was, audio included, until the trash is emptied.
package struct TrashEntry: Equatable, Sendable {
    /// The removed item's own UUID.
    package var id: ItemID { items[0].id }
    /// The folder it was in.
    package var parent: ItemID
    /// Its path when it was removed, for people to recognise it.
    package var path: String
    package var removed: Timestamp
    /// The removed item first, then its subtree, parents before children.
    package var items: [Item]

    package init(parent: ItemID, path: String, removed: Timestamp, items: [Item]) {
        precondition(!items.isEmpty)
        self.parent = parent
        self.path = path
        self.removed = removed
        self.items = items
    }

    package var item: Item { items[0] }

    /// Each folder in it made to list only the children the entry holds: one it lists and
    /// does not hold went back to the library (a merge kept it) or is gone, and a restore
    /// would otherwise put it in two places.
    package mutating func listOnlyHeldChildren() {
        let held = Set(items.map(\.id))
        for index in items.indices { items[index].children.removeAll { !held.contains($0) } }
    }

    /// The audio files the entry keeps alive.
    package var audioFiles: [String] { items.compactMap(\.recording?.file) }
}

extension Document {
    /// The trash entry `spec` names: its original path (absolute, or relative to
    /// `currentFolder`) or `@` and a UUID prefix. The newest wins when several were removed
    /// from the same path.
    package func trashEntry(matching spec: String, from currentFolder: ItemID) throws -> TrashEntry {
        if spec.hasPrefix("@") {
            let nibbles = try PathResolver.prefixNibbles(spec.dropFirst(), typed: spec)
            let matches = trash.filter { $0.id.hasPrefix(nibbles: nibbles) }
            guard let match = matches.last else { throw RecError.failure(spec, "not in the trash") }
            guard matches.count == 1 else {
                throw RecError.failure(spec, "ambiguous UUID prefix, matching \(matches.count) items in the trash")
            }
            return match
        }
        // `../x` from /A/B is /A/x, though nothing is at /A/x now.
        let absolute = try PathResolver(document: self, currentFolder: currentFolder).absolutePath(spec)
        guard let match = trash.last(where: { $0.path == absolute }) else {
            throw RecError.failure(spec, "not in the trash")
        }
        return match
    }
}

/// A removed item and everything that was under it, as `rm` left it: restorable to where it
/// was, audio included, until the trash is emptied.
public struct TrashEntry: Equatable, Sendable {
    /// The removed item's own UUID.
    public var id: ItemID { items[0].id }
    /// The folder it was in.
    public var parent: ItemID
    /// Its path when it was removed, for people to recognise it.
    public var path: String
    public var removed: Timestamp
    /// The removed item first, then its subtree, parents before children.
    public var items: [Item]

    public init(parent: ItemID, path: String, removed: Timestamp, items: [Item]) {
        precondition(!items.isEmpty)
        self.parent = parent
        self.path = path
        self.removed = removed
        self.items = items
    }

    public var item: Item { items[0] }

    /// The audio files the entry keeps alive.
    public var audioFiles: [String] { items.compactMap(\.recording?.file) }
}

import RecStore

/// What a change to the documents touched, as the store reports it (never what the command
/// meant to do): it subscribes to the document store before the transaction and gives the
/// affected items' JSON afterwards. What a mutating command prints with `--json`, and what
/// the server's write routes answer.
package final class ChangedItems {
    private let library: Library
    private var affected: [Item] = []
    /// Where removed items were, worked out while their parents are still known.
    private var removedPaths: [ItemID: String] = [:]

    package init(library: Library) {
        self.library = library
        library.documents.observe { [unowned self] action, document in
            switch action {
            case .added(let item, _, _), .renamed(let item, _, _, _), .moved(let item, _, _, _, _),
                .annotated(let item, _):
                affected.append(document[item.id] ?? item)
            case .removed(_, _, _, let subtree):
                for item in subtree {
                    let parentPath = item.parent.map { removedPaths[$0] ?? document.path(of: $0) } ?? ""
                    removedPaths[item.id] = (parentPath == "/" ? "" : parentPath) + "/" + item.name
                }
                affected.append(contentsOf: subtree)
            case .purged(let entries):
                for entry in entries { removedPaths[entry.id] = entry.path }
                affected.append(contentsOf: entries.map(\.item))
            }
        }
    }

    /// The affected items as a JSON array, each once, as it ended up (`mkdir a; mv a b` is `b`).
    package var json: String {
        var seen = Set<ItemID>()
        let unique = affected.reversed().filter { seen.insert($0.id).inserted }.reversed()
        return ItemJSON.array(unique.map { library.document[$0.id] ?? $0 }, in: library, paths: removedPaths)
    }
}

import RecCore

/// The view of a mutating command: it subscribes to the document store and renders what the
/// store reports it did, never what the command meant to do. With `--json` it prints the
/// affected items once the command is over.
final class ChangeRenderer {
    private let library: Library
    private var affected: [Item] = []
    /// Where removed items were, worked out while their parents are still known.
    private var removedPaths: [ItemID: String] = [:]

    init(library: Library) {
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

    func finish(json: Bool) {
        guard json else { return }
        // An item touched twice (mkdir a; mv a b) is reported once, as it ended up.
        var seen = Set<ItemID>()
        let unique = affected.reversed().filter { seen.insert($0.id).inserted }.reversed()
        print(ItemJSON.array(unique.map { library.document[$0.id] ?? $0 }, in: library, paths: removedPaths))
    }
}

extension GlobalOptions {
    /// What every command that edits the documents does: open the store, make the change in
    /// one transaction (given the current folder, against which relative paths resolve),
    /// and with --json print the items it touched. `annotating`, when given, says that the
    /// change is to the annotations of the items at these paths alone (`openLibrary(changing:)`).
    func changeDocuments(
        json: Bool, annotating paths: [String]? = nil,
        _ change: (inout DocumentStore.Transaction, ItemID) throws -> Void
    ) throws {
        let library = try paths.map { try openLibrary(changing: $0) } ?? openLibrary()
        let renderer = ChangeRenderer(library: library)
        let current = library.state.currentFolder
        try library.documents.transaction { tx in try change(&tx, current) }
        renderer.finish(json: json)
    }
}

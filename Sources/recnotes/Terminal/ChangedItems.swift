import RecCore
import RecStore

/// The view of a mutating command: RecCore's `ChangedItems` (what the store reports the change
/// touched), printed with `--json` once the command is over.
extension ChangedItems {
    func finish(json: Bool) {
        if json { print(self.json) }
    }
}

extension GlobalOptions {
    /// What every command that edits the documents does: open the store, make the change in
    /// one transaction (given the current folder, against which relative paths resolve),
    /// and with --json print the items it touched. `annotating`, when given, says that the
    /// change is to the annotations of the items at these paths alone (`openLibrary(changing:)`);
    /// `moving` and `into`, that it adds folders at or moves these items into these paths
    /// (`mkdir`, `mv`).
    func changeDocuments(
        json: Bool, annotating paths: [String]? = nil, moving sources: [String] = [], into destinations: [String] = [],
        _ change: (inout DocumentStore.Transaction, ItemID) throws -> Void
    ) throws {
        let library =
            try paths.map { try openLibrary(changing: $0) }
            ?? (destinations.isEmpty ? openLibrary() : openLibrary(changing: sources, into: destinations))
        let renderer = ChangedItems(library: library)
        let current = library.state.currentFolder
        try library.documents.transaction { tx in try change(&tx, current) }
        renderer.finish(json: json)
    }
}

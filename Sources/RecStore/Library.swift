import RecSystem

/// The two stores of one store directory, opened together as every command needs them.
package final class Library {
    package let location: StoreLocation
    package let documents: DocumentStore
    package let viewState: ViewStateStore
    /// The reads' table this library was read through (`Library.reading`), nil when the
    /// whole document was.
    let table: StoreTable?

    /// Opens both stores; read-only (no locks taken, every change refused) when the
    /// store cannot be written, see `StoreLocation.isWritable` and `isReadOnly`.
    package init(location: StoreLocation) throws {
        self.location = location
        documents = try DocumentStore(location: location)
        viewState = try ViewStateStore(location: location)
        table = nil
        followDocuments()
    }

    /// The view state follows the documents as part of each change: a folder on the
    /// stack or the selected recording that a change removed or moved is trimmed at once
    /// (under the store lock, so no other command sees the one without the other).
    private func followDocuments() {
        documents.observe { [unowned self] action, document in
            switch action {
            case .removed, .moved: self.trimViewState(to: document)
            case .added, .renamed, .purged, .annotated: break
            }
        }
    }

    /// A library of a few items for a command that changes their annotations
    /// (`Library.changing`).
    init(location: StoreLocation, changing document: Document, viewState: ViewStateStore, table: StoreTable) {
        self.location = location
        documents = DocumentStore(location: location, changing: document, table: table)
        self.viewState = viewState
        self.table = nil
        followDocuments()
    }

    /// A library of a few items for a reading command (`Library.reading`).
    init(location: StoreLocation, partial document: Document, viewState: ViewStateStore, table: StoreTable) {
        self.location = location
        documents = DocumentStore(location: location, partial: document)
        self.viewState = viewState
        self.table = table
    }

    /// True when the store was opened read-only: it is on a read-only mount or this process
    /// may not write it. Reading commands work; every change is refused with one line.
    package var isReadOnly: Bool { documents.isReadOnly || viewState.isReadOnly }

    /// Best effort: the document change is already saved, and a view state left behind is
    /// still read through `ViewState.restored` (fsck reports and trims it).
    private func trimViewState(to document: Document) {
        guard !viewState.isReadOnly else { return }
        _ = try? viewState.transaction { $0.trim(to: document) }
    }

    package var warnings: [String] { viewState.warnings }

    package var document: Document { documents.document }

    /// The view state as it applies to the current document (see `ViewState.restored`).
    package var state: ViewState { viewState.state.restored(against: documents.document) }

    package var resolver: PathResolver {
        PathResolver(document: documents.document, currentFolder: state.currentFolder)
    }

    /// The item at `path`; the current folder when `path` is nil.
    package func item(at path: String?) throws -> Item {
        try resolver.resolve(path ?? ".")
    }

    /// `cd`: the folder stack becomes the route from the root to the folder at `path` (the
    /// root when nil), as pops and pushes against the stack the user sees.
    /// A read-only store refuses it in one line (after the path is checked): it has to
    /// write `viewstate.json`.
    package func changeFolder(to path: String?) throws {
        let target = try resolver.resolveFolder(path ?? "/")
        if isReadOnly {
            throw RecError.failure(
                location.directory,
                "the store is read-only (\(location.writeProblem ?? "not writable")), and cd must write the current folder to viewstate.json"
            )
        }
        let route = document.ancestry(of: target.id).map(\.id)
        let document = self.document
        try viewState.transaction { state in
            let visible = state.state.restored(against: document).folderStack
            if visible != state.state.folderStack { state.navigate(to: visible) }
            state.navigate(to: route)
        }
    }

    /// What `info` says a folder holds: how many folders and recordings are under it, and
    /// their total duration.
    package func contents(of folder: Item) -> (folders: Int, recordings: Int, duration: Double) {
        if let table, let position = table.position(of: folder.id) { return table.contents(of: position) }
        let all = document.subtree(of: folder.id).dropFirst()
        let recordings = all.compactMap(\.recording)
        return (all.count - recordings.count, recordings.count, recordings.reduce(0) { $0 + $1.duration })
    }

    /// How many folders and recordings a folder holds directly, for `browse`'s detail pane
    /// when its document does not hold the folder's items: from the reads' table this
    /// library was read through, or the document when it holds them all; nil when neither
    /// can say.
    package func childCounts(of folder: ItemID) -> (folders: Int, recordings: Int)? {
        if let table, let position = table.position(of: folder), table.isFolder(position) {
            let children = table.children(of: position)
            let folders = children.filter(table.isFolder).count
            return (folders, children.count - folders)
        }
        guard let item = document[folder], item.isFolder else { return nil }
        let children = document.children(of: folder)
        guard children.count == item.children.count else { return nil }
        let folders = children.filter(\.isFolder).count
        return (folders, children.count - folders)
    }

    /// The size of a recording's audio file, if it has one on disk.
    package func audioSize(of item: Item) -> Int64? { location.audioSize(of: item) }
}

/// The two stores of one store directory, opened together as every command needs them.
public final class Library {
    public let location: StoreLocation
    public let documents: DocumentStore
    public let viewState: ViewStateStore

    public init(location: StoreLocation) throws {
        self.location = location
        documents = try DocumentStore(location: location)
        viewState = try ViewStateStore(location: location)
    }

    public var warnings: [String] { viewState.warnings }

    public var document: Document { documents.document }

    /// The view state as it applies to the current document (see `ViewState.restored`).
    public var state: ViewState { viewState.state.restored(against: documents.document) }

    public var resolver: PathResolver {
        PathResolver(document: documents.document, currentFolder: state.currentFolder)
    }

    /// The item at `path`; the current folder when `path` is nil.
    public func item(at path: String?) throws -> Item {
        try resolver.resolve(path ?? ".")
    }

    /// `cd`: the folder stack becomes the route from the root to the folder at `path` (the
    /// root when nil), as pops and pushes against the stack the user sees.
    public func changeFolder(to path: String?) throws {
        let target = try resolver.resolveFolder(path ?? "/")
        let route = document.ancestry(of: target.id).map(\.id)
        let document = self.document
        try viewState.transaction { state in
            let visible = state.state.restored(against: document).folderStack
            if visible != state.state.folderStack { state.navigate(to: visible) }
            state.navigate(to: route)
        }
    }

    /// The size of a recording's audio file, if it has one on disk.
    public func audioSize(of item: Item) -> Int64? {
        item.recording.flatMap { FileSystem.size(location.audioPath($0.file)) }
    }
}

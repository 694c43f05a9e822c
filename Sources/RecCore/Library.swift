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

    /// The size of a recording's audio file, if it has one on disk.
    public func audioSize(of item: Item) -> Int64? {
        item.recording.flatMap { FileSystem.size(location.audioPath($0.file)) }
    }
}

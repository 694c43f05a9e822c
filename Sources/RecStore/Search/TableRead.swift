import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

extension Library {
    /// The library as a reading command (`pwd`, `status`, `ls`, `info`) needs it, read
    /// through the reads' table (`StoreTable`) instead of parsing `store.json`: a document of
    /// only the root, the folder stack and selection with their ancestors, each item on the
    /// way to each of `paths` (nil: the current folder), and with `listing`, the children of
    /// each of them that is a folder. Each is decoded from its bytes in `store.json` and
    /// checked against the table (its id, its parent, a listed folder's children in order),
    /// so the same `PathResolver` and presentation answer as they would on the whole
    /// document.
    ///
    /// nil, and the caller reads the whole store, when the table is missing, stale or
    /// damaged, a recording or playback is registered (recovering or clearing one writes),
    /// or a path does not lead to an item in the table (the error is the whole document's
    /// to make, as it always was). Read-only: nothing it opens is ever written.
    package static func reading(_ location: StoreLocation, paths: [String?], listing: Bool) -> Library? {
        guard let table = StoreTable.current(at: location), let viewState = try? ViewStateStore(location: location),
            let items = partialItems(of: table, viewState: viewState, paths: paths, listing: listing, in: location)
        else { return nil }
        let library = Library(location: location, partial: Document(items: items), viewState: viewState, table: table)
        return library.leadsTo(paths) ? library : nil
    }

    /// The library as a command that changes only the annotations (note, tags) of the items
    /// at `paths` needs it (`tag`, `note --set`): `reading`'s few items, in a store that
    /// writes (`DocumentStore.init(location:changing:table:)`). The transaction checks
    /// again, under the store lock, that `store.json` is still the file the table names, and
    /// reads the whole store when it is not or when the change is more than annotations.
    /// nil, and the caller opens the whole store, where `reading` is, and when the store
    /// cannot be written or an item is outside the table (the whole document is written then).
    ///
    /// `into` are the paths of a command that adds or moves items (`mkdir`, `mv`): each
    /// either an existing folder, listed (the items go in among its children, in display
    /// order), or a name not yet in an existing folder, which is listed; anything else (an
    /// existing recording, `mkdir -p`'s missing folders on the way) opens the whole store.
    package static func changing(_ location: StoreLocation, paths: [String], into: [String] = []) -> Library? {
        guard location.isWritable, let table = StoreTable.current(at: location, keepingBytes: true),
            table.count == table.documentCount,
            let viewState = try? ViewStateStore(location: location), !viewState.isReadOnly,
            let items = partialItems(
                of: table, viewState: viewState, paths: paths, listing: false, destinations: into, in: location)
        else { return nil }
        let library = Library(location: location, changing: Document(items: items), viewState: viewState, table: table)
        return library.leadsTo(paths) ? library : nil
    }

    /// The library as `browse` shows it (it opens a library of any size without
    /// decoding every item): `reading`'s items for the view state (the folder stack, the
    /// selection, and the items of the recording and playback it registers, with their
    /// ancestors), each of `showing` with its ancestors, and every folder of `listing` with its
    /// children, decoded through the reads' table and checked as `reading`'s are. A folder of
    /// `listing` that is not in the table (removed meanwhile) is left out, and the browser
    /// goes where it goes when its folder is removed.
    ///
    /// nil, and the browser reads the whole store, when the table is missing, stale or
    /// damaged. Unlike `reading`, a registered recording or playback is no reason: the
    /// browser recovered or cleared what a dead process left when it opened, and it
    /// follows the jobs that run. Read-only, as `reading`'s.
    package static func browsing(_ location: StoreLocation, listing: [ItemID], showing: [ItemID]) -> Library? {
        if let library = browsingNow(location, listing: listing, showing: showing) { return library }
        // The browser follows store.json's renames, and may look before the process that
        // renamed it has brought the table up to date, which it does under the store lock:
        // once that process is done, the table is looked at once more.
        guard location.isWritable, (try? FileLock.withLock(location.storeLockFile) {}) != nil else { return nil }
        return browsingNow(location, listing: listing, showing: showing)
    }

    private static func browsingNow(_ location: StoreLocation, listing: [ItemID], showing: [ItemID]) -> Library? {
        guard let table = StoreTable.current(at: location), let viewState = try? ViewStateStore(location: location)
        else { return nil }
        var extra: Set<Int> = []
        var listed: [Int] = []
        for id in showing { if let position = table.position(of: id) { extra.formUnion(table.ancestry(of: position)) } }
        for id in listing {
            guard let position = table.position(of: id), table.isFolder(position) else { continue }
            extra.formUnion(table.ancestry(of: position))
            listed.append(position)
        }
        let jobs = [viewState.state.recording?.parent, viewState.state.playing?.id].compactMap { $0 }
        for id in jobs { if let position = table.position(of: id) { extra.formUnion(table.ancestry(of: position)) } }
        guard
            let items = partialItems(
                of: table, viewState: viewState, paths: [], listing: false, in: location, registered: true,
                also: extra, listed: listed)
        else { return nil }
        return Library(location: location, partial: Document(items: items), viewState: viewState, table: table)
    }

    /// Whether `store.json` is still the file this library's document was read from: false
    /// once another process (or this one, through another `Library`) replaced it.
    package var isCurrent: Bool {
        guard let identity = table?.identity ?? documents.identity else { return false }
        return FileIdentity(path: location.storeFile) == identity
    }

    /// The walk found each path in the table; the items as decoded must lead there too,
    /// or the whole document answers (a table whose names are wrong but whose checksum
    /// holds could only come from a bug, and still prints nothing of its own).
    private func leadsTo(_ paths: [String?]) -> Bool {
        paths.allSatisfy { (try? item(at: $0)) != nil }
    }

    /// The items a partial library holds: the root, the folder stack and selection with
    /// their ancestors, each item on the way to each of `paths` (nil: the current folder),
    /// with `listing` the children of each that is a folder, decoded and checked against
    /// the table. nil where `reading` is.
    /// `registered`: a recording or playback in the view state is no reason for nil
    /// (`browsing`); `also` and `listed`: positions to decode, and folders to list, besides.
    private static func partialItems(
        of table: StoreTable, viewState: ViewStateStore, paths: [String?], listing: Bool,
        destinations: [String] = [], in location: StoreLocation,
        registered: Bool = false, also: Set<Int> = [], listed alsoListed: [Int] = []
    ) -> [ItemID: Item]? {
        guard registered || (viewState.state.recording == nil && viewState.state.playing == nil) else { return nil }
        var needed: Set<Int> = also.union([0])
        var listed: [Int] = alsoListed
        for folder in alsoListed { needed.formUnion(table.children(of: folder)) }
        func withAncestors(_ position: Int) { needed.formUnion(table.ancestry(of: position)) }
        // As `ViewState.restored` finds it: the deepest folder of the stack still there.
        var current = 0
        for id in viewState.state.folderStack {
            guard let position = table.position(of: id) else { continue }
            withAncestors(position)
            if table.isFolder(position) { current = position }
        }
        if let selection = viewState.state.selection, let position = table.position(of: selection.recording) {
            withAncestors(position)
        }
        let walker = PathWalker(table)
        for path in paths {
            // Anything but an item found (an error, a name missing) is the document's to answer.
            guard case .existing(let position)? = try? walker.walk(path ?? ".", from: current, visit: withAncestors)
            else { return nil }
            if listing, table.isFolder(position) {
                listed.append(position)
                needed.formUnion(table.children(of: position))
            }
        }
        for path in destinations {
            // Into an existing folder, or a name not yet in one, as `mkdir` and `mv` take it.
            let folder: Int
            switch try? walker.walk(path, from: current, visit: withAncestors) {
            case .existing(let at)? where table.isFolder(at): folder = at
            case .missing(let parent, let names, let endsInSlash)? where names.count == 1 && !endsInSlash:
                folder = parent
            default: return nil
            }
            listed.append(folder)
            needed.formUnion(table.children(of: folder))
        }
        guard let items = decode(needed, of: table, in: location) else { return nil }
        for folder in listed {
            guard items[table.id(folder)]?.children == table.children(of: folder).map(table.id(_:)) else { return nil }
        }
        return items
    }

    /// The items at `positions`, decoded from their bytes in `store.json` (opened and checked
    /// to be the file the table names, and read in file order as `find` reads its hits), each checked to be the item
    /// the table says is there with the parent it says; nil if one is not.
    private static func decode(_ positions: Set<Int>, of table: StoreTable, in location: StoreLocation)
        -> [ItemID: Item]?
    {
        FileSystem.withOpened(location.storeFile, O_RDONLY) { fd -> [ItemID: Item]? in
            guard FileIdentity(descriptor: fd) == table.identity else { return nil }
            let positions = positions.sorted { table.storeRange($0).lowerBound < table.storeRange($1).lowerBound }
            var items: [ItemID: Item] = [:]
            items.reserveCapacity(positions.count)
            let whole = ItemIndex.forEachItem(in: positions.map(table.storeRange), of: fd) { k, item in
                guard item.id == table.id(positions[k]), item.parent == table.parent(positions[k]).map(table.id(_:))
                else {
                    return false
                }
                items[item.id] = item
                return true
            }
            guard whole else { return nil }
            return items
        } ?? nil
    }

    /// After a reading command succeeded: the reads' table made from the whole store it
    /// read, when the one in `cache/` is missing or stale, or marked as trusting a
    /// `store.json` that is now a second old (`StoreTable.refresh`).
    package func keepReadTable() { StoreTable.refresh(self) }
}

extension StoreTable: ItemTree {
    var rootNode: Int { 0 }
    func id(of node: Int) -> ItemID { id(node) }
    func parent(of node: Int) -> Int? { parent(node) }
    func node(withID id: ItemID) -> Int? { position(of: id) }

    func child(named name: String, in folder: Int) -> Int? {
        var next = folder + 1
        while next < subtreeEnd(folder) {
            if self.name(next) == name { return next }
            next = subtreeEnd(next)
        }
        return nil
    }

    /// Unique in the table is unique in the document only when nothing is outside it.
    func nodes(withPrefix nibbles: [UInt8]) -> [Int]? {
        count == documentCount ? (0..<count).filter { id($0).hasPrefix(nibbles: nibbles) } : nil
    }

    func path(of node: Int) -> String {
        let names = ancestry(of: node).reversed().dropFirst().map(name)
        return PathResolver.joined("/", Array(names))
    }
}

import RecSystem

/// The folder screen's operations as transactions on the document: what `mkdir`, `rm` and
/// `mv` mean, independent of how they are typed.
extension DocumentStore.Transaction {
    /// Creates the folder at `path`. With `createParents`, missing folders on the way are
    /// created too and an existing folder at `path` is fine, as `mkdir -p` does.
    /// Returns the folders created.
    @discardableResult
    package mutating func makeFolder(at path: String, from currentFolder: ItemID, createParents: Bool) throws -> [Item]
    {
        let resolver = PathResolver(document: document, currentFolder: currentFolder)
        switch try resolver.walk(path) {
        case .existing(let item):
            // A path ending in `.` or `..` names a folder that is already there.
            if createParents && item.isFolder { return [] }
            throw RecError.failure(path, "already exists")
        case .missing(let parent, let names, _):
            guard names.count == 1 || createParents else {
                throw resolver.missing(path, parent: parent, names: names, hint: "use -p to create it")
            }
            return try makeFolders(names, in: parent.id).created
        }
    }

    /// Makes the folders `names` under `parent`, each inside the one before, as `mkdir -p`
    /// does once a path is resolved (`PathResolver.Location.missing`). A folder already there
    /// is used: another process may have made it since the path was resolved.
    /// Returns the last folder and the folders made.
    @discardableResult
    package mutating func makeFolders(_ names: [String], in parent: ItemID) throws -> (folder: Item, created: [Item]) {
        guard var current = document[parent], current.isFolder else {
            throw RecError.failure(PathResolver.joined("/", names), "no such folder: its folder is gone")
        }
        var created: [Item] = []
        for name in names {
            try NameRules.validate(name)
            if let existing = document.child(named: name, in: current.id) {
                guard existing.isFolder else {
                    throw RecError.failure(document.path(of: existing.id), "not a folder")
                }
                current = existing
                continue
            }
            let folder = Item.folder(name: name, parent: current.id)
            try add(folder)
            current = document[folder.id]!
            created.append(current)
        }
        return (current, created)
    }

    /// The items at `paths`, resolved against the document as this transaction has it.
    func items(at paths: [String], from currentFolder: ItemID) throws -> [(path: String, item: Item)] {
        let resolver = PathResolver(document: document, currentFolder: currentFolder)
        return try paths.map { (path: $0, item: try resolver.resolve($0)) }
    }

    /// `rm PATH...`: removes the items and everything under them. A non-empty folder needs
    /// `recursive`. Items already under another one being removed are taken with it.
    @discardableResult
    package mutating func removeItems(
        at paths: [String], from currentFolder: ItemID, recursive: Bool, permanently: Bool = false
    ) throws -> [Item] {
        let targets = try items(at: paths, from: currentFolder)
        for (path, item) in targets {
            if item.id == .root { throw RecError.failure(path, "the root folder cannot be removed") }
            if item.isFolder && !item.children.isEmpty && !recursive {
                throw RecError.failure(path, "folder is not empty (use -r to remove it and everything in it)")
            }
        }
        let ids = Set(targets.map(\.item.id))
        var removed: [Item] = []
        for (_, item) in targets where document[item.id] != nil {
            if ids.contains(where: { $0 != item.id && document.isDescendant(item.id, of: $0) }) { continue }
            if case .removed(_, _, _, let subtree) = try remove(item.id, permanently: permanently) {
                removed.append(contentsOf: subtree)
            }
        }
        return removed
    }

    /// `mv SRC... DEST`: into DEST when it is an existing folder, otherwise (one source only)
    /// to DEST's parent under DEST's name. Nothing is ever replaced.
    @discardableResult
    package mutating func moveItems(at paths: [String], to destination: String, from currentFolder: ItemID) throws
        -> [Item]
    {
        let sources = try items(at: paths, from: currentFolder)
        let resolver = PathResolver(document: document, currentFolder: currentFolder)
        var moved: [Item] = []
        switch try resolver.locate(destination) {
        case .existing(let target) where target.isFolder:
            for (path, item) in sources {
                guard let current = document[item.id] else {
                    throw RecError.failure(path, "no such folder or recording")
                }
                if current.parent == target.id {
                    throw RecError.failure(path, "already in \(document.path(of: target.id))")
                }
                try move(item.id, into: target.id, name: current.name)
                moved.append(document[item.id]!)
            }
        case .existing:
            throw RecError.failure(destination, "already exists")
        case .missing(let parent, let name):
            guard sources.count == 1 else {
                throw RecError.failure(destination, "no such folder (moving several items needs an existing folder)")
            }
            try move(sources[0].item.id, into: parent.id, name: name)
            moved.append(document[sources[0].item.id]!)
        }
        return moved
    }
}

extension DocumentStore.Transaction {
    /// `trash restore SPEC [--to FOLDER] [--name NAME]`: `spec` as `Document.trashEntry`
    /// reads it, `folder` as any path.
    @discardableResult
    package mutating func restore(_ spec: String, into folder: String?, name: String?, from currentFolder: ItemID)
        throws
        -> DocumentStore.Action
    {
        let entry = try document.trashEntry(matching: spec, from: currentFolder)
        let target = try folder.map {
            try PathResolver(document: document, currentFolder: currentFolder).resolveFolder($0).id
        }
        return try restore(entry.id, into: target, name: name)
    }
}

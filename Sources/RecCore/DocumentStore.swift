/// The document store: recordings and folders, persisted in `store.json`.
///
/// As in the book's MVC+ViewState version, every change takes one path: a transaction
/// validates and applies each change to a value-typed copy, the copy is persisted
/// atomically under the store lock, and only then are observers told, with an `Action`
/// that carries the item's index in its parent's display order. A change that fails
/// validation or cannot be written leaves the file and the in-memory state as they were.
public final class DocumentStore {
    public enum Action: Equatable, Sendable {
        case added(Item, parent: ItemID, index: Int)
        case renamed(Item, oldName: String, oldIndex: Int, newIndex: Int)
        case moved(Item, from: ItemID, oldIndex: Int, to: ItemID, newIndex: Int)
        /// The item and, for a folder, everything that was under it.
        case removed(Item, parent: ItemID, index: Int, subtree: [Item])
    }

    public let location: StoreLocation
    public private(set) var document: Document
    private var identity: FileIdentity?
    private var observers: [(Action, Document) -> Void] = []

    /// Loads the store, creating it on first use. A corrupt or too-new `store.json` is an
    /// error naming the file and what is wrong; it is never replaced.
    public init(location: StoreLocation) throws {
        self.location = location
        document = Document()
        try FileSystem.makeDirectories(location.directory)
        if try !reloadIfChanged() {
            try FileLock.withLock(location.storeLockFile) {
                if try !reloadIfChanged() {
                    try FileSystem.writeAtomically(DocumentCodec.encode(document), to: location.storeFile)
                    identity = FileIdentity(path: location.storeFile)
                }
            }
        }
    }

    /// Subscribes to every later change.
    public func observe(_ observer: @escaping (Action, Document) -> Void) {
        observers.append(observer)
    }

    /// Returns false when there is no store file yet.
    @discardableResult
    private func reloadIfChanged() throws -> Bool {
        let current = FileIdentity(path: location.storeFile)
        guard let current else { return false }
        if current == identity { return true }
        guard let bytes = try FileSystem.read(location.storeFile) else { return false }
        do {
            document = try bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0).0 }
        } catch let corrupt as DocumentCodec.Corrupt {
            throw RecError.failure(location.storeFile, corrupt.reason)
        }
        identity = current
        return true
    }

    /// Runs `body` against the current document under the store lock; persists once if it
    /// returns, then notifies observers of each action in order. Throwing from `body`
    /// discards every change it made.
    @discardableResult
    public func transaction<T>(_ body: (inout Transaction) throws -> T) throws -> T {
        try FileLock.withLock(location.storeLockFile) {
            try reloadIfChanged()
            var transaction = Transaction(document: document)
            let result = try body(&transaction)
            guard !transaction.actions.isEmpty else { return result }
            try FileSystem.writeAtomically(DocumentCodec.encode(transaction.document), to: location.storeFile)
            identity = FileIdentity(path: location.storeFile)
            document = transaction.document
            removeAudio(of: transaction.actions)
            for action in transaction.actions {
                for observer in observers { observer(action, document) }
            }
            return result
        }
    }

    /// Audio goes only after the document that referenced it is safely gone: a crash in
    /// between leaves an orphan file (which fsck adopts), never a recording without audio.
    private func removeAudio(of actions: [Action]) {
        for case let .removed(_, _, _, subtree) in actions {
            for item in subtree {
                if let file = item.recording?.file { try? FileSystem.remove(location.audioPath(file)) }
            }
        }
    }

    /// A working copy of the document; each method validates, applies and records one action.
    public struct Transaction {
        public private(set) var document: Document
        public private(set) var actions: [Action] = []

        init(document: Document) {
            self.document = document
        }

        private func folder(_ id: ItemID) throws -> Item {
            guard let item = document[id] else { throw RecError.failure("@\(id)", "no such item") }
            guard item.isFolder else { throw RecError.failure(document.path(of: id), "not a folder") }
            return item
        }

        private func checkFree(_ name: String, in parent: ItemID, except: ItemID? = nil) throws {
            try NameRules.validate(name)
            if let existing = document.child(named: name, in: parent), existing.id != except {
                throw RecError.failure(document.path(of: existing.id), "already exists")
            }
        }

        @discardableResult
        public mutating func add(_ item: Item) throws -> Action {
            guard let parentID = item.parent else { throw RecError.failure(item.name, "an item needs a parent folder") }
            _ = try folder(parentID)
            guard document[item.id] == nil else { throw RecError.failure("@\(item.id)", "uuid already in use") }
            try checkFree(item.name, in: parentID)
            var item = item
            item.children = []
            let index = document.insert(item)
            return record(.added(document[item.id]!, parent: parentID, index: index))
        }

        /// Renames and/or moves. Moving a folder into itself or below itself is refused, and
        /// an existing item of the same name is never replaced.
        @discardableResult
        public mutating func move(_ id: ItemID, into newParent: ItemID, name: String) throws -> Action {
            guard id != .root else { throw RecError.failure("/", "the root folder cannot be moved or renamed") }
            guard let item = document[id] else { throw RecError.failure("@\(id)", "no such item") }
            _ = try folder(newParent)
            if newParent == id || document.isDescendant(newParent, of: id) {
                throw RecError.failure(document.path(of: id), "cannot move a folder into itself or one of its subfolders")
            }
            try checkFree(name, in: newParent, except: id)
            let oldParent = item.parent!
            let oldIndex = document.unlink(id)
            document.setName(name, of: id)
            let newIndex = document.link(id, into: newParent)
            let updated = document[id]!
            if oldParent == newParent {
                return record(.renamed(updated, oldName: item.name, oldIndex: oldIndex, newIndex: newIndex))
            }
            return record(.moved(updated, from: oldParent, oldIndex: oldIndex, to: newParent, newIndex: newIndex))
        }

        @discardableResult
        public mutating func rename(_ id: ItemID, to name: String) throws -> Action {
            guard let parent = document[id]?.parent else {
                throw RecError.failure(id == .root ? "/" : "@\(id)", id == .root ? "the root folder cannot be renamed" : "no such item")
            }
            return try move(id, into: parent, name: name)
        }

        @discardableResult
        public mutating func remove(_ id: ItemID) throws -> Action {
            guard id != .root else { throw RecError.failure("/", "the root folder cannot be removed") }
            guard let item = document[id], let parent = item.parent else { throw RecError.failure("@\(id)", "no such item") }
            let index = document.unlink(id)
            let subtree = document.removeSubtree(id)
            return record(.removed(item, parent: parent, index: index, subtree: subtree))
        }

        private mutating func record(_ action: Action) -> Action {
            actions.append(action)
            return action
        }
    }
}

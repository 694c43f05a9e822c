import RecSystem
import RecValues

/// The document store: recordings and folders, persisted in `store.json`.
///
/// As in the book's MVC+ViewState version, every change takes one path: a transaction
/// validates and applies each change to a value-typed copy, the copy is persisted
/// atomically under the store lock, and only then are observers told, with an `Action`
/// that carries the item's index in its parent's display order. A change that fails
/// validation or cannot be written leaves the file and the in-memory state as they were.
package final class DocumentStore {
    package enum Action: Equatable, Sendable {
        case added(Item, parent: ItemID, index: Int)
        case renamed(Item, oldName: String, oldIndex: Int, newIndex: Int)
        case moved(Item, from: ItemID, oldIndex: Int, to: ItemID, newIndex: Int)
        /// The item and, for a folder, everything that was under it. Unless removed
        /// permanently, the document's trash now holds them.
        case removed(Item, parent: ItemID, index: Int, subtree: [Item])
        /// Trash entries deleted for good, audio and all.
        case purged([TrashEntry])
        /// The item's note, tags, markers or trim points changed; `before` is what they were.
        case annotated(Item, before: Annotations)
    }

    package let location: StoreLocation
    package private(set) var document: Document
    /// The identity of the `store.json` that `document` was read from (see `FileIdentity`).
    private(set) var identity: FileIdentity? {
        didSet {
            written = nil
            contentHash = nil
            identityIsStamped = false
        }
    }
    /// Whether this process wrote the file `identity` names with its modification time
    /// stamped (`FileSystem.stampModified`): then no later write can keep that identity, and
    /// a table or index made from it trusts the identity alone, even within the second.
    private var identityIsStamped = false
    /// The `store.json` that `document` was read from or last written as: its bytes, kept so
    /// that the next change is spliced into them (`DocumentCodec.encodeSplicing`), and where
    /// each item lies in them (`find`'s index keeps that).
    private var written: DocumentCodec.Written?
    /// Whether `written`'s items are what a full encode writes for `document`'s (a current
    /// version, read without being put in order, or written here): only then is a change
    /// spliced; otherwise it is encoded whole, as an upgrade is.
    private var writtenIsEncoded = false
    var itemRanges: [(id: ItemID, range: Range<Int>)]? { written?.itemRanges }
    /// Whether the file `document` was read from or written as is laid out as this version
    /// writes it (`DocumentCodec.isSpliceable`, every line read): what a table made from it
    /// records, so that a splice through that table need not read every line again.
    var isSpliceable: Bool {
        guard let written, writtenIsEncoded else { return false }
        return written.bytes.withUnsafeBufferPointer { DocumentCodec.isSpliceable($0, written.itemRanges) }
    }
    /// `ContentHash` of the bytes `document` was read from or last written as: with the
    /// identity, what `find`'s index names as its source. Not taken for a spliced write
    /// whose identity is stamped (nothing needs it).
    private(set) var contentHash: UInt64?

    /// What a table or `find`'s index made from the file `document` was read from or written
    /// as names as its source: the identity, trusted alone (`present`) when it is stamped or a
    /// second old, else with the content hash (`recent`, checked by reading the file); and
    /// that hash, 0 where it was not taken (a stamped identity's). nil when neither holds.
    var source: (identity: SourceIdentity, contentHash: UInt64)? {
        guard let identity else { return nil }
        if identityIsStamped { return (.present(identity), contentHash ?? 0) }
        guard let contentHash else { return nil }
        return (SourceIdentity.of(identity), contentHash)
    }
    /// The version `store.json` was last read as; an older one is kept once as
    /// `store.json.v<N>` before the first write upgrades it.
    package private(set) var loadedVersion = Document.currentVersion
    private var observers: [(Action, Document) -> Void] = []
    /// What the journal calls the change, e.g. the command line that made it.
    package var summary = ""
    package var journal: Journal { Journal(location: location) }

    /// Loads the store, creating it on first use. A corrupt or too-new `store.json` is an
    /// error naming the file and what is wrong; it is never replaced. Neither is a missing
    /// one beside audio files or a journal: that store lost its documents, and `fsck
    /// --repair` rebuilds them.
    ///
    /// A store the process cannot write (see `StoreLocation.isWritable`) is opened
    /// read-only: it takes no lock, creates nothing, and every change is refused.
    package init(location: StoreLocation) throws {
        self.location = location
        document = Document()
        isReadOnly = !location.isWritable
        if isReadOnly {
            if try !reloadIfChanged() { try refuseIfLost() }
            return
        }
        try FileSystem.makeDirectories(location.directory)
        if try !reloadIfChanged() {
            try FileLock.withLock(location.storeLockFile) {
                if try !reloadIfChanged() {
                    try refuseIfLost()
                    try FileSystem.writeAtomically(DocumentCodec.encode(document), to: location.storeFile)
                    identity = FileIdentity(path: location.storeFile)
                    contentHash = nil
                }
            }
        }
    }

    /// True when the store was opened read-only: changes are refused with `readOnlyError`.
    package let isReadOnly: Bool

    /// True when `document` holds only the items a reading command shows, decoded from their
    /// places in `store.json` (`Library.reading`): read-only, and never written or refreshed.
    package private(set) var isPartial = false

    /// The store of `Library.reading`: `document` is the items it decoded and their links.
    init(location: StoreLocation, partial document: Document) {
        self.location = location
        self.document = document
        isReadOnly = true
        isPartial = true
    }

    /// The reads' table `document` was read through, while it is partial and writable
    /// (`Library.changing`); nil once the whole document is read.
    private var partialTable: StoreTable?

    /// The store of `Library.changing`: `document` is the few items it decoded through
    /// `table`. A transaction changes them and splices them into `store.json` as long as
    /// the file is still the one the table names and the change is to annotations alone;
    /// otherwise it reads the whole store first (`readWhole`), as every other store does.
    init(location: StoreLocation, changing document: Document, table: StoreTable) {
        self.location = location
        self.document = document
        isReadOnly = false
        isPartial = true
        partialTable = table
    }

    /// Leaves the partial document for the whole one, read from `store.json` as it is now.
    private func readWhole() throws {
        partialTable = nil
        isPartial = false
        identity = nil
        if try !reloadIfChanged() {
            try refuseIfLost()
            throw RecError.failure(location.storeFile, "missing: it was removed while the command ran")
        }
    }

    /// The one-line refusal of a change to a read-only store.
    package var readOnlyError: RecError {
        RecError.failure(
            location.directory,
            "the store is read-only (\(location.writeProblem ?? "not writable")); nothing was changed")
    }

    private func refuseIfLost() throws {
        if location.hasLostDocuments {
            throw RecError.failure(location.storeFile, Self.lostDocumentsReason)
        }
    }

    /// Why a store without `store.json` but with audio or a journal is not started afresh.
    package static let lostDocumentsReason =
        "missing, but audio/ or journal.jsonl is there; run 'recnotes fsck --repair' to rebuild it from them"

    /// Subscribes to every later change.
    package func observe(_ observer: @escaping (Action, Document) -> Void) {
        observers.append(observer)
    }

    /// Reads `store.json` again if another process replaced it since (`browse` follows other
    /// shells' changes). Returns whether the document is a new one.
    @discardableResult
    package func refresh() throws -> Bool {
        let before = identity
        try reloadIfChanged()
        return identity != before
    }

    /// Returns false when there is no store file yet.
    @discardableResult
    private func reloadIfChanged() throws -> Bool {
        let current = FileIdentity(path: location.storeFile)
        guard let current else { return false }
        if current == identity { return true }
        guard let bytes = try FileSystem.read(location.storeFile) else { return false }
        do {
            let decoded = try bytes.withUnsafeBufferPointer { try DocumentCodec.load($0) }
            document = decoded.document
            loadedVersion = decoded.version
            identity = current
            written = DocumentCodec.Written(bytes: bytes, itemRanges: decoded.itemRanges)
            writtenIsEncoded = decoded.isAsWritten
            contentHash = ContentHash.of(bytes)
        } catch let corrupt as DocumentCodec.Corrupt {
            // Said by every command, so that the way out is known from whichever one met it.
            let remedy =
                corrupt.isRebuildable
                ? "; 'recnotes fsck --repair' moves it aside and rebuilds it from its intact lines, journal.jsonl and audio/"
                : ""
            throw RecError.failure(location.storeFile, corrupt.reason + remedy)
        }
        return true
    }

    /// The recording a live process is making into this store, from the view state.
    private static func liveRecording(at location: StoreLocation) -> (folder: ItemID, name: String, pid: Int32)? {
        guard let entry = ViewStateStore.peek(location)?.recording, entry.output == nil, processIsAlive(entry.pid)
        else { return nil }
        return (entry.parent, entry.name, entry.pid)
    }

    /// Runs `body` against the current document under the store lock; persists once if it
    /// returns, then notifies observers of each action in order. Throwing from `body`
    /// discards every change it made.
    @discardableResult
    package func transaction<T>(_ body: (inout Transaction) throws -> T) throws -> T {
        try withLock {
            // Another process's change since the partial document was read is read whole.
            if let table = partialTable, FileIdentity(path: location.storeFile) != table.identity { try readWhole() }
            if partialTable == nil { try reloadIfChanged() }
            let location = location
            func run() throws -> (Transaction, T) {
                var transaction = Transaction(document: document)
                transaction.liveRecording = { Self.liveRecording(at: location) }
                let result = try body(&transaction)
                return (transaction, result)
            }
            var (transaction, result) = try run()
            // A partial document is spliced in only for a change of annotations; anything
            // else (or a file the splice cannot take) is made again on the whole document.
            var spliced: PartialWrite?
            if let table = partialTable, !transaction.actions.isEmpty {
                spliced = transaction.transcriptsToPutBack.isEmpty ? splice(transaction, through: table) : nil
                if spliced == nil {
                    try readWhole()
                    (transaction, result) = try run()
                }
            }
            // A transcript saved or taken back changes no document, only the journal.
            guard
                !transaction.actions.isEmpty || !transaction.steps.isEmpty || !transaction.transcriptsToPutBack.isEmpty
            else { return result }
            guard !isReadOnly else { throw readOnlyError }
            let before = document
            if spliced != nil {
                // The unchanged runs are copied by the kernel from the file read, which is
                // kept open: the new file is never whole in memory. Its time is stamped, so
                // that the table and index can name it by its identity alone; only where the
                // stamp does not hold is it hashed (made in memory once more for that).
                let storeFile = location.storeFile
                let named = partialTable?.identity
                var newHash: UInt64?
                let made = try AtomicWrite(to: storeFile, stamping: true, followingWriteback: true)
                try made.write { target in
                    try spliced!.source.withDescriptor {
                        try spliced!.file.write(to: target, from: $0, path: storeFile)
                    }
                    // The old file is read as it is now (mapped, copied by the kernel), not
                    // from a copy: one changed in place meanwhile (a new time) is not replaced.
                    guard spliced!.source.identity == named else {
                        throw RecError.failure(
                            storeFile, "changed by another program while it was read; nothing was changed")
                    }
                }
                // While the disk takes the file: what the reads' table and find's index will
                // hold, named by the new identity; written once the file is in place.
                if !made.stamped { newHash = ContentHash.of(spliced!.file.bytes) }
                spliced!.contentHash = newHash ?? 0
                let source =
                    made.stamped ? SourceIdentity.present(FileIdentity(made.info)) : .of(FileIdentity(made.info))
                var saveCaches = partialTable.map {
                    SearchIndexFiles.storeSpliced(spliced!, after: $0, source: source, in: location)
                }
                try made.replace()
                // While the directory syncs.
                saveCaches?()
                // `spliced` is the only binding of the change, so that this is the last
                // reference to the old file (unless the table holds it): its pages are freed
                // here, while the directory syncs, not after.
                saveCaches = nil
                spliced = nil
                made.finish()
                identity = FileIdentity(made.info)
                identityIsStamped = made.stamped
                if !made.stamped { contentHash = newHash }
                // A partial store reads the whole document before its next change (a new
                // identity), so the bytes are not kept for a splice into them.
                writtenIsEncoded = false
                document = transaction.document
            } else if !transaction.actions.isEmpty {
                try keepOriginalBeforeUpgrade()
                // Only the items the transaction changed are encoded; the rest are copied.
                let encoded =
                    if let written, writtenIsEncoded {
                        DocumentCodec.encodeSplicing(
                            transaction.document, over: document, written: written,
                            annotated: transaction.annotatedOnly, touched: transaction.touched)
                    } else {
                        DocumentCodec.encodeWithRanges(transaction.document)
                    }
                // A debug build (every test's) holds each splice to the full encode: a change
                // that a Transaction method did not add to `touched` is caught here.
                assert(
                    encoded.bytes == DocumentCodec.encode(transaction.document),
                    "the spliced store.json is not the full encode")
                let storeFile = location.storeFile
                let made = try FileSystem.writeAtomically(to: storeFile, stamping: true, followingWriteback: true) {
                    try FileSystem.writeAll($0, encoded.bytes, path: storeFile)
                }
                identity = FileIdentity(made.info)
                identityIsStamped = made.stamped
                written = DocumentCodec.Written(bytes: encoded.bytes, itemRanges: encoded.itemRanges)
                writtenIsEncoded = true
                contentHash = ContentHash.of(encoded.bytes)
                document = transaction.document
                // find's index follows the write (when there is one: a store never searched
                // pays nothing), so the first search after a change need not open the store.
                SearchIndexFiles.storeWritten(self)
                removeAudio(of: transaction.actions)
            }
            let transcripts = TranscriptFiles(location: location)
            for (id, replaced) in transaction.transcriptsToPutBack {
                if let replaced { try transcripts.putBack(kept: replaced, for: id) } else { transcripts.remove(id) }
            }
            if transaction.journaled {
                journal.record(transaction, summary: summary, before: before)
            } else {
                journal.drop(transaction.undoneSequence)
            }
            for action in transaction.actions {
                for observer in observers { observer(action, document) }
            }
            return result
        }
    }

    /// A change spliced into `store.json` without its whole document: the new bytes, where
    /// each item lies in them, their hash, and the items changed (logged for find's index:
    /// `SearchIndexFiles.storeSpliced`). For a change that added or moved items, `layout`
    /// says where the items of the new file came from in the table instead of `itemRanges`
    /// (runs of the table, not one entry per item), and `document` holds the touched items
    /// and their ancestors as they are now.
    struct PartialWrite {
        /// The new file, runs of `source`'s bytes (the old file, mapped and open) and new ones.
        var file: DocumentCodec.SplicedFile
        var source: MappedBytes
        /// Every item's range in the new file, in the table's order (a change of annotations).
        var itemRanges: [(id: ItemID, range: Range<Int>)]
        /// Set once written: 0 for a file whose identity is stamped (not hashed).
        var contentHash: UInt64 = 0
        var changed: [ItemID: Item]
        var layout: DocumentCodec.TableLayout? = nil
        var document = Document(items: [:])
    }

    /// `transaction`'s change spliced into the `store.json` the table names (read again now,
    /// under the lock): a change of annotations alone, or one that only added folders and
    /// moved or renamed items (`mkdir`, `mv`: `Transaction.restructuredOnly`), in a
    /// current-version file laid out as written; nil otherwise, and the whole document is read.
    private func splice(_ transaction: Transaction, through table: StoreTable) -> PartialWrite? {
        let annotated = transaction.annotatedOnly
        // The bytes read to trust a `recent` table are the file's while its identity holds
        // (recnotes replaces store.json, a new inode, and the lock is held): not read again.
        // Mapped, not copied, and kept open: the write copies its unchanged runs from it.
        guard annotated != nil || transaction.restructuredOnly,
            let source = table.storeBytes ?? MappedBytes(mapping: location.storeFile, populate: !table.isSpliceable),
            source.identity == table.identity,
            FileIdentity(path: location.storeFile) == table.identity, source.buffer.count == Int(table.identity.size)
        else { return nil }
        let bytes = source.buffer.assumingMemoryBound(to: UInt8.self)
        let spliced: DocumentCodec.SplicedFile
        let itemRanges: [(id: ItemID, range: Range<Int>)]
        var layout: DocumentCodec.TableLayout?
        let changedIDs: Set<ItemID>
        if let annotated {
            let ranges = (0..<table.count).map { (id: table.id($0), range: table.storeRange($0)) }
            guard
                let made = DocumentCodec.splicingAnnotations(
                    annotated, transaction.document, over: document, bytes: bytes, itemRanges: ranges,
                    knownSpliceable: table.isSpliceable)
            else { return nil }
            (spliced, itemRanges, changedIDs) = (made.file, made.itemRanges, annotated)
        } else {
            guard
                let made = DocumentCodec.splicingStructure(
                    transaction.touched, transaction.document, bytes: bytes, table: table)
            else { return nil }
            (spliced, itemRanges, layout, changedIDs) = (made.file, [], made.layout, transaction.touched)
        }
        var changed: [ItemID: Item] = [:]
        for id in changedIDs { changed[id] = transaction.document[id] }
        // A debug build (every test's) holds the splice to the full encode of the whole
        // document with the same change: every item it touched as it is now.
        assert(
            {
                guard var whole = try? DocumentCodec.load(bytes).document else { return false }
                for (id, item) in changed { whole.items[id] = item }
                return DocumentCodec.encode(whole) == spliced.bytes
            }(), "the spliced store.json is not the full encode")
        return PartialWrite(
            file: spliced, source: source, itemRanges: itemRanges, changed: changed, layout: layout,
            document: transaction.document)
    }

    /// The first write after reading an older version keeps what that version wrote, once,
    /// as `store.json.v<N>`: an older recnotes can still be pointed at it.
    private func keepOriginalBeforeUpgrade() throws {
        try Self.keepOriginal(location, writtenAs: loadedVersion)
        loadedVersion = Document.currentVersion
    }

    /// Keeps `store.json` as `store.json.v<version>` once, if `version` is older than the
    /// current one; called before anything (a transaction, `fsck --repair`) rewrites it.
    static func keepOriginal(_ location: StoreLocation, writtenAs version: Int) throws {
        guard version < Document.currentVersion else { return }
        let backup = location.storeFile + ".v\(version)"
        if !FileSystem.exists(backup), let original = try FileSystem.read(location.storeFile) {
            try FileSystem.writeAtomically(original, to: backup)
        }
    }

    /// The store lock, which a read-only store does not take (it cannot create or open the
    /// lock file for writing, and it never writes).
    private func withLock<T>(_ body: () throws -> T) throws -> T {
        if isReadOnly { return try body() }
        return try FileLock.withLock(location.storeLockFile, body)
    }

    /// Audio goes only after the document that referenced it is safely gone: a crash in
    /// between leaves an orphan file (which fsck adopts), never a recording without audio.
    /// Trashed recordings keep theirs.
    /// Transcripts (`transcripts/<uuid>.json`) go the same way, with their recording.
    private func removeAudio(of actions: [Action]) {
        var files: [String] = []
        var recordings: [ItemID] = []
        for action in actions {
            switch action {
            case .removed(let item, _, _, let subtree) where document.trashEntry(item.id) == nil:
                files += subtree.compactMap(\.recording?.file)
                recordings += subtree.filter { $0.recording != nil }.map(\.id)
            case .purged(let entries):
                files += entries.flatMap(\.audioFiles)
                recordings += entries.flatMap(\.items).filter { $0.recording != nil }.map(\.id)
            default:
                continue
            }
        }
        // Most changes remove nothing: no need to gather every recording's file.
        guard !files.isEmpty || !recordings.isEmpty else { return }
        let kept = Set(document.items.values.compactMap(\.recording?.file) + document.trash.flatMap(\.audioFiles))
        for file in files where !kept.contains(file) { try? FileSystem.remove(location.audioPath(file)) }
        let transcripts = TranscriptFiles(location: location)
        let trashed = Set(document.trash.flatMap { $0.items.map(\.id) })
        for id in recordings where document[id] == nil && !trashed.contains(id) { transcripts.remove(id) }
    }

    /// A working copy of the document; each method validates, applies and records one action.
    package struct Transaction {
        package private(set) var document: Document
        package private(set) var actions: [Action] = []
        /// Every item whose value may differ from the document's before: added, removed,
        /// changed, moved, or a folder whose children changed. Only these are encoded again
        /// when the document is written (`DocumentCodec.encodeSplicing`); each method that
        /// changes `document` adds what it changed.
        var touched = Set<ItemID>()
        /// How to take this transaction back, for the journal; `undo` clears it.
        var steps: [Journal.Step] = []
        /// False for a transaction that undoes an earlier one...
        var journaled = true
        /// ...and the journal entry it undid, which goes from the journal with it.
        var undoneSequence: Int?
        /// Transcripts an undo takes back once the document is written: each recording's
        /// kept earlier one (`TranscriptFiles.keepForUndo`), or none.
        var transcriptsToPutBack: [(id: ItemID, replaced: String?)] = []

        /// A recording being made now, by a live process: the folder it will be saved in,
        /// its name and pid. A removal that would take that folder away is refused. Looked
        /// up (the view state read) only when a folder is removed, not for every change.
        package var liveRecording: () -> (folder: ItemID, name: String, pid: Int32)? = { nil }

        package init(document: Document) {
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
        package mutating func add(_ item: Item) throws -> Action {
            guard let parentID = item.parent else { throw RecError.failure(item.name, "an item needs a parent folder") }
            _ = try folder(parentID)
            guard document[item.id] == nil else { throw RecError.failure("@\(item.id)", "uuid already in use") }
            try checkFree(item.name, in: parentID)
            var item = item
            item.children = []
            item.annotations.assignMarkerIDs(item: item.id)
            item.annotations.markers = MarkerRules.sorted(item.annotations.markers)
            let index = document.insert(item)
            touched.formUnion([item.id, parentID])
            steps.append(
                .added(item.id, .init(parent: parentID, name: item.name, kind: item.kind, created: item.created)))
            // What it was born with (a recording's markers) is journaled too, so that a
            // store.json rebuilt from the journal has it.
            if !item.annotations.isEmpty { steps.append(.annotated(item.id, before: .none, after: item.annotations)) }
            return record(.added(document[item.id]!, parent: parentID, index: index))
        }

        /// Replaces an item's note, tags, markers and trim points (kept normalized: tags sorted and unique,
        /// markers in order). Nothing is recorded when nothing changes.
        @discardableResult
        package mutating func annotate(_ id: ItemID, with annotations: Annotations) throws -> Action? {
            guard let item = document[id] else { throw RecError.failure("@\(id)", "no such item") }
            var new = annotations
            new.tags = TagRules.normalized(new.tags)
            new.assignMarkerIDs(item: id)
            new.markers = MarkerRules.sorted(new.markers)
            if item.isFolder, !new.markers.isEmpty {
                throw RecError.failure(document.path(of: id), "a folder has no markers; only recordings do")
            }
            if item.isFolder, new.trim != nil {
                throw RecError.usage(document.path(of: id), "a folder has no trim points; only recordings do")
            }
            if item.isFolder, !new.enhance.isOff {
                throw RecError.usage(document.path(of: id), "a folder is not enhanced; only recordings are")
            }
            guard new != item.annotations else { return nil }
            document.items[id]!.annotations = new
            touched.insert(id)
            if new.trim != item.annotations.trim { document.items[id]!.changed.trim = .now() }
            if new.enhance != item.annotations.enhance { document.items[id]!.changed.enhance = .now() }
            steps.append(.annotated(id, before: item.annotations, after: new))
            return record(.annotated(document[id]!, before: item.annotations))
        }

        /// `transcribe` has saved a transcript for `id` (the file write is its own);
        /// journaled so that `undo` can take it back to `replaced`, the kept earlier one.
        package mutating func transcribed(_ id: ItemID, replaced: String?) throws {
            guard document[id]?.recording != nil else { throw RecError.failure("@\(id)", "no such recording") }
            steps.append(.transcribed(id, replaced: replaced))
        }

        /// Renames and/or moves. Moving a folder into itself or below itself is refused, and
        /// an existing item of the same name is never replaced.
        @discardableResult
        package mutating func move(_ id: ItemID, into newParent: ItemID, name: String) throws -> Action {
            guard id != .root else { throw RecError.failure("/", "the root folder cannot be moved or renamed") }
            guard let item = document[id] else { throw RecError.failure("@\(id)", "no such item") }
            _ = try folder(newParent)
            if newParent == id || document.isDescendant(newParent, of: id) {
                throw RecError.failure(
                    document.path(of: id), "cannot move a folder into itself or one of its subfolders")
            }
            try checkFree(name, in: newParent, except: id)
            let oldParent = item.parent!
            touched.formUnion([id, oldParent, newParent])
            let oldIndex = document.unlink(id)
            document.setName(name, of: id)
            let newIndex = document.link(id, into: newParent)
            let now = Timestamp.now()
            if name != item.name { document.items[id]!.changed.name = now }
            if newParent != oldParent { document.items[id]!.changed.parent = now }
            let updated = document[id]!
            steps.append(.moved(id, fromParent: oldParent, fromName: item.name, toParent: newParent, toName: name))
            if oldParent == newParent {
                return record(.renamed(updated, oldName: item.name, oldIndex: oldIndex, newIndex: newIndex))
            }
            return record(.moved(updated, from: oldParent, oldIndex: oldIndex, to: newParent, newIndex: newIndex))
        }

        @discardableResult
        package mutating func rename(_ id: ItemID, to name: String) throws -> Action {
            guard let parent = document[id]?.parent else {
                throw RecError.failure(
                    id == .root ? "/" : "@\(id)", id == .root ? "the root folder cannot be renamed" : "no such item")
            }
            return try move(id, into: parent, name: name)
        }

        /// Removes an item and its subtree into the trash, or for good with `permanently`.
        @discardableResult
        package mutating func remove(_ id: ItemID, permanently: Bool = false) throws -> Action {
            guard id != .root else { throw RecError.failure("/", "the root folder cannot be removed") }
            guard let item = document[id], let parent = item.parent else {
                throw RecError.failure("@\(id)", "no such item")
            }
            let path = document.path(of: id)
            // The recorder saves into its folder by UUID; with the folder gone it would have
            // nowhere to go. Stopping it first is one command away.
            if item.isFolder, let live = liveRecording(),
                live.folder == id || document.ancestry(of: live.folder).contains(where: { $0.id == id })
            {
                let folder = document.path(of: live.folder)
                throw RecError.failure(
                    path,
                    "a recording is being made into \(folder == "/" ? "" : folder)/\(live.name) (pid \(live.pid)); stop it first ('recnotes stop'), then remove"
                )
            }
            touched.insert(parent)
            let index = document.unlink(id)
            let subtree = document.removeSubtree(id)
            if permanently {
                steps.append(.removedPermanently(id, path: path))
            } else {
                // The trash state's change time, for a merge (store version 4).
                let now = Timestamp.now()
                var entryItems = subtree
                entryItems[0].changed.trash = now
                document.trash.append(TrashEntry(parent: parent, path: path, removed: now, items: entryItems))
                steps.append(.trashed(id))
            }
            return record(.removed(item, parent: parent, index: index, subtree: subtree))
        }

        /// Puts a trashed item back: where it was, or into `folder` and/or under `name`.
        @discardableResult
        package mutating func restore(_ id: ItemID, into folder: ItemID? = nil, name: String? = nil) throws -> Action {
            guard var entry = document.trashEntry(id) else { throw RecError.failure("@\(id)", "not in the trash") }
            let parentID = folder ?? entry.parent
            guard let parent = document[parentID], parent.isFolder else {
                throw RecError.failure(entry.path, "its folder no longer exists; restore it with --to FOLDER")
            }
            let newName = name ?? entry.item.name
            try NameRules.validate(newName)
            if document.child(named: newName, in: parentID) != nil {
                let taken =
                    document.path(of: parentID) == "/" ? "/\(newName)" : "\(document.path(of: parentID))/\(newName)"
                throw RecError.failure(taken, "already exists; restore it with --to FOLDER or --name NAME")
            }
            if let clash = entry.items.first(where: { document[$0.id] != nil }) {
                throw RecError.failure("@\(clash.id)", "uuid already in use")
            }
            touched.formUnion(entry.items.map(\.id) + [parentID])
            entry.listOnlyHeldChildren()
            for item in entry.items.dropFirst() { document.items[item.id] = item }
            var top = entry.item
            let now = Timestamp.now()
            if newName != top.name { top.changed.name = now }
            if parentID != top.parent { top.changed.parent = now }
            top.changed.trash = now
            top.name = newName
            top.parent = parentID
            document.items[top.id] = top
            let index = document.link(top.id, into: parentID)
            document.trash.removeAll { $0.id == id }
            steps.append(.restored(id, .init(parent: parentID, name: newName, kind: top.kind, created: top.created)))
            return record(.added(document[top.id]!, parent: parentID, index: index))
        }

        /// Deletes trash entries for good (all of them by default); their audio goes too.
        @discardableResult
        package mutating func emptyTrash(_ ids: Set<ItemID>? = nil) -> Action? {
            let purged = document.trash.filter { ids?.contains($0.id) ?? true }
            guard !purged.isEmpty else { return nil }
            document.trash.removeAll { ids?.contains($0.id) ?? true }
            return record(.purged(purged))
        }

        /// The items changed, when every action is an `annotated` one: then nothing was
        /// added, removed, renamed or moved, and the store splices just these in place.
        var annotatedOnly: Set<ItemID>? {
            var ids = Set<ItemID>()
            for action in actions {
                guard case .annotated(let item, _) = action else { return nil }
                ids.insert(item.id)
            }
            return ids
        }

        /// Whether every action added a folder, or moved or renamed an item, and the trash
        /// is as it was: what `mkdir` and `mv` do, spliced through the reads' table
        /// (`DocumentCodec.splicingStructure`) when the document is partial.
        var restructuredOnly: Bool {
            guard !actions.isEmpty,
                steps.allSatisfy({ if case .moved = $0 { true } else if case .added = $0 { true } else { false } })
            else { return false }
            return actions.allSatisfy { action in
                switch action {
                case .added(let item, _, _): item.isFolder && item.children.isEmpty
                case .moved, .renamed: true
                default: false
                }
            }
        }

        private mutating func record(_ action: Action) -> Action {
            actions.append(action)
            return action
        }
    }
}

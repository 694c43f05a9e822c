import Foundation
import RecSystem
import RecTestSupport
import Testing

@testable import RecStore

/// Collects what a store tells its observers.
final class ActionLog {
    var actions: [DocumentStore.Action] = []
    var documents: [Document] = []

    init(_ store: DocumentStore) {
        store.observe { [unowned self] action, document in
            actions.append(action)
            documents.append(document)
        }
    }
}

@Suite("Document store")
struct DocumentStoreTests {
    let dir: TemporaryDirectory
    let store: DocumentStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try DocumentStore(location: dir.location)
    }

    /// What a second process would read from disk right now.
    func reopened() throws -> Document {
        try DocumentStore(location: dir.location).document
    }

    func names(in folder: ItemID, of document: Document? = nil) -> [String] {
        (document ?? store.document).children(of: folder).map(\.name)
    }

    @Test("paths(of:) names every item as path(of:) does")
    func manyPaths() throws {
        let document = try DocumentCodecTests.richDocument()
        let items = Array(document.items.values) + [.folder(name: "nowhere", parent: .random())]
        #expect(document.paths(of: items) == items.map { document.path(of: $0.id) })
        #expect(document.paths(of: items).contains("/Work/Ideas/standup"))
    }

    @Test("a new store holds only the root folder, named Recordings, with the all-zero UUID")
    func newStore() throws {
        #expect(dir.exists("store.json"))
        #expect(store.document.count == 1)
        #expect(store.document.root.id == ItemID("00000000-0000-0000-0000-000000000000"))
        #expect(store.document.root.name == "Recordings")
        #expect(store.document.root.parent == nil)
        #expect(try reopened() == store.document)
        let json = try JSONSerialization.jsonObject(with: Data(dir.bytes("store.json")!)) as? [String: Any]
        #expect(json?["version"] as? Int == Document.currentVersion)
    }

    @Test("added: the index is the item's place in its parent's name order")
    func added() throws {
        let log = ActionLog(store)
        let b = Item.folder(name: "b", parent: .root)
        let a = Item.folder(name: "a", parent: .root)
        let c = Item.folder(name: "c", parent: .root)
        let upper = Item.folder(name: "B", parent: .root)
        for item in [b, a, c, upper] { try store.transaction { try $0.add(item) } }

        let placed = log.actions.map { action -> [String] in
            guard case .added(let item, let parent, let index) = action else { return [] }
            return [item.name, "\(index)", parent == .root ? "root" : "\(parent)"]
        }
        #expect(placed == [["b", "0", "root"], ["a", "0", "root"], ["c", "2", "root"], ["B", "1", "root"]])
        guard case .added(let item, _, _) = log.actions[1] else {
            Issue.record("not added")
            return
        }
        #expect(item.id == a.id)
        #expect(item.name == "a")
        // Case is ignored; the same letters in either case go upper case first.
        #expect(names(in: .root) == ["a", "B", "b", "c"])
        #expect(try reopened() == store.document)
        // The observer sees the document after the change.
        #expect(log.documents.last == store.document)
        #expect(log.documents[0].count == 2)
    }

    @Test("added into a subfolder, and a recording")
    func addedNested() throws {
        let log = ActionLog(store)
        try store.transaction { try Fixture.build(into: &$0) }
        #expect(
            log.actions == [
                .added(store.document[Fixture.work]!.with(children: []), parent: .root, index: 0),
                .added(store.document[Fixture.home]!, parent: .root, index: 0),
                .added(store.document[Fixture.ideas]!.with(children: []), parent: Fixture.work, index: 0),
                .added(store.document[Fixture.standup]!, parent: Fixture.ideas, index: 0),
            ])
        #expect(try reopened() == store.document)
        #expect(try reopened()[Fixture.standup]?.recording == Fixture.info(Fixture.standup))
        #expect(store.document.path(of: Fixture.standup) == "/Work/Ideas/standup")
    }

    @Test("display order: name, then UUID")
    func displayOrderTies() {
        let low = Item.folder(id: ItemID("00000000-0000-4000-8000-000000000001")!, name: "same", parent: .root)
        let high = Item.folder(id: ItemID("ffffffff-0000-4000-8000-000000000001")!, name: "same", parent: .root)
        let a = Item.folder(id: ItemID("ffffffff-ffff-4000-8000-000000000001")!, name: "a", parent: .root)
        #expect([high, a, low].sorted(by: displayOrder).map(\.id) == [a.id, low.id, high.id])
    }

    @Test("renamed: old name, old and new index")
    func renamed() throws {
        let items = ["a", "b", "c"].map { Item.folder(name: $0, parent: .root) }
        try store.transaction { tx in for item in items { try tx.add(item) } }
        let log = ActionLog(store)
        try store.transaction { try $0.rename(items[0].id, to: "d") }
        #expect(log.actions == [.renamed(store.document[items[0].id]!, oldName: "a", oldIndex: 0, newIndex: 2)])
        #expect(names(in: .root) == ["b", "c", "d"])
        try store.transaction { try $0.rename(items[2].id, to: "a") }
        #expect(log.actions.last == .renamed(store.document[items[2].id]!, oldName: "c", oldIndex: 1, newIndex: 0))
        #expect(names(in: .root) == ["a", "b", "d"])
        #expect(try reopened() == store.document)
    }

    @Test("moved: from and to, with the index in each parent")
    func moved() throws {
        try store.transaction { try Fixture.build(into: &$0) }
        try store.transaction { try $0.add(.folder(name: "A", parent: Fixture.home)) }
        try store.transaction { try $0.add(.folder(name: "Z", parent: Fixture.home)) }
        let log = ActionLog(store)
        try store.transaction { try $0.move(Fixture.ideas, into: Fixture.home, name: "Ideas") }
        #expect(
            log.actions == [
                .moved(store.document[Fixture.ideas]!, from: Fixture.work, oldIndex: 0, to: Fixture.home, newIndex: 1)
            ])
        #expect(names(in: Fixture.home) == ["A", "Ideas", "Z"])
        #expect(names(in: Fixture.work) == [])
        #expect(store.document[Fixture.ideas]?.parent == Fixture.home)
        #expect(store.document.path(of: Fixture.standup) == "/Home/Ideas/standup")
        // Moving and renaming in one step.
        try store.transaction { try $0.move(Fixture.standup, into: .root, name: "top") }
        #expect(
            log.actions.last
                == .moved(store.document[Fixture.standup]!, from: Fixture.ideas, oldIndex: 0, to: .root, newIndex: 1))
        #expect(names(in: .root) == ["Home", "top", "Work"])
        #expect(try reopened() == store.document)
    }

    @Test("removed: a recording, and a folder with its whole subtree and audio")
    func removed() throws {
        try store.transaction { try Fixture.build(into: &$0) }
        let audio = dir.location.audioPath(Fixture.info(Fixture.standup).file)
        try FileManager.default.createDirectory(atPath: dir.location.audioDirectory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: audio, contents: Data([1, 2, 3])))
        let otherID = ItemID.random()
        let other = Item.recording(id: otherID, name: "other", parent: Fixture.home, info: Fixture.info(otherID))
        try store.transaction { try $0.add(other) }
        let otherAudio = dir.location.audioPath(other.recording!.file)
        #expect(FileManager.default.createFile(atPath: otherAudio, contents: Data([4])))

        let log = ActionLog(store)
        let work = store.document[Fixture.work]!
        let ideas = store.document[Fixture.ideas]!
        let standup = store.document[Fixture.standup]!
        try store.transaction { try $0.remove(Fixture.work) }
        #expect(log.actions == [.removed(work, parent: .root, index: 1, subtree: [work, ideas, standup])])
        #expect(store.document[Fixture.work] == nil)
        #expect(store.document[Fixture.ideas] == nil)
        #expect(store.document[Fixture.standup] == nil)
        #expect(store.document.count == 3)
        #expect(names(in: .root) == ["Home"])
        // Into the trash: the audio stays until the trash is emptied.
        #expect(store.document.trash.map(\.id) == [Fixture.work])
        #expect(store.document.trash[0].items.dropFirst() == [ideas, standup])
        // The removed item, with when its trash state changed (store version 4).
        var trashedWork = work
        trashedWork.changed.trash = store.document.trash[0].removed
        #expect(store.document.trash[0].items[0] == trashedWork)
        #expect(store.document.trash[0].path == "/Work")
        #expect(FileManager.default.fileExists(atPath: audio))
        #expect(try reopened() == store.document)
        try store.transaction { _ = $0.emptyTrash() }
        #expect(store.document.trash.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: audio))
        #expect(FileManager.default.fileExists(atPath: otherAudio))
        #expect(try reopened() == store.document)

        let stored = store.document[other.id]!
        try store.transaction { try $0.remove(other.id, permanently: true) }
        #expect(log.actions.last == .removed(stored, parent: Fixture.home, index: 0, subtree: [stored]))
        #expect(store.document.trash.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: otherAudio))
    }

    /// Runs a change that must be refused, and checks that nothing happened.
    func expectRefused(
        _ expected: RecError, sourceLocation: SourceLocation = #_sourceLocation,
        _ change: (inout DocumentStore.Transaction) throws -> Void
    ) throws {
        let before = dir.bytes("store.json")
        let document = store.document
        let log = ActionLog(store)
        let error = recError(sourceLocation: sourceLocation) { try store.transaction(change) }
        #expect(error == expected, sourceLocation: sourceLocation)
        #expect(dir.bytes("store.json") == before, "store.json changed", sourceLocation: sourceLocation)
        #expect(store.document == document, sourceLocation: sourceLocation)
        #expect(log.actions.isEmpty, "observers were notified", sourceLocation: sourceLocation)
        #expect(try reopened() == document, sourceLocation: sourceLocation)
    }

    @Test("refused changes leave store.json byte-identical and notify nothing")
    func refused() throws {
        try store.transaction { try Fixture.build(into: &$0) }
        try expectRefused(.failure("/Work", "already exists")) { try $0.add(.folder(name: "Work", parent: .root)) }
        try expectRefused(.failure("/Work/Ideas", "already exists")) { tx in
            try tx.rename(Fixture.home, to: "Ideas")
            try tx.move(Fixture.home, into: Fixture.work, name: "Ideas")
        }
        try expectRefused(.failure("/Work", "already exists")) { try $0.rename(Fixture.home, to: "Work") }
        try expectRefused(.failure("/Work", "cannot move a folder into itself or one of its subfolders")) {
            try $0.move(Fixture.work, into: Fixture.work, name: "Work")
        }
        try expectRefused(.failure("/Work", "cannot move a folder into itself or one of its subfolders")) {
            try $0.move(Fixture.work, into: Fixture.ideas, name: "Work")
        }
        try expectRefused(.failure("/Work/Ideas/standup", "not a folder")) {
            try $0.move(Fixture.home, into: Fixture.standup, name: "Home")
        }
        try expectRefused(.failure("/", "the root folder cannot be removed")) { try $0.remove(.root) }
        try expectRefused(.failure("/", "the root folder cannot be renamed")) { try $0.rename(.root, to: "Root") }
        try expectRefused(.failure("/", "the root folder cannot be moved or renamed")) {
            try $0.move(.root, into: Fixture.home, name: "x")
        }
        try expectRefused(.usage("a/b", "a name cannot contain '/'")) { try $0.rename(Fixture.home, to: "a/b") }
        try expectRefused(.usage("''", "a name cannot be empty")) { try $0.add(.folder(name: "", parent: .root)) }
        try expectRefused(.failure("@\(Fixture.work)", "uuid already in use")) {
            try $0.add(.folder(id: Fixture.work, name: "Other", parent: .root))
        }
        let ghost = ItemID("99999999-0000-4000-8000-000000000009")!
        try expectRefused(.failure("@\(ghost)", "no such item")) { try $0.remove(ghost) }
        try expectRefused(.failure("@\(ghost)", "no such item")) { try $0.add(.folder(name: "x", parent: ghost)) }
        // All or nothing: a transaction whose second change fails keeps none of the first.
        try expectRefused(.failure("/Home", "already exists")) { tx in
            try tx.add(.folder(name: "Fresh", parent: .root))
            try tx.remove(Fixture.standup)
            try tx.add(.folder(name: "Home", parent: .root))
        }
    }

    @Test("a transaction with no change does not write or notify")
    func noChange() throws {
        let before = dir.bytes("store.json")
        let log = ActionLog(store)
        let count = try store.transaction { $0.document.count }
        #expect(count == 1)
        #expect(dir.bytes("store.json") == before)
        #expect(log.actions.isEmpty)
    }

    @Test("a store sees changes another store on the same directory made")
    func twoStores() throws {
        let other = try DocumentStore(location: dir.location)
        try store.transaction { try $0.add(.folder(name: "one", parent: .root)) }
        try other.transaction { try $0.add(.folder(name: "two", parent: .root)) }
        try store.transaction { try $0.add(.folder(name: "three", parent: .root)) }
        #expect(names(in: .root) == ["one", "three", "two"])
        #expect(try reopened().count == 4)
    }

    @Test("a corrupt store.json is refused and left alone")
    func corrupt() throws {
        let bytes = Array("{\"version\": 1, \"items\": [".utf8)
        try dir.write("store.json", bytes)
        let error = recError { _ = try DocumentStore(location: dir.location) }
        #expect(error?.subject == dir.location.storeFile)
        #expect(
            error?.reason
                == "corrupt JSON at line 1, column 26: unexpected end of file inside an array; 'recnotes fsck --repair' moves it aside and rebuilds it from its intact lines, journal.jsonl and audio/"
        )
        #expect(dir.bytes("store.json") == bytes)
    }
}

@Suite("Folder operations")
struct FolderOperationTests {
    @Test("mkdir creates one folder; -p creates the chain and accepts an existing folder")
    func makeFolder() throws {
        var tx = DocumentStore.Transaction(document: try Fixture.document())
        let one = try tx.makeFolder(at: "New", from: Fixture.work, createParents: false)
        #expect(one.map { tx.document.path(of: $0.id) } == ["/Work/New"])
        let chain = try tx.makeFolder(at: "/a/b/c", from: .root, createParents: true)
        #expect(chain.map { tx.document.path(of: $0.id) } == ["/a", "/a/b", "/a/b/c"])
        #expect(try tx.makeFolder(at: "/a/b", from: .root, createParents: true).isEmpty)
        #expect(try tx.makeFolder(at: ".", from: .root, createParents: true).isEmpty)
        #expect(tx.actions.count == 4)
    }

    @Test(
        "mkdir refuses existing items, missing parents and recordings on the way",
        arguments: [
            ("Work", RecError.failure("Work", "already exists")),
            ("/", RecError.failure("/", "already exists")),
            (".", RecError.failure(".", "already exists")),
            ("..", RecError.failure("..", "already exists")),
            ("Work/..", RecError.failure("Work/..", "already exists")),
            ("Nope/x", RecError.failure("Nope/x", "no such folder: /Nope (use -p to create it)")),
            ("Work/Ideas/standup/x", RecError.failure("Work/Ideas/standup/x", "/Work/Ideas/standup is not a folder")),
            ("Work/Ideas/standup", RecError.failure("Work/Ideas/standup", "already exists")),
            ("bad\u{7F}", RecError.usage("bad\\u{7f}", "a name cannot contain control characters")),
        ])
    func makeFolderRefused(path: String, expected: RecError) throws {
        var tx = DocumentStore.Transaction(document: try Fixture.document())
        let error = recError { try tx.makeFolder(at: path, from: .root, createParents: false) }
        #expect(error == expected)
        #expect(tx.actions.isEmpty)
    }

    @Test("rm needs -r for a non-empty folder; items under another target go with it")
    func removeItems() throws {
        let document = try Fixture.document()
        var tx = DocumentStore.Transaction(document: document)
        let error = recError { try tx.removeItems(at: ["Work"], from: .root, recursive: false) }
        #expect(error == .failure("Work", "folder is not empty (use -r to remove it and everything in it)"))
        let removed = try tx.removeItems(at: ["Work/Ideas", "Work"], from: .root, recursive: true)
        #expect(Set(removed.map(\.id)) == [Fixture.work, Fixture.ideas, Fixture.standup])
        #expect(tx.actions.count == 1)
        #expect(tx.document.count == 2)
        #expect(
            recError { try tx.removeItems(at: ["Work"], from: .root, recursive: true) }
                == .failure("Work", "no such folder or recording"))
    }

    @Test("mv renames, moves into a folder, and never replaces")
    func moveItems() throws {
        let document = try Fixture.document()
        var tx = DocumentStore.Transaction(document: document)
        try tx.moveItems(at: ["Work/Ideas/standup"], to: "/Home", from: .root)
        #expect(tx.document.path(of: Fixture.standup) == "/Home/standup")
        try tx.moveItems(at: ["standup"], to: "/Work/renamed", from: Fixture.home)
        #expect(tx.document.path(of: Fixture.standup) == "/Work/renamed")
        #expect(
            recError { try tx.moveItems(at: ["Home"], to: "/Work/renamed", from: .root) }
                == .failure("/Work/renamed", "already exists"))
        #expect(
            recError { try tx.moveItems(at: ["Ideas"], to: "/Work", from: Fixture.work) }
                == .failure("Ideas", "already in /Work"))
        #expect(
            recError { try tx.moveItems(at: ["/Home", "@3f2a2222"], to: "/New", from: .root) }
                == .failure("/New", "no such folder (moving several items needs an existing folder)"))
    }
}

extension Item {
    func with(children: [ItemID]) -> Item {
        var copy = self
        copy.children = children
        return copy
    }
}

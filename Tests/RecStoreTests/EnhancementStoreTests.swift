import Foundation
import RecSystem
import RecTestSupport
import RecValues
import Testing

@testable import RecStore

/// A recording's enhancement (store version 6): document data written with the item
/// only when on, read back, journaled so that undo and a rebuild have it, refused on folders.
@Suite("Enhancement in the document store")
struct EnhancementStoreTests {
    let dir: TemporaryDirectory
    let documents: DocumentStore

    init() throws {
        dir = try TemporaryDirectory()
        documents = try DocumentStore(location: dir.location)
        try documents.transaction { try Fixture.build(into: &$0) }
    }

    func text() throws -> String {
        String(decoding: try #require(try FileSystem.read(dir.location.storeFile)), as: UTF8.self)
    }

    @Test("enhance writes the field and its change time, reads back, and undo takes it back")
    func writeReadUndo() throws {
        #expect(!(try text()).contains("\"enhance\""))
        let changed = try documents.transaction {
            try $0.enhance(["/Work/Ideas/standup"], level: true, denoise: nil, from: .root)
        }
        #expect(changed.map(\.annotations.enhance) == [Enhancement(level: true)])
        let written = try text()
        #expect(written.contains(#""enhance": {"level": true, "denoise": false}"#), "\(written)")
        #expect(written.contains(#""changed": {"enhance": ""#), "\(written)")
        let reread = try DocumentStore(location: dir.location).document
        #expect(reread[Fixture.standup]?.annotations.enhance == Enhancement(level: true))
        #expect(reread[Fixture.standup]?.changed.enhance == documents.document[Fixture.standup]?.changed.enhance)
        #expect(documents.journal.entries().last?.change == "enhance /Work/Ideas/standup: level on")

        try documents.transaction { _ = try $0.enhance(Fixture.standup, .all) }
        #expect(documents.journal.entries().last?.change == "enhance /Work/Ideas/standup: denoise on")
        // Both off again: the field is gone, as in a store that never had it.
        try documents.transaction {
            _ = try $0.enhance(["/Work/Ideas/standup"], level: false, denoise: false, from: .root)
        }
        #expect(documents.journal.entries().last?.change == "enhance /Work/Ideas/standup: level off, denoise off")
        #expect(!(try text()).contains("\"enhance\": {"))
        _ = try documents.undo()
        #expect(documents.document[Fixture.standup]?.annotations.enhance == .all)
        _ = try documents.undo()
        #expect(documents.document[Fixture.standup]?.annotations.enhance == Enhancement(level: true))
        // A change that changes nothing is not journaled.
        let entries = documents.journal.entries().count
        try documents.transaction {
            _ = try $0.enhance(["/Work/Ideas/standup"], level: true, denoise: nil, from: .root)
        }
        #expect(documents.journal.entries().count == entries)
    }

    @Test("a folder is refused without -r; with it, every recording under it")
    func folders() throws {
        #expect(throws: RecError.usage("/Work", "is a folder; -r enhances every recording in it")) {
            try documents.transaction { try $0.enhance(["/Work"], level: true, denoise: nil, from: .root) }
        }
        #expect(throws: RecError.self) { try documents.transaction { try $0.enhance(Fixture.work, .all) } }
        let changed = try documents.transaction {
            try $0.enhance(["/Work", "/Work/Ideas/standup"], level: nil, denoise: true, recursive: true, from: .root)
        }
        let recordings = documents.document.subtree(of: Fixture.work).filter { !$0.isFolder }
        #expect(Set(changed.map(\.id)) == Set(recordings.map(\.id)) && changed.count == recordings.count)
        #expect(recordings.allSatisfy { documents.document[$0.id]?.annotations.enhance == Enhancement(denoise: true) })
    }

    @Test("a folder with an enhancement in store.json is refused with its position")
    func folderInFile() throws {
        let folder =
            #"{"uuid": "\#(childID)", "type": "folder", "name": "f", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": [], "enhance": {"level": true}}"#
        #expect(
            corruptReason(store(child: folder, version: "6"))?.hasSuffix(
                "folder \(childID) is enhanced; only recordings are")
                == true)
        let off =
            #"{"uuid": "\#(childID)", "type": "folder", "name": "f", "parent": "\#(rootID)", "created": "2023-11-14T22:13:20Z", "children": [], "enhance": {"level": false, "denoise": false}}"#
        #expect(try decode(store(child: off, version: "6")).0[ItemID(childID)!]?.annotations.enhance == .off)
    }
}

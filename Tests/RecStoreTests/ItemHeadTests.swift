import Foundation
import RecTestSupport
import RecValues
import Testing

@testable import RecStore

/// An item's head (`DocumentCodec.decodeItem(_:headOnly:)`, what a merge reads of an item
/// the same on every side) is the item as decoded whole, but for what it leaves in the bytes.
@Suite("an item's head, decoded by the one item decoder")
struct ItemHeadTests {
    /// The item as its head holds it: annotations, analysis and change times left out.
    static func headOf(_ item: Item) -> Item {
        var head = item
        head.annotations = Annotations()
        head.changed = .unknown
        head.recording?.analysis = nil
        return head
    }

    @Test(
        "every item's head of a random store is its whole decode without what follows", arguments: [7, 8] as [UInt64])
    func headsOfARandomStore(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        _ = try SearchIndexTests.makeStore(in: directory, seed: seed)
        let bytes = try #require(directory.bytes("store.json"))
        let decoded = try bytes.withUnsafeBufferPointer { try DocumentCodec.decodeVersioned($0) }
        var annotated = 0
        try bytes.withUnsafeBufferPointer { all in
            for (id, range) in decoded.itemRanges {
                let item = try #require(decoded.document[id])
                let head = try DocumentCodec.decodeItem(UnsafeBufferPointer(rebasing: all[range]), headOnly: true)
                #expect(head == Self.headOf(item), "seed \(seed): \(id)")
                #expect(head.recording?.file == item.recording?.file)
                if !item.annotations.note.isEmpty || !item.annotations.tags.isEmpty { annotated += 1 }
            }
        }
        // The store has annotations to leave out, or the test would show nothing.
        #expect(annotated > 5)
    }

    @Test("an item written in another order is read whole for its head, and a broken one still fails")
    func anotherOrder() throws {
        let id = ItemID.random()
        let text = """
            {"note": "later", "file": "\(id).wav", "format": "wav", "channels": 1, "sampleRate": 48000, \
            "frames": 48000, "duration": 1, "created": "2026-01-02T03:04:05.000Z", "parent": "\(ItemID.root)", \
            "name": "take", "type": "recording", "uuid": "\(id)"}
            """
        let head = try Array(text.utf8).withUnsafeBufferPointer { try DocumentCodec.decodeItem($0, headOnly: true) }
        #expect(head.id == id && head.name == "take" && head.recording?.frames == 48000)
        #expect(head.recording?.file == "\(id).wav")
        let broken = text.replacingOccurrences(of: "\"duration\": 1, ", with: "")
        #expect(throws: (any Error).self) {
            try Array(broken.utf8).withUnsafeBufferPointer { try DocumentCodec.decodeItem($0, headOnly: true) }
        }
    }
}

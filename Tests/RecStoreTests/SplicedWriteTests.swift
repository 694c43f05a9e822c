import RecTestSupport
import Testing

@testable import RecStore

/// A change is written by splicing the changed items' bytes into the file the store read or
/// last wrote (`DocumentCodec.encodeSplicing`). Whatever the change, the file is
/// byte for byte what encoding the whole document gives.
@Suite("Spliced writes")
struct SplicedWriteTests {
    /// One random change: an annotation, a rename, a move, an addition, a removal into the
    /// trash or for good, a restore, or emptying a trash entry. A change the store refuses
    /// (a name taken, a folder moved into itself) throws, and the transaction is discarded.
    static func randomChange(_ tx: inout DocumentStore.Transaction, _ n: Int, using rng: inout SeededRandom) throws {
        let document = tx.document
        let ids = Array(document.items.keys).filter { $0 != .root }.sorted()
        let folders = document.items.values.filter(\.isFolder).map(\.id).sorted()
        guard let id = ids.randomElement(using: &rng) else {
            try tx.add(.folder(id: Fixture.randomID(using: &rng), name: "first", parent: .root))
            return
        }
        let item = document[id]!
        switch rng.next() % 9 {
        case 0, 1:
            try tx.annotate(id, with: Fixture.randomAnnotations(recording: !item.isFolder, using: &rng))
        case 2:
            try tx.rename(id, to: "\(Fixture.randomNames.randomElement(using: &rng)!) r\(n)")
        case 3:
            try tx.move(id, into: folders.randomElement(using: &rng)!, name: item.name)
        case 4:
            try Fixture.addRandomItems(1 + Int(rng.next() % 3), into: &tx, using: &rng)
        case 5:
            try tx.remove(id)
        case 6:
            try tx.remove(id, permanently: true)
        case 7:
            guard let entry = document.trash.randomElement(using: &rng) else { return }
            try tx.restore(entry.id, name: "\(entry.item.name) back\(n)")
        default:
            guard let entry = document.trash.randomElement(using: &rng) else { return }
            tx.emptyTrash([entry.id])
        }
    }

    /// `store.json` as the store wrote it must decode to the store's document and be what a
    /// full encode of it gives, and the store must know where each item lies in it.
    static func expectWrittenAsEncoded(_ dir: TemporaryDirectory, _ store: DocumentStore, _ what: String) throws {
        let bytes = try #require(dir.bytes("store.json"))
        let full = DocumentCodec.encodeWithRanges(store.document)
        #expect(bytes == full.bytes, "\(what)")
        // Where each item lies, as find's index is told: as the full encode says.
        let ranges = try #require(store.itemRanges)
        #expect(ranges.map(\.id) == full.itemRanges.map(\.id), "\(what)")
        #expect(ranges.map(\.range) == full.itemRanges.map(\.range), "\(what)")
        let decoded = try bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0).0 }
        // Named by item and field, not printed whole: a document prints as megabytes.
        for (id, item) in store.document.items where decoded[id] != item {
            let other = decoded[id]
            Issue.record(
                "\(what): \(id) reads back otherwise: name \(other?.name == item.name), children \(other?.children == item.children), annotations \(other?.annotations == item.annotations), changed \(other?.changed == item.changed), recording \(other?.recording == item.recording)"
            )
        }
        #expect(decoded.count == store.document.count && decoded.trash == store.document.trash, "\(what)")
    }

    @Test("random changes to random stores write what a full encode writes")
    func randomChangesWriteWhatAFullEncodeWrites() throws {
        var rng = SeededRandom(seed: 28)
        for round in 0..<12 {
            let dir = try TemporaryDirectory()
            var store = try DocumentStore(location: dir.location)
            try store.transaction { tx in try Fixture.addRandomItems(30 + round * 10, into: &tx, using: &rng) }
            for step in 0..<40 {
                // Now and then another process: the next change splices into the bytes read
                // from the disk (their ranges found by the decoder) rather than those written here.
                if rng.next() % 5 == 0 { store = try DocumentStore(location: dir.location) }
                let changes = 1 + Int(rng.next() % 3)
                try? store.transaction { tx in
                    for n in 0..<changes { try Self.randomChange(&tx, step * 10 + n, using: &rng) }
                }
                try Self.expectWrittenAsEncoded(dir, store, "round \(round), step \(step)")
            }
        }
    }

    /// What `Library.changing` splices: a change of annotations to a document of the changed
    /// items alone, into the whole file, with every item's range as the reads' table has it.
    @Test("a change of annotations spliced without the whole document writes what a full encode writes, trash and all")
    func annotationsSplicedWithoutTheDocument() throws {
        var rng = SeededRandom(seed: 2804)
        for round in 0..<8 {
            var tx = DocumentStore.Transaction(document: Document())
            try Fixture.addRandomItems(20 + round * 5, into: &tx, using: &rng)
            // A trash in most rounds: it is what follows the items, copied as it is.
            let ids = Array(tx.document.items.keys).filter { $0 != .root }.sorted()
            for id in ids.prefix(round % 4) where tx.document[id] != nil { try tx.remove(id) }
            let before = tx.document
            let encoded = DocumentCodec.encodeWithRanges(before)
            let remaining = Array(before.items.keys).filter { $0 != .root }.sorted()
            let changedIDs = (0..<(1 + round % 3)).map { _ in remaining.randomElement(using: &rng)! }
            var after = before
            var partialBefore: [ItemID: Item] = [:]
            var partialAfter: [ItemID: Item] = [:]
            for id in changedIDs {
                var item = after.items[id]!
                partialBefore[id] = item
                item.annotations = Fixture.randomAnnotations(recording: !item.isFolder, using: &rng)
                after.items[id] = item
                partialAfter[id] = item
            }
            let spliced = try #require(
                encoded.bytes.withUnsafeBufferPointer {
                    DocumentCodec.splicingAnnotations(
                        Set(changedIDs), Document(items: partialAfter), over: Document(items: partialBefore),
                        bytes: $0, itemRanges: encoded.itemRanges
                    ).map { (bytes: $0.file.bytes, itemRanges: $0.itemRanges) }
                }, "round \(round)")
            let full = DocumentCodec.encodeWithRanges(after)
            #expect(spliced.bytes == full.bytes, "round \(round)")
            #expect(spliced.itemRanges.map(\.range) == full.itemRanges.map(\.range), "round \(round)")
            // A file this version would not write so is not spliced: the store reads it whole.
            let text = String(decoding: encoded.bytes, as: UTF8.self)
            let variants = [
                text.replacingOccurrences(
                    of: "\"version\": \(Document.currentVersion)", with: "\"version\": \(Document.currentVersion - 1)"),
                String(text.dropLast(3)) + ",\n\"extra\": 1\n}\n",
                text.replacingOccurrences(of: "\n]\n}\n", with: "\n]}\n"),
            ]
            for (n, variant) in variants.enumerated() where variant != text {
                #expect(
                    Array(variant.utf8).withUnsafeBufferPointer {
                        DocumentCodec.splicingAnnotations(
                            Set(changedIDs), Document(items: partialAfter), over: Document(items: partialBefore),
                            bytes: $0, itemRanges: encoded.itemRanges)
                    } == nil,
                    "round \(round), variant \(n)")
            }
        }
    }

    @Test("an item that did not change is copied from the file, not encoded again")
    func unchangedItemsAreCopied() throws {
        let document = try Fixture.document()
        let encoded = DocumentCodec.encodeWithRanges(document)
        // The same length, so that every range still holds: only a copy keeps "Xome".
        let text = String(decoding: encoded.bytes, as: UTF8.self)
        let altered = Array(text.replacingOccurrences(of: #""name": "Home""#, with: #""name": "Xome""#).utf8)
        #expect(altered != encoded.bytes)
        var tx = DocumentStore.Transaction(document: document)
        try tx.annotate(Fixture.standup, with: Annotations(tags: ["spliced"]))
        let written = DocumentCodec.Written(bytes: altered, itemRanges: encoded.itemRanges)
        let spliced = DocumentCodec.encodeSplicing(tx.document, over: document, written: written)
        let out = String(decoding: spliced.bytes, as: UTF8.self)
        #expect(out.contains(#""name": "Xome""#))
        #expect(out.contains(#"["spliced"]"#))
        // What changed is encoded: the same call over the true bytes is the full encode.
        let asEncoded = DocumentCodec.Written(bytes: encoded.bytes, itemRanges: encoded.itemRanges)
        #expect(
            DocumentCodec.encodeSplicing(tx.document, over: document, written: asEncoded).bytes
                == DocumentCodec.encode(tx.document))
    }

    /// Files this version would not write as they are: an older version (upgraded), children
    /// out of display order, an item reformatted. The next change writes the full encode.
    @Test("a file not as this version writes it is written whole by the next change")
    func filesNotAsWrittenAreEncodedWhole() throws {
        let document = try Fixture.document()
        let text = String(decoding: DocumentCodec.encode(document), as: UTF8.self)
        let home = #""children": ["\#(Fixture.home)", "\#(Fixture.work)"]"#
        #expect(text.contains(home))
        let variants = [
            text.replacingOccurrences(
                of: "\"version\": \(Document.currentVersion)", with: "\"version\": \(Document.currentVersion - 1)"),
            text.replacingOccurrences(of: home, with: #""children": ["\#(Fixture.work)", "\#(Fixture.home)"]"#),
            text.replacingOccurrences(of: #"{"uuid": "\#(Fixture.home)""#, with: #"{ "uuid":"\#(Fixture.home)""#),
            text.replacingOccurrences(of: #""name": "Home", "#, with: "\"name\": \"Home\",\n  "),
        ]
        for (n, variant) in variants.enumerated() {
            #expect(variant != text, "variant \(n)")
            let dir = try TemporaryDirectory()
            try dir.write("store.json", Array(variant.utf8))
            let store = try DocumentStore(location: dir.location)
            try store.transaction { tx in try tx.annotate(Fixture.standup, with: Annotations(note: "n\(n)")) }
            try Self.expectWrittenAsEncoded(dir, store, "variant \(n)")
        }
    }
}

import RecStore
import RecSystem
import RecTestSupport
import RecValues
import Testing

@testable import RecSync

/// The merge driver decodes an item that is the same bytes on all three sides once, as far
/// as the merge looks, and copies its bytes back (`SharedItemsCodec`). Seeded random stores
/// with every kind of change on both sides: its output is byte for byte what decoding all
/// three stores whole, merging and encoding gives.
@Test func sharedItemsMergeAsWholeDecodingDoes() throws {
    var rng = SeededRandom(seed: 4)
    let dir = try TemporaryDirectory()
    let t0: Int64 = 1_700_000_000_000
    for round in 0..<40 {
        // A base of folders and recordings, a few levels deep, with annotations.
        var tx = DocumentStore.Transaction(document: Document())
        var folders: [ItemID] = [.root]
        var recordings: [ItemID] = []
        for n in 0..<60 {
            let parent = folders[Int(rng.next() % UInt64(folders.count))]
            let created = Timestamp(millisecondsSinceEpoch: t0 + Int64(n))
            if rng.next() % 4 == 0 {
                let folder = Item.folder(name: "f\(n % 7)-\(n)", parent: parent, created: created)
                try tx.add(folder)
                folders.append(folder.id)
            } else {
                let id = ItemID.random()
                var item = Item.recording(
                    id: id, name: "r\(n % 9)-\(n)", parent: parent, created: created,
                    info: RecordingInfo(
                        duration: 1, frames: 48000, sampleRate: 48000, channels: 1, format: .flac, file: "\(id).flac"))
                item.annotations = Annotations(
                    note: n % 3 == 0 ? "note \(n)" : "", tags: ["t\(n % 4)"],
                    markers: [Marker(frame: Int64(n) * 10, label: "m")])
                try tx.add(item)
                recordings.append(id)
            }
        }
        let base = tx.document
        func side(_ tag: String) throws -> Document {
            var tx = DocumentStore.Transaction(document: base)
            for n in 0..<12 {
                let all = Array(folders.dropFirst()) + recordings
                let id = all[Int(rng.next() % UInt64(all.count))]
                guard tx.document[id] != nil else { continue }
                let folder = folders[Int(rng.next() % UInt64(folders.count))]
                switch rng.next() % 7 {
                case 0: _ = try? tx.rename(id, to: "\(tag)\(n)")
                case 1: _ = try? tx.move(id, into: folder, name: tx.document[id]!.name)
                case 2: _ = try? tx.remove(id)
                case 3:
                    var a = tx.document[id]!.annotations
                    a.note += " \(tag)"
                    a.tags.append(tag)
                    _ = try? tx.annotate(id, with: a)
                case 4:
                    // A name both sides may make in one folder: joined or renamed.
                    _ = try? tx.add(.folder(name: "Work", parent: .root))
                case 5:
                    _ = try? tx.add(
                        .recording(
                            name: "memo", parent: folder,
                            info: RecordingInfo(
                                duration: 1, frames: 8, sampleRate: 8, channels: 1, format: .wav, file: "\(tag).wav")))
                default:
                    guard tx.document[id]?.recording != nil else { continue }
                    var a = tx.document[id]!.annotations
                    a.trim = TrimPoints(inFrame: Int64(n), outFrame: 4000 + Int64(rng.next() % 100))
                    if !a.markers.isEmpty, rng.next() % 2 == 0 { a.markers.removeFirst() }
                    _ = try? tx.annotate(id, with: a)
                }
            }
            return tx.document
        }
        let files = [base, try side("o"), try side("t")].map { DocumentCodec.encode($0) }
        for (name, bytes) in zip(["base", "ours", "theirs"], files) { try dir.write(name, bytes) }
        let decoded = try files.map { bytes in try bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0).0 } }
        let expected = LibraryMerge.merge(
            base: decoded[0], ours: decoded[1], theirs: decoded[2], oursName: "a", theirsName: "b")
        let shared = try #require(try SharedItemsCodec.decode(files))
        #expect(shared.sharedCount > 0)
        let conflicts = try MergeDriver.run(
            base: dir.path + "/base", ours: dir.path + "/ours", theirs: dir.path + "/theirs", report: nil,
            oursName: "a", theirsName: "b")
        #expect(dir.bytes("ours") == DocumentCodec.encode(expected.document), "round \(round)")
        #expect(conflicts == expected.conflicts, "round \(round)")
    }
}

@Test func aStoreNotLaidOutAsThisVersionWritesItIsDecodedWhole() throws {
    let document = try Fixture.document()
    let bytes = DocumentCodec.encode(document)
    #expect(try SharedItemsCodec.decode([bytes, bytes, bytes]) != nil)
    // Reformatted (uuid not first), or an older version: nil, the caller decodes whole.
    let text = String(decoding: bytes, as: UTF8.self)
    let reordered = Array(text.replacingOccurrences(of: "{\"uuid\": ", with: "{\"x\": 1, \"uuid\": ").utf8)
    #expect(try SharedItemsCodec.decode([bytes, reordered, bytes]) == nil)
    let current = "\"version\": \(Document.currentVersion)"
    let older = Array(
        text.replacingOccurrences(of: current, with: "\"version\": \(Document.currentVersion - 1)").utf8)
    #expect(try SharedItemsCodec.decode([older, bytes, bytes]) == nil)
    // A newer version or a file cut short: nil too, and the whole decoding says why.
    let newer = Array(
        text.replacingOccurrences(of: current, with: "\"version\": \(Document.currentVersion + 1)").utf8)
    #expect(try SharedItemsCodec.decode([bytes, bytes, newer]) == nil)
    let cut = Array(bytes.prefix(bytes.count / 2))
    #expect(try SharedItemsCodec.decode([bytes, cut, bytes]) == nil)
    // An item that differs and does not decode: refused, naming the side.
    let broken = Array(text.replacingOccurrences(of: "\"name\": \"Home\"", with: "\"name\": 7").utf8)
    do {
        _ = try SharedItemsCodec.decode([bytes, broken, bytes])
        Issue.record("a broken item was accepted")
    } catch let failure as SharedItemsCodec.Failure {
        #expect(failure.index == 1)
    }
}

import PropertyBased
import RecSystem
import RecTestSupport
import Testing

@testable import RecStore

#if canImport(Glibc)
    import Glibc
#endif

/// The reads' table (`StoreTable`, `Library.reading`): what a read finds through it is what
/// it finds in the whole document, and a table that is damaged, cut short or stale is never
/// used.
@Suite("the reads' table")
struct StoreTableTests {
    /// A library read whole, and the table made from it as a read that found none makes it.
    static func tabled(_ location: StoreLocation) throws -> Library {
        SearchIndexTests.age(location)
        let library = try Library(location: location)
        library.keepReadTable()
        return library
    }

    @Test("every path reads through the table as through the document", arguments: [1, 2, 3] as [UInt64])
    func sameItems(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        _ = try SearchIndexTests.makeStore(in: directory, seed: seed)
        let full = try Self.tabled(directory.location)
        let document = full.document
        #expect(StoreTable.current(at: directory.location) != nil, "seed \(seed): no table made")
        for item in document.preorder() {
            let path = document.path(of: item.id)
            let prefix = "@" + item.id.hexDigits.prefix(8)
            for typed in [path, prefix] {
                // A UUID prefix reaches the whole document, trash and all: the table, only
                // what is under the root, so it answers one only when nothing is outside it.
                let read = Library.reading(directory.location, paths: [typed], listing: true)
                guard let read else {
                    #expect(typed == prefix, "seed \(seed): \(typed) not read through the table")
                    continue
                }
                let found = try read.item(at: typed)
                #expect(found == item, "seed \(seed): \(typed)")
                #expect(read.document.path(of: found.id) == path, "seed \(seed): \(typed)")
                #expect(
                    read.document.children(of: found.id) == document.children(of: item.id), "seed \(seed): \(typed)")
                if item.isFolder {
                    #expect(read.contents(of: found) == full.contents(of: item), "seed \(seed): \(typed)")
                }
            }
        }
        // A name that is not there is the whole document's to report.
        #expect(Library.reading(directory.location, paths: ["/no such"], listing: false) == nil)
    }

    @Test("a table cut short, with a byte changed, or made from another store.json is not used")
    func neverStale() throws {
        let directory = try TemporaryDirectory()
        _ = try SearchIndexTests.makeStore(in: directory, seed: 7)
        let location = directory.location
        _ = try Self.tabled(location)
        let good = try #require(try FileSystem.read(location.storeTableFile))
        #expect(StoreTable(good) != nil)
        for length in stride(from: 0, to: good.count, by: max(1, good.count / 97)) {
            #expect(StoreTable(Array(good.prefix(length))) == nil, "cut at \(length)")
        }
        for at in stride(from: 0, to: good.count, by: max(1, good.count / 89)) {
            var damaged = good
            damaged[at] ^= 0x01
            #expect(StoreTable(damaged) == nil, "byte \(at) changed")
        }
        // store.json changed by another program in place: same inode, another time.
        let store = try #require(try FileSystem.read(location.storeFile))
        let fd = open(location.storeFile, O_WRONLY)
        _ = store.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
        close(fd)
        #expect(StoreTable.current(at: location) == nil)
        #expect(Library.reading(location, paths: ["/"], listing: true) == nil)
        // Just written (a second has not passed): trusted while its bytes hash the same.
        try Library(location: location).keepReadTable()
        #expect(StoreTable.current(at: location) != nil)
        #expect(Library.reading(location, paths: ["/"], listing: true) != nil)
    }

    @Test("fsck's check: a current table that says other than a rebuild is reported, a good one is not")
    func checkedByFsck() throws {
        let directory = try TemporaryDirectory()
        _ = try SearchIndexTests.makeStore(in: directory, seed: 5)
        let location = directory.location
        let library = try Self.tabled(location)
        let loaded = try #require(try FileSystem.read(location.storeFile))
        let ranges = try loaded.withUnsafeBufferPointer { try DocumentCodec.decodeVersioned($0).itemRanges }
        #expect(SearchIndexFiles.disagreeing(with: library.document, itemRanges: ranges, location: location).isEmpty)
        // A name changed and the checksum made again: current by every check a read makes.
        var bytes = try #require(try FileSystem.read(location.storeTableFile))
        let table = try #require(StoreTable(bytes))
        bytes[StoreTable.headerSize + table.count * StoreTable.recordSize + table.name(0).utf8.count] ^= 0x01
        StoreTable.seal(&bytes)
        try FileSystem.writeAtomically(bytes, to: location.storeTableFile, durable: false)
        #expect(StoreTable.current(at: location) != nil)
        #expect(
            SearchIndexFiles.disagreeing(with: library.document, itemRanges: ranges, location: location)
                == ["cache/items-table"])
        // Nor does a read answer from it with a name that the item, decoded, does not have.
        let renamed = try #require(StoreTable.current(at: location)).name(1)
        #expect(renamed != table.name(1))
        #expect(Library.reading(location, paths: ["/" + renamed], listing: false) == nil)
    }

    /// The table's log (`StoreTableLog`, work in progress): a change of annotations spliced
    /// into `store.json` as `Library.changing` splices one, recorded, says where every item
    /// lies afterwards, through a chain of such changes, as the full encode places them.
    @Test("a chain of annotation changes' records gives every item's range as the full encode does")
    func annotationRecordsPlaceEveryItem() throws {
        var rng = SeededRandom(seed: 2808)
        for round in 0..<6 {
            var tx = DocumentStore.Transaction(document: Document())
            try Fixture.addRandomItems(20 + round * 10, into: &tx, using: &rng)
            var document = tx.document
            var encoded = DocumentCodec.encodeWithRanges(document)
            // The table's ranges, never rewritten: each record is followed from them.
            let base = encoded.itemRanges
            var records: [StoreTableLog.Record] = []
            let ids = Array(document.items.keys).filter { $0 != .root }.sorted()
            for step in 0..<(3 + round) {
                let changedIDs = Set((0..<(1 + step % 3)).map { _ in ids.randomElement(using: &rng)! })
                var before: [ItemID: Item] = [:]
                var after: [ItemID: Item] = [:]
                for id in changedIDs {
                    var item = document.items[id]!
                    before[id] = item
                    item.annotations = Fixture.randomAnnotations(recording: !item.isFolder, using: &rng)
                    document.items[id] = item
                    after[id] = item
                }
                let spliced = try #require(
                    encoded.bytes.withUnsafeBufferPointer {
                        DocumentCodec.splicingAnnotations(
                            changedIDs, Document(items: after), over: Document(items: before), bytes: $0,
                            itemRanges: encoded.itemRanges
                        ).map { (bytes: $0.file.bytes, itemRanges: $0.itemRanges) }
                    }, "round \(round), step \(step)")
                let identity = FileIdentity(
                    device: 1, inode: UInt64(round * 100 + step), size: Int64(spliced.bytes.count),
                    modifiedSeconds: step,
                    modifiedNanoseconds: 0)
                let oldRanges = encoded.itemRanges
                let made = StoreTableLog.annotations(
                    old: { oldRanges[$0] }, new: spliced.itemRanges, changed: changedIDs,
                    position: { id in oldRanges.firstIndex { $0.id == id } },
                    base: records.last?.made ?? .present(identity), baseHash: 0, made: .present(identity),
                    madeHash: UInt64(step))
                let record = try #require(made, "round \(round), step \(step)")
                #expect(record.edits.count == changedIDs.count, "round \(round), step \(step)")
                records.append(record)
                // Read back as logged, after the records before it.
                let logged = try #require(StoreTableLog.decode(records.flatMap(StoreTableLog.encode)))
                #expect(logged == records, "round \(round), step \(step)")
                let full = DocumentCodec.encodeWithRanges(document)
                #expect(spliced.bytes == full.bytes, "round \(round), step \(step)")
                for (position, entry) in base.enumerated() {
                    let now = logged.reduce(entry.range) { $1.range(position, was: $0) }
                    #expect(now == full.itemRanges[position].range, "round \(round), step \(step), item \(position)")
                }
                encoded = full
            }
        }
    }

    @Test(
        "the table's log reads back record for record; one cut short, with a byte changed or out of order is not read")
    func tableLogRecords() throws {
        var random = SearchIndexTests.generator(2809)
        func identity() -> FileIdentity { LogChecks.identity(using: &random) }
        let records = (0..<5).map { k in
            var start = 0
            let edits = (0..<k).map { _ in
                start += Int.random(in: 0...1000, using: &random)
                let length = Int.random(in: 1...500, using: &random)
                defer { start += length }
                return StoreTableLog.Edit(
                    position: Int.random(in: 0...100_000, using: &random), old: start..<(start + length),
                    newLength: Int.random(in: 1...500, using: &random))
            }
            return StoreTableLog.Record(
                base: k % 2 == 0 ? .present(identity()) : .recent(identity()),
                baseHash: UInt64.random(in: 0...UInt64.max, using: &random), made: .present(identity()),
                madeHash: k % 3 == 0 ? 0 : UInt64.random(in: 0...UInt64.max, using: &random), edits: edits)
        }
        LogChecks.expectFramed(records, encode: StoreTableLog.encode, decode: StoreTableLog.decode, using: &random)
        // Two edits of one byte: framed and checksummed as written, still not followed.
        var overlapping = records[4]
        overlapping.edits[1].old = overlapping.edits[0].old
        #expect(StoreTableLog.decode(StoreTableLog.encode(overlapping)) == nil)
        // find's index log shares the framing, not the magic: neither reads the other's.
        #expect(ItemIndexLog.decode(records.flatMap(StoreTableLog.encode)) == nil)
    }

    /// Tags spliced through the table (as `tag` splices them) are logged beside it
    /// (`StoreTableLog`), and the table read through the log answers as the whole document.
    @Test("changes of annotations are logged for the table, not written into it; reads through both are the document's")
    func annotationsLoggedForTheTable() throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        _ = try SearchIndexTests.makeStore(in: directory, seed: 11)
        _ = try Self.tabled(location)
        let tableBefore = try #require(try FileSystem.read(location.storeTableFile))
        var random = SearchIndexTests.generator(2810)
        func tagOne(_ n: Int) throws {
            let fresh = try Library(location: location)
            let items = fresh.document.preorder().filter { $0.id != .root }
            let path = fresh.document.paths(of: [items.randomElement(using: &random)!])[0]
            let library = try #require(Library.changing(location, paths: [path]), "change \(n): not through the table")
            let item = try library.item(at: path)
            try library.documents.transaction { tx in
                var annotations = item.annotations
                annotations.tags.append("logged-\(n)")
                _ = try tx.annotate(item.id, with: annotations)
            }
        }
        let changes = 5
        for n in 0..<changes { try tagOne(n) }
        #expect(try FileSystem.read(location.storeTableFile) == tableBefore, "the change wrote the table")
        let logged = try #require(try FileSystem.read(location.storeTableLogFile))
        #expect(StoreTableLog.decode(logged)?.count == changes)
        let table = try #require(StoreTable.current(at: location))
        #expect(table.layers.count == changes)
        // Every item read through the table and its log as the whole document has it.
        let document = try Library(location: location).document
        for item in document.preorder() {
            let path = document.path(of: item.id)
            let read = try #require(Library.reading(location, paths: [path], listing: true), "\(path)")
            #expect(try read.item(at: path) == item, "\(path)")
            #expect(read.document.children(of: item.id) == document.children(of: item.id), "\(path)")
        }
        // What fsck compares: the table as it stands, the log folded in, as a rebuild makes it.
        let ranges = try #require(try FileSystem.read(location.storeFile)).withUnsafeBufferPointer {
            try DocumentCodec.decodeVersioned($0).itemRanges
        }
        #expect(SearchIndexFiles.disagreeing(with: document, itemRanges: ranges, location: location).isEmpty)
        // A log with a byte changed, or its last record lost, does not lead to store.json.
        var damaged = logged
        damaged[damaged.count / 2] ^= 0x10
        try FileSystem.writeAtomically(damaged, to: location.storeTableLogFile, durable: false)
        #expect(StoreTable.current(at: location) == nil)
        let records = try #require(StoreTableLog.decode(logged))
        try FileSystem.writeAtomically(
            records.dropLast().flatMap(StoreTableLog.encode), to: location.storeTableLogFile, durable: false)
        #expect(StoreTable.current(at: location) == nil)
        #expect(Library.reading(location, paths: ["/"], listing: true) == nil)
        try FileSystem.writeAtomically(logged, to: location.storeTableLogFile, durable: false)
        #expect(StoreTable.current(at: location) != nil)
        // Past the limit the table is written whole and the log dropped.
        for n in changes..<StoreTableLog.limit + 1 { try tagOne(n) }
        #expect(try FileSystem.read(location.storeTableFile) != tableBefore)
        #expect(!FileSystem.exists(location.storeTableLogFile))
        #expect(StoreTable.current(at: location)?.layers.isEmpty == true)
        let after = try #require(try FileSystem.read(location.storeFile)).withUnsafeBufferPointer {
            try DocumentCodec.decodeVersioned($0).itemRanges
        }
        #expect(
            SearchIndexFiles.disagreeing(
                with: try Library(location: location).document, itemRanges: after, location: location
            )
            .isEmpty)
    }

    /// `mkdir` and `mv` spliced through the table (as the commands splice them), some after
    /// changes of annotations logged beside it: each writes the table whole from runs of the
    /// old one (`StoreTable.restructured`), and that table is the one a rebuild makes, with
    /// every item's range, parent and subtree as the full encode's.
    @Test("mkdir and mv through the table, after logged tags or not, leave the table a rebuild makes")
    func structureThroughTheTable() throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        _ = try SearchIndexTests.makeStore(in: directory, seed: 12)
        _ = try Self.tabled(location)
        var random = SearchIndexTests.generator(2830)
        var moved = 0
        var afterLog = 0
        for n in 0..<24 {
            let whole = try Library(location: location).document
            let items = whole.preorder().filter { $0.id != .root }
            let folders = whole.preorder().filter(\.isFolder)
            let item = items.randomElement(using: &random)!
            let folder = folders.randomElement(using: &random)!
            let itemPath = whole.path(of: item.id)
            let folderPath = whole.path(of: folder.id)
            let logged = FileSystem.exists(location.storeTableLogFile)
            switch n % 3 {
            case 0:
                // A tag, logged for the table, before the next change of structure.
                let library = try #require(Library.changing(location, paths: [itemPath]), "change \(n)")
                try library.documents.transaction { tx in
                    var annotations = item.annotations
                    annotations.tags.append("structure-\(n)")
                    _ = try tx.annotate(item.id, with: annotations)
                }
                #expect(FileSystem.exists(location.storeTableLogFile), "change \(n): the tag was not logged")
                continue
            case 1:
                let path = (folderPath == "/" ? "" : folderPath) + "/made \(n)"
                let library = try #require(Library.changing(location, paths: [], into: [path]), "change \(n)")
                try library.documents.transaction { _ = try $0.makeFolder(at: path, from: .root, createParents: false) }
                #expect(library.documents.isPartial, "change \(n): mkdir \(path) read the whole store")
            default:
                // Not into itself or under it, nor where its name is taken.
                guard !whole.ancestry(of: folder.id).contains(where: { $0.id == item.id }), folder.id != item.parent,
                    whole.child(named: item.name, in: folder.id) == nil
                else { continue }
                let library = try #require(
                    Library.changing(location, paths: [itemPath], into: [folderPath]), "change \(n)")
                try library.documents.transaction { _ = try $0.moveItems(at: [itemPath], to: folderPath, from: .root) }
                #expect(library.documents.isPartial, "change \(n): mv \(itemPath) \(folderPath) read the whole store")
                moved += 1
            }
            if logged { afterLog += 1 }
            // Written whole from the old one's runs, the log dropped, as a rebuild makes it.
            #expect(!FileSystem.exists(location.storeTableLogFile), "change \(n)")
            let table = try #require(StoreTable.current(at: location), "change \(n): the table is stale")
            #expect(table.layers.isEmpty)
            let store = try #require(try FileSystem.read(location.storeFile))
            let loaded = try store.withUnsafeBufferPointer { try DocumentCodec.load($0) }
            let rebuilt = StoreTable.encode(
                loaded.document, ranges: loaded.itemRanges, source: table.source, contentHash: table.contentHash,
                spliceable: true)
            #expect(try FileSystem.read(location.storeTableFile) == rebuilt, "change \(n)")
            #expect(
                SearchIndexFiles.disagreeing(with: loaded.document, itemRanges: loaded.itemRanges, location: location)
                    .isEmpty, "change \(n)")
            for position in 0..<table.count {
                let id = table.id(position)
                #expect(loaded.itemRanges.first { $0.id == id }?.range == table.storeRange(position), "change \(n)")
                #expect(table.parent(position).map(table.id(_:)) == loaded.document.items[id]?.parent, "change \(n)")
            }
        }
        #expect(moved >= 2 && afterLog >= 4, "\(moved) moves, \(afterLog) changes after a logged tag")
        // A damaged log is not followed: a mkdir then reads the whole store, and its write
        // makes the table again from the whole document.
        let whole = try Library(location: location).document
        let item = try #require(whole.preorder().last { !$0.isFolder })
        let tagged = try #require(Library.changing(location, paths: [whole.path(of: item.id)]))
        try tagged.documents.transaction { tx in
            var annotations = item.annotations
            annotations.tags.append("damaged")
            _ = try tx.annotate(item.id, with: annotations)
        }
        var log = try #require(try FileSystem.read(location.storeTableLogFile))
        log[log.count - 1] ^= 0x01
        try FileSystem.writeAtomically(log, to: location.storeTableLogFile, durable: false)
        #expect(StoreTable.current(at: location) == nil)
        #expect(Library.changing(location, paths: [], into: ["/after damage"]) == nil)
        let library = try Library(location: location)
        try library.documents.transaction {
            _ = try $0.makeFolder(at: "/after damage", from: .root, createParents: false)
        }
        #expect(!library.documents.isPartial)
        #expect(
            StoreTable.current(at: location)?.layers.isEmpty == true && !FileSystem.exists(location.storeTableLogFile))
        let store = try #require(try FileSystem.read(location.storeFile))
        let loaded = try store.withUnsafeBufferPointer { try DocumentCodec.load($0) }
        #expect(
            SearchIndexFiles.disagreeing(with: loaded.document, itemRanges: loaded.itemRanges, location: location)
                .isEmpty)
    }
}

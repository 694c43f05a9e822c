import PropertyBased
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
}

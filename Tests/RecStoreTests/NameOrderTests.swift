import Testing

@testable import RecStore

/// The order of a folder's items, as file managers sort names: numbers by their value, case
/// and accents ignored, and a fixed tie-break, so that the order is total and the same in
/// every view, and so that items of the same name stay side by side.
@Suite("Name order: natural, ignoring case and accents")
struct NameOrderTests {
    static func item(_ name: String, _ n: UInt64 = 1) -> Item {
        .folder(id: ItemID(high: 0x1111, low: n), name: name, parent: .root)
    }

    static func sorted(_ names: [String]) -> [String] {
        names.enumerated().map { item($1, UInt64($0)) }.sorted(by: displayOrder).map(\.name)
    }

    @Test("numbers by value, case and accents ignored, ties by code point")
    func natural() {
        let names = [
            "note 10", "note 1", "note 101", "Work", "note 100", "apple", "note 2", "Ünïcode", "banana", "Zebra",
            "éclair", "eclair", "Eclair", "take 02", "take 2", "take 1b", "take 1a", "x9", "x10", "x09",
        ]
        #expect(
            Self.sorted(names) == [
                "apple", "banana", "Eclair", "eclair", "éclair", "note 1", "note 2", "note 10", "note 100",
                "note 101", "take 1a", "take 1b", "take 02", "take 2", "Ünïcode", "Work", "x09", "x9", "x10", "Zebra",
            ])
    }

    @Test("long runs of digits compare by value without overflowing")
    func longNumbers() {
        #expect(
            Self.sorted([
                "a 100000000000000000000000000", "a 99999999999999999999999999", "a 0000000000000000000000001",
            ])
                == ["a 0000000000000000000000001", "a 99999999999999999999999999", "a 100000000000000000000000000"])
    }

    @Test("a total order: any shuffle of the same items sorts the same way")
    func total() {
        var rng = SearchIndexTests.generator(22)
        let alphabet = Array("aAbB01 9éÉe\u{301}-_.Üu🎤会".unicodeScalars)
        var items: [Item] = []
        for n in 0..<300 {
            var name = ""
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                name.unicodeScalars.append(alphabet.randomElement(using: &rng)!)
            }
            items.append(Self.item(name, UInt64(n % 200)))
        }
        let once = items.sorted(by: displayOrder).map(\.id)
        for _ in 0..<20 {
            #expect(items.shuffled(using: &rng).sorted(by: displayOrder).map(\.id) == once)
        }
        // Irreflexive and asymmetric, pair by pair.
        for a in items.prefix(60) {
            #expect(!displayOrder(a, a))
            for b in items.prefix(60) where displayOrder(a, b) { #expect(!displayOrder(b, a)) }
        }
    }

    @Test("items of the same name sit side by side, however the name is encoded")
    func sameNamesAdjacent() {
        // U+1EC7 and e + U+0323 + U+0302 are the same name (Swift compares them equal);
        // folded apart they would put "f" between them.
        let precomposed = "\u{1EC7}"
        let decomposed = "e\u{323}\u{302}"
        #expect(precomposed == decomposed)
        let order = [Self.item(precomposed, 1), Self.item("f", 2), Self.item(decomposed, 3), Self.item("E", 4)]
            .sorted(by: displayOrder).map(\.name)
        let first = order.firstIndex(of: precomposed)!
        #expect(order[first + 1] == decomposed)
        #expect(Self.sorted(["a", "A", "a"]) == ["A", "a", "a"])
    }

    @Test("a store written in the old order (by code point) loads in the new one, and is written so")
    func oldOrderUpgrades() throws {
        let named = ["note 10", "note 9", "Work", "apple"].enumerated().map {
            Item.folder(id: ItemID(high: 0x2222, low: UInt64($0)), name: $1, parent: .root)
        }
        var root = Document().root
        // What an older recnotes wrote: the root's children by code point.
        root.children = named.sorted { $0.name < $1.name }.map(\.id)
        var items = [ItemID.root: root]
        for item in named { items[item.id] = item }
        let document = Document(items: items)
        #expect(document.children(of: .root).map(\.name) == ["Work", "apple", "note 10", "note 9"])
        let bytes = DocumentCodec.encode(document)
        let (loaded, problems) = try bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0) }
        #expect(problems.isEmpty)
        #expect(loaded.children(of: .root).map(\.name) == ["apple", "note 9", "note 10", "Work"])
        var tx = DocumentStore.Transaction(document: loaded)
        try tx.add(.folder(name: "note 11", parent: .root))
        #expect(tx.document.children(of: .root).map(\.name) == ["apple", "note 9", "note 10", "note 11", "Work"])
    }
}

import RecTestSupport
import Testing

@testable import RecStore

/// One walk of a path (`PathWalker`) over the three trees a path is resolved in: the whole
/// document, the reads' table and `find`'s index. Each must give what the document gives:
/// the same item, the same missing names, or the same error.
@Suite("one path walker over the document, the reads' table and find's index")
struct PathWalkerTests {
    /// What a walk came to, in words that compare across trees.
    static func outcome<Tree: ItemTree>(_ tree: Tree, _ path: String, from folder: ItemID) -> String {
        guard let start = tree.node(withID: folder) else { return "no start" }
        do {
            switch try PathWalker(tree).walk(path, from: start) {
            case .existing(let node): return "existing \(tree.id(of: node))"
            case .missing(let parent, let names, let endsInSlash):
                return "missing under \(tree.id(of: parent)): \(names), slash \(endsInSlash)"
            }
        } catch {
            return "error \(error)"
        }
    }

    @Test("every kind of path walks to the same place or the same error in all three", arguments: [4, 5] as [UInt64])
    func sameOutcome(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        _ = try SearchIndexTests.makeStore(in: directory, seed: seed)
        let library = try StoreTableTests.tabled(directory.location)
        let document = library.document
        let table = try #require(StoreTable.current(at: directory.location))
        let index = try #require(ItemIndex.build(from: library))
        let items = document.preorder()
        let folders = items.filter(\.isFolder).map(\.id)
        var paths: [String] = ["", ".", "..", "/", "/..", "missing", "a\u{0}b", "@zz", "@12", "@0000000"]
        for item in items {
            let path = document.path(of: item.id)
            paths += [
                path, path + "/", path + "/..", path + "/../.", path + "/new", path + "/new/", path + "/new/deeper",
                path + "/new/..", path + "/new/../..", item.name, "./" + item.name, "../" + item.name,
                "@" + item.id.hexDigits.prefix(8), "@" + item.id.hexDigits.prefix(6) + "/..",
                "@" + item.id.hexDigits.prefix(4),
            ]
        }
        var compared = 0
        for folder in [ItemID.root] + folders.prefix(4) {
            for path in paths {
                let expected = Self.outcome(document, path, from: folder)
                #expect(Self.outcome(index, path, from: folder) == expected, "seed \(seed): \(path) from \(folder)")
                let throughTable = Self.outcome(table, path, from: folder)
                // The table answers a UUID prefix only when it holds every item.
                if table.count == table.documentCount || !path.hasPrefix("@") {
                    #expect(throughTable == expected, "seed \(seed): \(path) from \(folder)")
                }
                compared += 1
            }
        }
        #expect(compared > 500)
    }

    @Test("the deepest folder of a folder stack still there is the same in all three")
    func sameCurrentFolder() throws {
        let directory = try TemporaryDirectory()
        _ = try SearchIndexTests.makeStore(in: directory, seed: 6)
        let library = try StoreTableTests.tabled(directory.location)
        let document = library.document
        let table = try #require(StoreTable.current(at: directory.location))
        let index = try #require(ItemIndex.build(from: library))
        let items = document.preorder()
        let recording = try #require(items.first { !$0.isFolder })
        let deepest = try #require(
            items.filter(\.isFolder).max { document.ancestry(of: $0.id).count < document.ancestry(of: $1.id).count })
        let stacks: [[ItemID]] = [
            [], [.root], document.ancestry(of: deepest.id).map(\.id),
            document.ancestry(of: deepest.id).map(\.id) + [ItemID.random()],
            document.ancestry(of: deepest.id).map(\.id) + [recording.id],
        ]
        for stack in stacks {
            let expected = document.deepestFolder(of: stack).id
            #expect(table.id(of: table.deepestFolder(of: stack)) == expected)
            #expect(index.id(of: index.deepestFolder(of: stack)) == expected)
        }
        #expect(document.deepestFolder(of: stacks[3]).id == deepest.id)
    }
}

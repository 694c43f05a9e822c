import Foundation
import Testing

/// Names sort as file managers sort them, in every view (ls, ls --json, tree, find, the
/// index and browse's list), and a store written in the old order (by code point) reads in
/// the new one with nothing to repair.
@Suite("Name order through the binary")
struct NameOrderEndToEndTests {
    static let names = ["note 10", "note 1", "note 101", "Work", "note 100", "apple", "note 2", "Ünïcode"]
    static let natural = ["apple", "note 1", "note 2", "note 10", "note 100", "note 101", "Ünïcode", "Work"]

    func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        for (n, name) in Self.names.enumerated() {
            if name == "Work" {
                try sandbox.addFolder(name, in: "/")
            } else {
                try sandbox.addWAVRecording(name, in: "/", frames: 4800 * (n + 1))
            }
        }
        return sandbox
    }

    @Test func everyViewShowsTheSameNaturalOrder() throws {
        let sandbox = try sandbox()
        #expect(try sandbox.run("ls").lines == Self.natural)
        let json = try #require(try sandbox.run("ls", "--json").json() as? [[String: Any]])
        #expect(json.map { $0["name"] as? String } == Self.natural)
        let tree = try sandbox.run("tree").lines.dropFirst().map { line in
            // "├── note 1  00:00.20", "└── Work/"
            String(line.dropFirst(4).prefix { $0 != "/" }).components(separatedBy: "  ")[0]
        }
        #expect(tree == Self.natural)
        #expect(try sandbox.run("find", "/").lines == Self.natural.map { "/" + $0 })
        // Again from the index that search made.
        #expect(try sandbox.run("find", "/").lines == Self.natural.map { "/" + $0 })
        let found = try #require(try sandbox.run("find", "/", "--json").json() as? [[String: Any]])
        #expect(found.compactMap { $0["name"] as? String } == Self.natural)
        // store.json keeps the root's children in the same order.
        let root = try #require(try sandbox.item(at: "/"))
        let order = try (root["children"] as? [String] ?? []).map { id in
            try #require(try sandbox.storeItems().first { $0["uuid"] as? String == id }?["name"] as? String)
        }
        #expect(order == Self.natural)
        // The other sort keys still sort by their key; ties and reverse as before.
        #expect(try sandbox.run("ls", "--reverse").lines == Self.natural.reversed())
        #expect(
            try sandbox.run("ls", "--sort", "duration").lines
                == ["Work", "note 10", "note 1", "note 101", "note 100", "apple", "note 2", "Ünïcode"])
    }

    @Test func aStoreInTheOldOrderReadsInTheNewOneWithNothingToRepair() throws {
        let sandbox = try sandbox()
        // What an older recnotes wrote: each folder's children by code point.
        var json = try sandbox.storeJSON()
        var items = try #require(json["items"] as? [[String: Any]])
        let nameOf = Dictionary(uniqueKeysWithValues: items.map { ($0["uuid"] as! String, $0["name"] as! String) })
        let rootIndex = try #require(items.firstIndex { $0["parent"] is NSNull })
        let children = try #require(items[rootIndex]["children"] as? [String])
        let byCodePoint = children.sorted {
            nameOf[$0]!.unicodeScalars.lexicographicallyPrecedes(nameOf[$1]!.unicodeScalars)
        }
        #expect(
            byCodePoint.map { nameOf[$0]! } == [
                "Work", "apple", "note 1", "note 10", "note 100", "note 101", "note 2", "Ünïcode",
            ])
        items[rootIndex]["children"] = byCodePoint
        json["items"] = items
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: sandbox.storeFile))
        try? FileManager.default.removeItem(atPath: sandbox.store + "/cache")
        let before = sandbox.storeBytes

        #expect(try sandbox.run("ls").lines == Self.natural)
        #expect(try sandbox.run("find", "/").lines == Self.natural.map { "/" + $0 })
        let check = try sandbox.run("fsck")
        #expect(check.status == 0, "\(check)")
        #expect(check.stderr.isEmpty, "\(check)")
        #expect(sandbox.storeBytes == before, "reading changes nothing")
        // The next change writes the new order.
        try sandbox.succeed("mkdir", "note 3")
        let root = try #require(try sandbox.item(at: "/"))
        let written = try (root["children"] as? [String] ?? []).map { id in
            try #require(try sandbox.storeItems().first { $0["uuid"] as? String == id }?["name"] as? String)
        }
        #expect(
            written == ["apple", "note 1", "note 2", "note 3", "note 10", "note 100", "note 101", "Ünïcode", "Work"])
        #expect(try sandbox.run("fsck").status == 0)
    }

    @Test func namesDifferingOnlyInCaseAreStillTwoNames() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "notes", "Notes", "NOTES")
        #expect(try sandbox.run("ls").lines == ["NOTES", "Notes", "notes"])
        expectFailure(try sandbox.run("mkdir", "Notes"), status: 1)
    }
}

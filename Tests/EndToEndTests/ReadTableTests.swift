import Foundation
import RecCore
import RecTestSupport
import Testing

/// The reads' table (`cache/items-table`, issue 28): `pwd`, `ls`, `info` and `status` print
/// the same bytes whether they answer from it or from the whole `store.json`, whatever
/// happened to it or to the store between two commands.
@Suite("reads through the items' table")
struct ReadTableTests {
    let sandbox: Sandbox
    var table: String { sandbox.store + "/cache/items-table" }
    var location: StoreLocation { StoreLocation(directory: sandbox.store) }

    init() throws { sandbox = try Sandbox() }

    /// A random store written through the usual transactions: nested folders, recordings
    /// with tags and notes, names that differ only in case, accents or numbers, some of
    /// them in the trash (so that a UUID prefix may name an item outside the table).
    func makeStore(_ random: inout SeededRandom) throws {
        let names = ["a", "A", "é", "e\u{301}", "note 2", "note 10", "x y", "日本", "@at", "b"]
        let store = try DocumentStore(location: location)
        var folders: [ItemID] = [.root]
        var recordings: [ItemID] = []
        try store.transaction { tx in
            for k in 0..<60 {
                let parent = folders.randomElement(using: &random)!
                let name = "\(names.randomElement(using: &random)!) \(k)"
                let created = Timestamp(millisecondsSinceEpoch: 1_700_000_000_000 + Int64(k) * 86_400_123)
                var item: Item
                if k % 3 == 0 {
                    item = .folder(name: name, parent: parent, created: created)
                    folders.append(item.id)
                } else {
                    let id = ItemID(high: random.next(), low: random.next())
                    let duration = Double(Int.random(in: 1...60_000, using: &random)) / 100
                    item = .recording(
                        id: id, name: name, parent: parent, created: created,
                        info: RecordingInfo(
                            duration: duration, frames: Int64(duration * 48000), sampleRate: 48000, channels: 1,
                            format: .opus, file: "\(id).opus"))
                    recordings.append(id)
                }
                if Bool.random(using: &random) { item.annotations.tags = ["work"] }
                if Bool.random(using: &random) { item.annotations.note = "note of \(k)" }
                try tx.add(item)
            }
            for id in recordings.prefix(3) { try tx.remove(id) }
        }
    }

    /// Sets `store.json`'s time back: a store changed in the last second is trusted only
    /// after its bytes are hashed, an older one by its identity.
    func ageStore() {
        var times = [timespec(tv_sec: time(nil) - 10, tv_nsec: 0), timespec(tv_sec: time(nil) - 10, tv_nsec: 0)]
        utimensat(AT_FDCWD, sandbox.storeFile, &times, 0)
    }

    /// Every item's path (as find lists them) and UUID, from the store as it is now.
    func listing() throws -> (paths: [String], ids: [String]) {
        let found = try sandbox.run("find", "/")
        expectSuccess(found)
        let object = try JSONSerialization.jsonObject(with: Data(try #require(sandbox.storeBytes))) as? [String: Any]
        let ids = (object?["items"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
        return (found.lines, ids)
    }

    @Test("pwd, status, ls and info give the same bytes with the table and without, over random stores and changes")
    func sameBytes() throws {
        let seed = SeededRandom.seed(28)
        var random = SeededRandom(seed: seed)
        try makeStore(&random)
        var kept: [[UInt8]] = []
        var answered = 0
        for round in 0..<16 {
            // Another process's change between two reads.
            var (paths, ids) = try listing()
            let some = paths.randomElement(using: &random) ?? "/"
            let change: [String] =
                switch Int.random(in: 0..<6, using: &random) {
                case 0: ["mkdir", "-p", "/new \(round)/inner"]
                case 1: ["mv", some, "/"]
                case 2: ["tag", some, "+t\(round)"]
                case 3: ["rm", some]
                case 4: ["cd", paths.filter { !$0.contains(".") }.randomElement(using: &random) ?? "/"]
                default: ["undo"]
                }
            _ = try sandbox.run(change)
            if Bool.random(using: &random) { ageStore() }
            (paths, ids) = try listing()
            var candidates = paths + [".", "/", "..", "../..", "/missing", "/new \(round)/", "./@at 8"]
            candidates += ids.prefix(8).map { "@" + $0.prefix(Int.random(in: 4...8, using: &random)) }
            candidates += paths.prefix(3).map { $0 + "/x" }
            for query in 0..<6 {
                let path = candidates.randomElement(using: &random)!
                let arguments: [String] =
                    switch query {
                    case 0: ["pwd", "--json"]
                    case 1: ["ls", "--json", path]
                    case 2: ["ls", "-l", "--json", path]
                    case 3: ["info", "--json", path]
                    case 4: ["info", path]
                    default: Bool.random(using: &random) ? ["status", "--json"] : ["pwd"]
                    }
                // What the table is as the read starts: as left (most often), or damaged,
                // cut short, stale or gone.
                let bytes = sandbox.bytes(table)
                if let bytes { kept.append(bytes) }
                switch Int.random(in: 0..<8, using: &random) {
                case 0 where bytes != nil:
                    try sandbox.write(table, Array(bytes!.prefix(Int.random(in: 0..<bytes!.count, using: &random))))
                case 1 where bytes != nil:
                    var damaged = bytes!
                    damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= 0x10
                    try sandbox.write(table, damaged)
                case 2 where !kept.isEmpty: try sandbox.write(table, kept.randomElement(using: &random)!)
                case 3: try? FileManager.default.removeItem(atPath: table)
                default: break
                }
                let listing = arguments[0] == "ls"
                let paths: [String?] = arguments[0] == "pwd" ? [nil] : arguments[0] == "status" ? [] : [path]
                if Library.reading(location, paths: paths, listing: listing) != nil { answered += 1 }
                let with = try sandbox.run(arguments)
                try? FileManager.default.removeItem(atPath: table)
                let without = try sandbox.run(arguments)
                #expect(
                    with.stdout == without.stdout && with.stderr == without.stderr && with.status == without.status,
                    "seed \(seed), round \(round): \(arguments)\nwith the table: \(with)\nwithout: \(without)")
            }
        }
        // Most reads find the table that the read before them made: it must have answered.
        #expect(answered >= 16 * 6 / 4, "seed \(seed): the table answered \(answered) reads")
    }

    /// `recnotes ARGS` on the copy of the store at `directory`, its path in the output
    /// replaced by the sandbox's store's (an audio file's path names it).
    func run(_ arguments: [String], in directory: String) throws -> Run {
        var run = try Sandbox.execute(
            Sandbox.binary, ["--store", directory] + arguments, environment: sandbox.baseEnvironment)
        run.stdout = run.stdout.replacingOccurrences(of: directory, with: sandbox.store)
        run.stderr = run.stderr.replacingOccurrences(of: directory, with: sandbox.store)
        return run
    }

    @Test(
        "tag and note --set give the same output and store.json through the table as without, and leave the table and find's index as made anew"
    )
    func sameChanges() throws {
        let seed = SeededRandom.seed(2828)
        var random = SeededRandom(seed: seed)
        try makeStore(&random)
        let itemIndex = sandbox.store + "/cache/find-items"
        let copy = sandbox.root + "/copy"
        var kept: [String: [[UInt8]]] = [:]
        var spliced = 0
        for round in 0..<24 {
            // Another process's change between two commands, some of them rounds apart.
            var (paths, _) = try listing()
            if round % 3 == 0 {
                let some = paths.randomElement(using: &random) ?? "/"
                let change: [String] =
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: ["mkdir", "-p", "/new \(round)/inner"]
                    case 1: ["mv", some, "/"]
                    case 2: ["rm", some]
                    default: ["undo"]
                    }
                _ = try sandbox.run(change)
                (paths, _) = try listing()
            }
            if Bool.random(using: &random) { ageStore() }
            // find's index present (a search made it) in most rounds.
            if Int.random(in: 0..<4, using: &random) > 0 { _ = try sandbox.run("find", "/", "--tag", "work") }
            // Each of the two files as left (most often), or damaged, cut short, stale or gone.
            for file in [table, itemIndex] {
                let bytes = sandbox.bytes(file)
                if let bytes { kept[file, default: []].append(bytes) }
                switch Int.random(in: 0..<10, using: &random) {
                case 0 where bytes != nil:
                    try sandbox.write(file, Array(bytes!.prefix(Int.random(in: 0..<bytes!.count, using: &random))))
                case 1 where bytes != nil:
                    var damaged = bytes!
                    damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= 0x10
                    try sandbox.write(file, damaged)
                case 2 where kept[file] != nil: try sandbox.write(file, kept[file]!.randomElement(using: &random)!)
                case 3: try? FileManager.default.removeItem(atPath: file)
                default: break
                }
            }
            let targets = paths + ["/", "/missing", "@" + String(UUID().uuidString.prefix(6))]
            let path = targets.randomElement(using: &random)!
            let arguments: [String] =
                switch Int.random(in: 0..<4, using: &random) {
                case 0: ["tag", "--json", path, "+t\(round % 3)", "-work"]
                case 1: ["tag", path, "+work"]
                case 2: ["note", path, "--set", "note \(round) ü"]
                default: ["note", "--json", path, "--set", Bool.random(using: &random) ? "" : "line\nnext"]
                }
            // The same store without cache/, as another machine would have it.
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: sandbox.store, toPath: copy)
            try? FileManager.default.removeItem(atPath: copy + "/cache")
            let command = arguments.filter { $0 != "--json" }
            if Library.changing(location, paths: [command[1]]) != nil { spliced += 1 }
            let with = try sandbox.run(arguments)
            let without = try run(arguments, in: copy)
            #expect(
                with.stdout == without.stdout && with.stderr == without.stderr && with.status == without.status,
                "seed \(seed), round \(round): \(arguments)\nwith the table: \(with)\nwithout: \(without)")
            #expect(
                sandbox.storeBytes == sandbox.bytes(copy + "/store.json"),
                "seed \(seed), round \(round): \(arguments) wrote another store.json through the table")
            // What the change left in cache/ says what the store says: fsck compares both
            // files with what it makes anew, and reads and searches answer as without them.
            let check = try sandbox.run("fsck")
            #expect(
                !(check.stdout + check.stderr).contains("does not match what it was made from"),
                "seed \(seed), round \(round): \(arguments)\n\(check)")
            for read in [
                ["find", "--json", "/", "--tag", "t\(round % 3)"], ["ls", "-l", "--json", path],
                ["info", "--json", path],
            ] {
                let a = try sandbox.run(read)
                let b = try run(read, in: copy)
                #expect(
                    a.stdout == b.stdout && a.status == b.status, "seed \(seed), round \(round): \(read)\n\(a)\n\(b)")
            }
        }
        // Most changes find the table the command before them left: they must have used it.
        #expect(spliced >= 24 / 4, "seed \(seed): \(spliced) changes went through the table")
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The history of changes to the document store, newest last, in `journal.jsonl` beside
/// `store.json`: one JSON object per line, appended under the store lock after the store
/// itself is safely written. It is bounded and safe to lose: without it only `undo` and
/// `history` have less to go on; the documents are all in `store.json`.
public struct Journal {
    /// How to take one change back.
    public enum Step: Equatable, Sendable {
        case added(ItemID)
        case moved(ItemID, fromParent: ItemID, fromName: String, toParent: ItemID, toName: String)
        case trashed(ItemID)
        case removedPermanently(ItemID, path: String)
        case restored(ItemID)
    }

    public struct Entry: Equatable, Sendable {
        public var sequence: Int
        public var time: Timestamp
        public var summary: String
        public var steps: [Step]
    }

    /// Entries kept after trimming, and the count that triggers a trim.
    static let keep = 200
    static let trimAt = 400

    public let location: StoreLocation
    public var path: String { location.directory + "/journal.jsonl" }

    public init(location: StoreLocation) {
        self.location = location
    }

    /// Every entry that parses, oldest first; a damaged line is skipped.
    public func entries() -> [Entry] {
        guard let bytes = try? FileSystem.read(path) else { return [] }
        var result: [Entry] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let parsed = Array(line).withUnsafeBufferPointer { try? Journal.decode($0) }
            if let parsed { result.append(parsed) }
        }
        return result
    }

    /// Appends the transaction's steps. Failures are ignored: the change itself is saved.
    func record(_ transaction: DocumentStore.Transaction, summary: String) {
        guard transaction.journaled, !transaction.steps.isEmpty else { return }
        let existing = entries()
        let entry = Entry(sequence: (existing.last?.sequence ?? 0) + 1, time: .now(), summary: summary, steps: transaction.steps)
        if existing.count + 1 >= Journal.trimAt {
            rewrite(Array(existing.suffix(Journal.keep - 1)) + [entry])
            return
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        try? FileSystem.writeAll(fd, Journal.encode(entry), path: path)
    }

    /// Drops the newest entry, after it has been undone.
    func dropLast() {
        let existing = entries()
        guard !existing.isEmpty else { return }
        rewrite(Array(existing.dropLast()))
    }

    private func rewrite(_ entries: [Entry]) {
        try? FileSystem.writeAtomically(entries.flatMap(Journal.encode), to: path)
    }

    static func encode(_ entry: Entry) -> [UInt8] {
        var w = JSONWriter()
        w.raw("{\"seq\": ")
        w.int(entry.sequence)
        w.raw(", \"time\": ")
        w.timestamp(entry.time)
        w.raw(", \"summary\": ")
        w.string(entry.summary)
        w.raw(", \"steps\": [")
        for (i, step) in entry.steps.enumerated() {
            if i > 0 { w.raw(", ") }
            switch step {
            case let .added(id):
                w.raw("{\"op\": \"added\", \"uuid\": ")
                w.id(id)
            case let .moved(id, fromParent, fromName, toParent, toName):
                w.raw("{\"op\": \"moved\", \"uuid\": ")
                w.id(id)
                w.raw(", \"fromParent\": ")
                w.id(fromParent)
                w.raw(", \"fromName\": ")
                w.string(fromName)
                w.raw(", \"toParent\": ")
                w.id(toParent)
                w.raw(", \"toName\": ")
                w.string(toName)
            case let .trashed(id):
                w.raw("{\"op\": \"trashed\", \"uuid\": ")
                w.id(id)
            case let .removedPermanently(id, path):
                w.raw("{\"op\": \"removedPermanently\", \"uuid\": ")
                w.id(id)
                w.raw(", \"path\": ")
                w.string(path)
            case let .restored(id):
                w.raw("{\"op\": \"restored\", \"uuid\": ")
                w.id(id)
            }
            w.raw("}")
        }
        w.raw("]}\n")
        return w.bytes
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Entry {
        var r = JSONReader(bytes)
        var entry = Entry(sequence: 0, time: Timestamp(millisecondsSinceEpoch: 0), summary: "", steps: [])
        func id(_ r: inout JSONReader) throws -> ItemID {
            guard let value = ItemID(utf8: try r.readRawString()) else { throw r.failure("not a UUID") }
            return value
        }
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("seq") { entry.sequence = Int(try r.readInt()) }
            else if key.equals("time") { entry.time = Timestamp(utf8: try r.readRawString()) ?? entry.time }
            else if key.equals("summary") { entry.summary = try r.readString() }
            else if key.equals("steps") {
                try r.beginArray()
                var firstStep = true
                while try r.nextElement(first: &firstStep) {
                    var op = "", uuid: ItemID?, fromParent: ItemID?, toParent: ItemID?
                    var fromName = "", toName = "", path = ""
                    try r.beginObject()
                    var f = true
                    while let k = try r.nextKey(first: &f) {
                        if k.equals("op") { op = try r.readString() }
                        else if k.equals("uuid") { uuid = try id(&r) }
                        else if k.equals("fromParent") { fromParent = try id(&r) }
                        else if k.equals("toParent") { toParent = try id(&r) }
                        else if k.equals("fromName") { fromName = try r.readString() }
                        else if k.equals("toName") { toName = try r.readString() }
                        else if k.equals("path") { path = try r.readString() }
                        else { try r.skipValue() }
                    }
                    guard let uuid else { throw r.failure("step without uuid") }
                    switch op {
                    case "added": entry.steps.append(.added(uuid))
                    case "trashed": entry.steps.append(.trashed(uuid))
                    case "restored": entry.steps.append(.restored(uuid))
                    case "removedPermanently": entry.steps.append(.removedPermanently(uuid, path: path))
                    case "moved":
                        guard let fromParent, let toParent else { throw r.failure("moved step without parents") }
                        entry.steps.append(.moved(uuid, fromParent: fromParent, fromName: fromName, toParent: toParent, toName: toName))
                    default: throw r.failure("unknown step")
                    }
                }
            } else { try r.skipValue() }
        }
        try r.finish()
        return entry
    }
}

extension DocumentStore {
    /// Takes back the newest journaled change, if nothing since conflicts with it. Returns
    /// the entry undone.
    @discardableResult
    public func undo() throws -> Journal.Entry {
        let journal = self.journal
        var undone: Journal.Entry?
        try transaction { tx in
            // Read under the lock, so two undos never take back the same change.
            guard let entry = journal.entries().last else {
                throw RecError.failure("undo", "nothing to undo")
            }
            try tx.undo(entry)
            undone = entry
        }
        guard let undone else { throw RecError.failure("undo", "nothing to undo") }
        return undone
    }
}

extension DocumentStore.Transaction {
    mutating func undo(_ entry: Journal.Entry) throws {
        journaled = false
        let what = "cannot undo '\(entry.summary)'"
        func conflict(_ why: String) -> RecError { RecError.failure("undo", "\(what): \(why)") }
        for step in entry.steps.reversed() {
            switch step {
            case let .added(id), let .restored(id):
                guard let item = document[id] else { throw conflict("@\(id.description.prefix(8)) has since been removed") }
                // An empty folder holds nothing worth keeping; anything else goes to the trash.
                try remove(id, permanently: item.isFolder && item.children.isEmpty)
            case let .moved(id, fromParent, fromName, toParent, toName):
                guard let item = document[id] else { throw conflict("@\(id.description.prefix(8)) has since been removed") }
                guard item.parent == toParent, item.name == toName else {
                    throw conflict("\(document.path(of: id)) has since been moved or renamed")
                }
                do {
                    try move(id, into: fromParent, name: fromName)
                } catch let error as RecError {
                    throw conflict("\(error.description)")
                }
            case let .trashed(id):
                guard document.trashEntry(id) != nil else { throw conflict("the trash has been emptied since") }
                do {
                    try restore(id)
                } catch let error as RecError {
                    throw conflict(error.description)
                }
            case let .removedPermanently(_, path):
                throw conflict("\(path) was removed permanently")
            }
        }
        steps = []
    }
}

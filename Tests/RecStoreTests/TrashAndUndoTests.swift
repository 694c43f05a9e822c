import Foundation
import RecSystem
import RecTestSupport
import RecValues
import Testing

@testable import RecStore

@Suite("Trash, journal and undo")
struct TrashAndUndoTests {
    let dir: TemporaryDirectory
    let store: DocumentStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try DocumentStore(location: dir.location)
        store.summary = "build"
        try store.transaction { try Fixture.build(into: &$0) }
    }

    func reopened() throws -> Document { try DocumentStore(location: dir.location).document }

    @Test("a journal entry says what changed and to which item, whatever front end made it")
    func entriesSayWhatChanged() throws {
        // What browse does: one summary for all its changes.
        store.summary = "recnotes browse"
        try store.transaction { try $0.rename(Fixture.standup, to: "daily") }
        try store.transaction { try $0.move(Fixture.ideas, into: .root, name: "Ideas") }
        try store.transaction {
            try $0.annotate(Fixture.standup, with: Annotations(tags: ["q3", "work"]))
        }
        try store.transaction {
            try $0.annotate(Fixture.standup, with: Annotations(tags: ["q3"], markers: [Marker(frame: 10)]))
        }
        try store.transaction {
            try $0.annotate(
                Fixture.standup,
                with: Annotations(
                    tags: ["q3"], markers: [Marker(frame: 10)], trim: TrimPoints(inFrame: 5, outFrame: 50)))
        }
        try store.transaction { try $0.remove(Fixture.ideas) }
        try store.transaction { try $0.add(.folder(name: "New", parent: .root)) }
        let changes = store.journal.entries().suffix(7).map(\.change)
        #expect(
            changes == [
                "rename /Work/Ideas/standup → /Work/Ideas/daily", "move /Work/Ideas → /Ideas",
                "tags on /Ideas/daily: +q3 +work", "tags and markers on /Ideas/daily", "trim /Ideas/daily",
                "trash /Ideas", "mkdir /New",
            ])
        #expect(store.journal.entries().suffix(7).allSatisfy { $0.summary == "recnotes browse" })
    }

    @Test("restore puts a trashed subtree back where it was, with the same UUIDs")
    func restore() throws {
        let before = store.document
        try store.transaction { try $0.remove(Fixture.work) }
        #expect(store.document[Fixture.ideas] == nil)
        let log = ActionLog(store)
        try store.transaction { try $0.restore(Fixture.work) }
        // As it was, but for when its trash state changed (store version 4, for a merge).
        #expect(store.document.items.withoutChangeTimes == before.items.withoutChangeTimes)
        #expect(store.document[Fixture.work]!.changed.trash > ChangeTimes.unknownTime)
        #expect(store.document.trash.isEmpty)
        #expect(log.actions == [.added(store.document[Fixture.work]!, parent: .root, index: 1)])
        #expect(try reopened() == store.document)
    }

    @Test("restore refuses a taken name or a vanished folder, and --to/--name get round it")
    func restoreConflicts() throws {
        try store.transaction { try $0.remove(Fixture.ideas) }
        try store.transaction { try $0.add(.folder(name: "Ideas", parent: Fixture.work)) }
        let bytes = dir.bytes("store.json")
        let taken = recError { try store.transaction { _ = try $0.restore(Fixture.ideas) } }
        #expect(taken?.description == "/Work/Ideas: already exists; restore it with --to FOLDER or --name NAME")
        #expect(dir.bytes("store.json") == bytes)
        try store.transaction { try $0.restore(Fixture.ideas, name: "Ideas (old)") }
        #expect(store.document.path(of: Fixture.standup) == "/Work/Ideas (old)/standup")

        try store.transaction { try $0.remove(Fixture.standup) }
        try store.transaction { try $0.remove(Fixture.ideas, permanently: true) }
        let gone = recError { try store.transaction { _ = try $0.restore(Fixture.standup) } }
        #expect(
            gone?.description == "/Work/Ideas (old)/standup: its folder no longer exists; restore it with --to FOLDER")
        try store.transaction { try $0.restore(Fixture.standup, into: Fixture.home) }
        #expect(store.document.path(of: Fixture.standup) == "/Home/standup")
    }

    @Test("trash restore finds an item by its old path typed as any path is: relative, with . and ..")
    func restoreByTypedPath() throws {
        // The case from the report: mkdir -p /Work/Ideas/B, rm /Work/Ideas/standup, cd B.
        let b = Item.folder(name: "B", parent: Fixture.ideas)
        try store.transaction { try $0.add(b) }
        try store.transaction { try $0.remove(Fixture.standup) }
        for typed in ["../standup", "./../standup", "../B/../standup", "/Work/Ideas/standup", "../../Ideas/standup"] {
            #expect(try store.document.trashEntry(matching: typed, from: b.id).id == Fixture.standup, "\(typed)")
        }
        try store.transaction { try $0.restore("../standup", into: nil, name: nil, from: b.id) }
        #expect(store.document.path(of: Fixture.standup) == "/Work/Ideas/standup")

        // Its folder gone too: the path is still spelt through names that are not there.
        try store.transaction { try $0.remove(Fixture.standup) }
        try store.transaction { try $0.remove(Fixture.ideas) }
        #expect(try store.document.trashEntry(matching: "Ideas/standup", from: Fixture.work).id == Fixture.standup)
        #expect(try store.document.trashEntry(matching: "Ideas/x/../standup", from: Fixture.work).id == Fixture.standup)
        let absent = recError { _ = try store.document.trashEntry(matching: "../standup", from: Fixture.work) }
        #expect(absent == RecError.failure("../standup", "not in the trash"))
    }

    @Test("every journaled change is undone newest first, back to the start")
    func undoAll() throws {
        let start = store.document
        store.summary = "mv"
        try store.transaction { try $0.move(Fixture.ideas, into: Fixture.home, name: "Thoughts") }
        let afterMove = store.document
        store.summary = "rm"
        try store.transaction { try $0.remove(Fixture.work) }
        #expect(Journal(location: dir.location).entries().map(\.summary) == ["build", "mv", "rm"])

        #expect(try store.undo().entry.summary == "rm")
        // Undo is a change too: values as they were, change times of now.
        #expect(store.document.items.withoutChangeTimes == afterMove.items.withoutChangeTimes)
        #expect(try store.undo().entry.summary == "mv")
        #expect(store.document.items.withoutChangeTimes == start.items.withoutChangeTimes)
        #expect(store.document[Fixture.ideas]!.changed.name > afterMove[Fixture.ideas]!.changed.name)
        #expect(try store.undo().entry.summary == "build")
        #expect(store.document.count == 1)
        // The recording added by "build" went to the trash, with its audio, not away.
        #expect(store.document.trash.flatMap(\.items).contains { $0.id == Fixture.standup })
        #expect(recError { _ = try store.undo() }?.description == "undo: nothing to undo")
    }

    @Test("undo refuses, changing nothing, when a later change conflicts")
    func undoConflicts() throws {
        store.summary = "rm standup"
        try store.transaction { try $0.remove(Fixture.standup) }
        store.summary = "empty"
        try store.transaction { _ = $0.emptyTrash() }  // not journaled: it cannot be undone
        let bytes = dir.bytes("store.json")
        let journal = dir.bytes("journal.jsonl")
        let error = recError { _ = try store.undo() }
        #expect(error?.description == "undo: cannot undo 'rm standup': the trash has been emptied since")
        #expect(error?.exitCode == 1)
        #expect(dir.bytes("store.json") == bytes)
        #expect(dir.bytes("journal.jsonl") == journal)

        store.summary = "permanent"
        try store.transaction { try $0.remove(Fixture.home, permanently: true) }
        #expect(
            recError { _ = try store.undo() }?.description
                == "undo: cannot undo 'permanent': /Home was removed permanently")
    }

    @Test("a damaged journal line is skipped, and a lost journal loses only history")
    func damagedJournal() throws {
        var bytes = dir.bytes("journal.jsonl")!
        bytes += Array("{not json\n".utf8)
        try dir.write("journal.jsonl", bytes)
        #expect(Journal(location: dir.location).entries().map(\.summary) == ["build"])
        // What a change reads to number the next entry: the newest that parses, and every line.
        let tail = Journal(location: dir.location).tail()
        #expect(tail.last == Journal(location: dir.location).entries().last)
        #expect(tail.last?.summary == "build" && tail.lines == 2)
        try store.transaction { try $0.rename(Fixture.standup, to: "daily") }
        let sequences = Journal(location: dir.location).entries().map(\.sequence)
        #expect(sequences.count == 2 && sequences.last == sequences.first.map { $0 + 1 })
        try FileManager.default.removeItem(atPath: dir.path + "/journal.jsonl")
        #expect(recError { _ = try store.undo() }?.description == "undo: nothing to undo")
        #expect(store.document.count == 5)
    }

    @Test("each change is numbered after the last entry, and the newest 200 are kept once there are 400")
    func journalNumbersAndTrims() throws {
        // A damaged line among them: not an entry, for the count that triggers the trim either.
        var bytes = dir.bytes("journal.jsonl")!
        bytes += Array("{not json\n".utf8)
        try dir.write("journal.jsonl", bytes)
        for n in 1...420 { try store.transaction { try $0.rename(Fixture.standup, to: "s\(n)") } }
        // "build" is 1; the 399th rename (400) made the 400th entry: 201...400 kept, then 21 more.
        #expect(Journal(location: dir.location).entries().map(\.sequence) == Array(201...421))
    }

    @Test("a journal line is written byte for byte as earlier releases wrote it, and reads back")
    func journalLineLayout() throws {
        let parent = ItemID("11111111-2222-3333-4444-555555555555")!
        let id = ItemID("AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE")!
        let time = Timestamp(millisecondsSinceEpoch: 1_700_000_000_000)
        let entry = Journal.Entry(
            sequence: 7, time: time, summary: "mv a b",
            steps: [
                .moved(id, fromParent: parent, fromName: "a", toParent: parent, toName: "b \"q\""),
                .added(id, .init(parent: parent, name: "n", kind: .folder, created: time)),
                .transcribed(id, replaced: nil),
            ], change: "rename /a → /b")
        let line = String(decoding: JournalCodec.encode(entry), as: UTF8.self)
        let u = id.description
        let p = parent.description
        let t = time.iso8601
        #expect(
            line == """
                {"seq": 7, "time": "\(t)", "summary": "mv a b", "change": "rename /a → /b", "steps": [\
                {"op": "moved", "uuid": "\(u)", "fromParent": "\(p)", "fromName": "a", "toParent": "\(p)", \
                "toName": "b \\"q\\""}, {"op": "added", "uuid": "\(u)", "parent": "\(p)", "name": "n", \
                "type": "folder", "created": "\(t)"}, {"op": "transcribed", "uuid": "\(u)"}]}

                """)
        let decoded = try Array(line.utf8).withUnsafeBufferPointer { try JournalCodec.decode($0) }
        #expect(decoded == entry)
    }

    @Test("a transcribed step that names a file outside undo/ is a damaged line, skipped")
    func keptNamesStayInUndo() throws {
        var bytes = dir.bytes("journal.jsonl")!
        for name in ["../store.json", ".hidden", ""] {
            bytes += JournalCodec.encode(
                .init(
                    sequence: 2, time: .now(), summary: "transcribe",
                    steps: [.transcribed(Fixture.standup, replaced: name)]))
        }
        bytes += JournalCodec.encode(
            .init(
                sequence: 2, time: .now(), summary: "transcribe",
                steps: [.transcribed(Fixture.standup, replaced: "\(Fixture.standup).1.json")]))
        try dir.write("journal.jsonl", bytes)
        let entries = Journal(location: dir.location).entries()
        #expect(entries.map(\.summary) == ["build", "transcribe"])
        #expect(entries.last?.steps == [.transcribed(Fixture.standup, replaced: "\(Fixture.standup).1.json")])
    }

    @Test("the journal stays bounded")
    func bounded() throws {
        // Fill the journal to just below the trim point without hundreds of fsynced stores.
        var lines: [UInt8] = []
        for i in 2..<Journal.trimAt {
            lines += JournalCodec.encode(
                .init(sequence: i, time: .now(), summary: "mkdir \(i)", steps: [.added(.random())]))
        }
        try dir.write("journal.jsonl", dir.bytes("journal.jsonl")! + lines)
        #expect(Journal(location: dir.location).entries().count == Journal.trimAt - 1)
        store.summary = "the last one"
        try store.transaction { try $0.add(.folder(name: "last", parent: .root)) }
        let entries = Journal(location: dir.location).entries()
        #expect(entries.count == Journal.keep)
        #expect(entries.last?.summary == "the last one")
        #expect(entries.last?.sequence == Journal.trimAt)
        #expect(entries.map(\.sequence) == entries.map(\.sequence).sorted())
    }

    @Test("trimming the journal lets go of the transcripts its dropped entries kept for undo")
    func boundedKeptTranscripts() throws {
        try FileManager.default.createDirectory(atPath: dir.location.undoDirectory, withIntermediateDirectories: true)
        let dropped = "\(Fixture.standup).1.json"
        let kept = "\(Fixture.standup).2.json"
        try dir.write("undo/" + dropped, Array("{}".utf8))
        try dir.write("undo/" + kept, Array("{}".utf8))
        var lines: [UInt8] = []
        for i in 2..<Journal.trimAt {
            let step: Journal.Step =
                switch i {
                case 2: .transcribed(Fixture.standup, replaced: dropped)
                case Journal.trimAt - 1: .transcribed(Fixture.standup, replaced: kept)
                default: .added(.random())
                }
            lines += JournalCodec.encode(.init(sequence: i, time: .now(), summary: "step \(i)", steps: [step]))
        }
        try dir.write("journal.jsonl", dir.bytes("journal.jsonl")! + lines)
        try store.transaction { try $0.add(.folder(name: "last", parent: .root)) }
        #expect(!dir.exists("undo/" + dropped))
        #expect(dir.exists("undo/" + kept))
        #expect(
            Journal(location: dir.location).entries().flatMap(\.steps).contains(
                .transcribed(Fixture.standup, replaced: kept)))
    }
}

extension TrashAndUndoTests {
    @Test("the journal records where added and restored items went, and reads old entries without it")
    func placements() throws {
        let entries = Journal(location: dir.location).entries()
        let steps = try #require(entries.first?.steps)
        #expect(
            steps[0]
                == .added(Fixture.work, .init(parent: .root, name: "Work", kind: .folder, created: Fixture.created)))
        #expect(
            steps[3]
                == .added(
                    Fixture.standup,
                    .init(parent: Fixture.ideas, name: "standup", kind: .recording, created: Fixture.created)))
        let old = Array(
            #"{"seq": 9, "time": "2023-11-14T22:13:20.000Z", "summary": "old", "steps": [{"op": "added", "uuid": "3f2a1111-0000-4000-8000-000000000001"}]}"#
                .utf8)
        let decoded = try old.withUnsafeBufferPointer { try JournalCodec.decode($0) }
        #expect(decoded.steps == [.added(Fixture.work)])
    }

    @Test("undo names the change by what its steps did, with absolute paths; a dry run changes nothing")
    func undoDescribesTheChange() throws {
        store.summary = "recnotes mv Work/Ideas /Home/Thoughts"
        try store.transaction { try $0.move(Fixture.ideas, into: Fixture.home, name: "Thoughts") }
        store.summary = "recnotes rm -r /Work"
        try store.transaction { try $0.remove(Fixture.work) }
        let bytes = dir.bytes("store.json")
        let journal = dir.bytes("journal.jsonl")
        let preview = try store.undo(dryRun: true)
        #expect(preview.change == "trash /Work")
        #expect(preview.entry.sequence == 3)
        #expect(dir.bytes("store.json") == bytes && dir.bytes("journal.jsonl") == journal)
        #expect(try store.undo().change == "trash /Work")
        #expect(try store.undo().change == "move /Work/Ideas → /Home/Thoughts")
        // Whatever the command line (here none, a change made through RecCore).
        #expect(try store.undo().change == "mkdir /Work /Home; add /Work/Ideas/standup")
    }
}

extension Dictionary where Key == ItemID, Value == Item {
    /// The items as they are, without when their fields changed.
    var withoutChangeTimes: [ItemID: Item] {
        mapValues { item in
            var item = item
            item.changed = .unknown
            return item
        }
    }
}

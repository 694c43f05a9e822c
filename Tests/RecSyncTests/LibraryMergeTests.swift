import RecStore
import RecValues
import Testing

@testable import RecSync

/// Builds a document from (id, parent, name, isFolder) rows; the root is added.
private func document(_ rows: [Item]) -> Document {
    var items: [ItemID: Item] = [.root: .folder(id: .root, name: Document.rootName, parent: nil, created: t0)]
    for row in rows { items[row.id] = row }
    return Document(linking: items, trash: [])
}

private let t0 = Timestamp(millisecondsSinceEpoch: 1_700_000_000_000)
private func id(_ n: UInt64) -> ItemID { ItemID(high: 0x4000 + n, low: 0x8000_0000_0000_0000 + n) }
private func folder(_ n: UInt64, _ name: String, in parent: ItemID = .root) -> Item {
    .folder(id: id(n), name: name, parent: parent, created: t0)
}
private func recording(_ n: UInt64, _ name: String, in parent: ItemID = .root, _ a: Annotations = .none) -> Item {
    var item = Item.recording(
        id: id(n), name: name, parent: parent, created: t0,
        info: RecordingInfo(
            duration: 1, frames: 48000, sampleRate: 48000, channels: 1, format: .wav, file: "\(id(n)).wav")
    )
    item.annotations = a
    return item
}
private func merge(_ b: Document, _ o: Document, _ t: Document) -> (document: Document, conflicts: [MergeConflict]) {
    LibraryMerge.merge(base: b, ours: o, theirs: t, oursName: "laptop", theirsName: "desktop")
}

@Test func oneSideChangeIsTaken() {
    let base = document([recording(1, "a"), folder(2, "F")])
    let ours = document([recording(1, "b"), folder(2, "F")])
    let theirs = document([recording(1, "a", in: id(2)), folder(2, "F")])
    let (merged, conflicts) = merge(base, ours, theirs)
    #expect(merged.path(of: id(1)) == "/F/b")
    #expect(conflicts.isEmpty)
}

@Test func tagsAndMarkersMergeAsSets() {
    let base = document([recording(1, "a", Annotations(tags: ["x", "y"], markers: [Marker(frame: 1)]))])
    let ours = document([
        recording(1, "a", Annotations(tags: ["x", "y", "o"], markers: [Marker(frame: 1), Marker(frame: 5)]))
    ])
    let theirs = document([recording(1, "a", Annotations(tags: ["x", "t"], markers: [Marker(frame: 9)]))])
    let (merged, conflicts) = merge(base, ours, theirs)
    #expect(merged[id(1)]!.annotations.tags == ["o", "t", "x"])
    #expect(merged[id(1)]!.annotations.markers == [Marker(frame: 5), Marker(frame: 9)])
    #expect(conflicts.isEmpty)
}

@Test func notesChangedOnBothKeepBothTexts() {
    let base = document([recording(1, "a", Annotations(note: "n"))])
    let ours = document([recording(1, "a", Annotations(note: "from laptop"))])
    let theirs = document([recording(1, "a", Annotations(note: "from desktop"))])
    let (merged, conflicts) = merge(base, ours, theirs)
    let note = merged[id(1)]!.annotations.note
    #expect(note.contains("from laptop") && note.contains("from desktop"))
    #expect(note.contains("laptop") && note.contains("desktop ---"))
    #expect(conflicts.map(\.kind) == [.noteBoth])
}

@Test func nameMoveAndTrimOnBothSidesKeepOneAndReportTheOther() {
    let trimA = TrimPoints(inFrame: 10, outFrame: 100)
    let trimB = TrimPoints(inFrame: 20, outFrame: 200)
    let base = document([recording(1, "a"), folder(2, "F"), folder(3, "G")])
    let ours = document([recording(1, "b", in: id(2), Annotations(trim: trimA)), folder(2, "F"), folder(3, "G")])
    let theirs = document([recording(1, "c", in: id(3), Annotations(trim: trimB)), folder(2, "F"), folder(3, "G")])
    let (merged, conflicts) = merge(base, ours, theirs)
    #expect(merged.path(of: id(1)) == "/F/b")
    #expect(merged[id(1)]!.annotations.trim == trimA)
    #expect(Set(conflicts.map(\.kind)) == Set<MergeConflict.Kind>([.name, .move, .trim]))
    #expect(conflicts.first { $0.kind == .name }?.other == "c")
}

@Test func deletedOnOneSideChangedOnTheOtherStays() {
    let base = document([recording(1, "a"), recording(2, "b")])
    let ours = document([recording(1, "a", Annotations(note: "kept")), recording(2, "b")])
    let theirs = document([])
    let (merged, conflicts) = merge(base, ours, theirs)
    #expect(merged[id(1)] != nil)
    #expect(merged[id(2)] == nil)
    #expect(conflicts.map(\.kind) == [.deleteVsChange])
}

@Test func itemAddedInAFolderRemovedOnTheOtherSideBringsTheFolderBack() {
    let base = document([folder(1, "F")])
    let ours = document([folder(1, "F"), recording(2, "new", in: id(1))])
    let theirs = document([])
    let (merged, conflicts) = merge(base, ours, theirs)
    #expect(merged.path(of: id(2)) == "/F/new")
    #expect(conflicts.map(\.kind) == [.deleteVsChange])
}

@Test func twoMovesThatMakeACycleUndoOne() {
    let base = document([folder(1, "A"), folder(2, "B")])
    let ours = document([folder(1, "A", in: id(2)), folder(2, "B")])
    let theirs = document([folder(1, "A"), folder(2, "B", in: id(1))])
    let (merged, conflicts) = merge(base, ours, theirs)
    let paths = [merged.path(of: id(1)), merged.path(of: id(2))].sorted()
    #expect(paths == ["/A", "/A/B"] || paths == ["/B", "/B/A"])
    #expect(conflicts.map(\.kind) == [.cycle])
}

@Test func foldersOfOneNameMadeOnBothMachinesBecomeOne() {
    let base = document([])
    let ours = document([folder(1, "Work"), recording(3, "o", in: id(1))])
    let theirs = document([folder(2, "Work"), recording(4, "t", in: id(2))])
    let (merged, conflicts) = merge(base, ours, theirs)
    #expect(merged.children(of: .root).map(\.name) == ["Work"])
    #expect(merged.path(of: id(3)) == "/Work/o" && merged.path(of: id(4)) == "/Work/t")
    #expect(conflicts.map(\.kind) == [.folderJoined])
}

@Test func recordingsOfOneNameInOneFolderOneIsRenamed() {
    let base = document([])
    let ours = document([recording(1, "memo")])
    let theirs = document([recording(2, "memo")])
    let (merged, conflicts) = merge(base, ours, theirs)
    #expect(Set(merged.children(of: .root).map(\.name)) == ["memo", "memo (2)"])
    #expect(conflicts.map(\.kind) == [.nameClash])
}

/// A seeded random property: every change made on either side survives per the rules, and
/// the merge does not depend on which side is ours but for the reported tie-breaks.
@Test func randomChangesOnBothSidesAreAllKept() {
    var rng = SplitMix(seed: 24)
    for _ in 0..<200 {
        let count = 12
        var baseRows: [Item] = []
        for n in 1...UInt64(count) { baseRows.append(recording(n, "r\(n)", Annotations(tags: ["t\(n % 3)"]))) }
        let base = document(baseRows)
        var oursRows = baseRows
        var theirsRows = baseRows
        // Disjoint kinds of change per item, so that no tie-break applies.
        for i in 0..<count {
            switch rng.next() % 4 {
            case 0:
                oursRows[i].annotations.tags.append("o")
                theirsRows[i].annotations.tags.append("x")
            case 1: oursRows[i].name += "-o"
            case 2: theirsRows[i].annotations.note = "t"
            default: break
            }
        }
        let forward = merge(base, document(oursRows), document(theirsRows)).document
        let backward = LibraryMerge.merge(base: base, ours: document(theirsRows), theirs: document(oursRows)).document
        #expect(forward == backward)
        for i in 0..<count {
            let item = forward[oursRows[i].id]!
            #expect(Set(oursRows[i].annotations.tags).isSubset(of: item.annotations.tags))
            #expect(Set(theirsRows[i].annotations.tags).isSubset(of: item.annotations.tags))
            #expect(item.name == oursRows[i].name)
            #expect(item.annotations.note == theirsRows[i].annotations.note)
        }
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

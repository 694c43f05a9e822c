import Foundation
import RecAudio
import RecStore
import RecTestSupport
import Testing

@testable import RecCore

/// Trim points as document data: in store.json as an optional field of the recording, in
/// the journal through the `annotated` step, so that undo, the trash, fsck and a rebuild
/// from the journal all carry them.
@Suite("Trim points")
struct TrimPointsTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
        let store = try DocumentStore(location: dir.location)
        try store.transaction { try Fixture.build(into: &$0) }
    }

    var store: DocumentStore { get throws { try DocumentStore(location: dir.location) } }
    var trim: TrimPoints? { get throws { try store.document[Fixture.standup]?.annotations.trim } }
    static let path = "/Work/Ideas/standup"

    @Test("set by time, kept in frames, written as a field of the recording and read back")
    func codec() throws {
        try store.transaction { try $0.setTrim(at: Self.path, in: "1.5", out: "-2s", from: .root) }
        #expect(try trim == TrimPoints(inFrame: 72_000, outFrame: 504_000))
        let text = String(decoding: try #require(dir.bytes("store.json")), as: UTF8.self)
        #expect(text.contains("\"trim\": {\"in\": 72000, \"out\": 504000}"), "\(text)")
        let document = try store.document
        let again = try DocumentCodec.encode(document).withUnsafeBufferPointer { try DocumentCodec.decode($0).0 }
        #expect(again == document)
        #expect(try store.document[Fixture.standup]!.playedRange == 72_000..<504_000)
        #expect(abs(try store.document[Fixture.standup]!.trimmedDuration - 9) < 1e-9)
    }

    @Test("a version-2 store without trim points reads as one with none; one written with them reads them")
    func versionTwo() throws {
        let id = "beef0000-0000-4000-8000-000000000004"
        func store(trim: String) -> String {
            """
            {
            "version": 2,
            "items": [
            {"uuid": "00000000-0000-0000-0000-000000000000", "type": "folder", "name": "Recordings", "parent": null, "created": "2023-11-14T22:13:20.000Z", "children": ["\(id)"]},
            {"uuid": "\(id)", "type": "recording", "name": "memo", "parent": "00000000-0000-0000-0000-000000000000", "created": "2023-11-14T22:13:20.000Z", "duration": 10, "frames": 480000, "sampleRate": 48000, "channels": 1, "format": "wav", "file": "\(id).wav", "tags": ["work"]\(trim)}
            ]
            }

            """
        }
        let old = try TemporaryDirectory()
        try old.write("store.json", Array(store(trim: "").utf8))
        let opened = try DocumentStore(location: old.location)
        #expect(opened.document[Fixture.standup]?.annotations.trim == nil)
        #expect(opened.document[Fixture.standup]?.annotations.tags == ["work"])
        try opened.transaction { try $0.setTrim(TrimPoints(inFrame: 100, outFrame: 200), at: "/memo", from: .root) }
        let reopened = try DocumentStore(location: old.location)
        #expect(reopened.document[Fixture.standup]?.annotations.trim == TrimPoints(inFrame: 100, outFrame: 200))
        #expect(reopened.document[Fixture.standup]?.annotations.tags == ["work"])

        let written = try TemporaryDirectory()
        try written.write("store.json", Array(store(trim: ", \"trim\": {\"in\": 4800, \"out\": 96000}").utf8))
        #expect(
            try DocumentStore(location: written.location).document[Fixture.standup]?.annotations.trim
                == TrimPoints(inFrame: 4800, outFrame: 96000))
        // Nonsense is refused with its position, as any corrupt field is.
        for bad in [
            ", \"trim\": {\"in\": 5, \"out\": 5}", ", \"trim\": {\"in\": -1, \"out\": 5}", ", \"trim\": {\"out\": 5}",
        ] {
            let reason = corruptReason(store(trim: bad))
            #expect(reason?.contains("trim needs frames") == true, "\(bad): \(reason ?? "")")
        }
    }

    @Test("undo takes a change back; the trash and a rebuild from the journal keep them")
    func undoTrashJournal() throws {
        try store.transaction { try $0.setTrim(at: Self.path, in: "1", out: "10", from: .root) }
        try store.transaction { try $0.setTrim(at: Self.path, in: "2", out: nil, from: .root) }
        #expect(try trim == TrimPoints(inFrame: 96_000, outFrame: 480_000))
        try store.undo()
        #expect(try trim == TrimPoints(inFrame: 48_000, outFrame: 480_000))
        try store.transaction { try $0.remove(Fixture.standup) }
        try store.transaction { try $0.restore(Fixture.standup) }
        #expect(try trim == TrimPoints(inFrame: 48_000, outFrame: 480_000))
        try store.transaction { try $0.setTrim(nil, at: Self.path, from: .root) }
        #expect(try trim == nil)
        try store.undo()
        #expect(try trim == TrimPoints(inFrame: 48_000, outFrame: 480_000))
        // store.json lost: fsck --repair replays the journal, trim points included.
        try FileManager.default.removeItem(atPath: dir.path + "/store.json")
        try FileManager.default.createDirectory(atPath: dir.location.audioDirectory, withIntermediateDirectories: true)
        let audio = try SoundFile.create(
            path: dir.location.audioPath("\(Fixture.standup).wav"), format: .wav, rate: 48000, channels: 1)
        var silence = [Int16](repeating: 0, count: 600_000)
        try silence.withUnsafeMutableBufferPointer { try audio.write($0.baseAddress!, frames: 600_000) }
        try audio.close()
        _ = try StoreCheck(location: dir.location).run(repair: true)
        #expect(try trim == TrimPoints(inFrame: 48_000, outFrame: 480_000))
    }

    @Test("bad points are usage errors and change nothing")
    func badPoints() throws {
        let before = dir.bytes("store.json")
        for (inTime, outTime) in [("5", "4"), ("5", "5"), ("0", "20"), ("13", nil), (nil, "1:00")]
            as [(String?, String?)]
        {
            let error = recError {
                _ = try store.transaction { try $0.setTrim(at: Self.path, in: inTime, out: outTime, from: .root) }
            }
            #expect(
                error?.kind == .usage,
                "\(String(describing: inTime)) \(String(describing: outTime)): \(String(describing: error))")
        }
        #expect(
            recError { _ = try store.transaction { try $0.setTrim(at: "/Work", in: "1", out: nil, from: .root) } }?.kind
                == .usage)
        #expect(
            recError {
                _ = try store.transaction {
                    try $0.setTrim(TrimPoints(inFrame: 0, outFrame: 600_001), at: Self.path, from: .root)
                }
            }?.kind == .usage)
        #expect(dir.bytes("store.json") == before)
    }

    @Test("fsck reports trim points past the end and clamps them")
    func fsck() throws {
        let frames = Fixture.info(Fixture.standup).frames
        try store.transaction {
            try $0.annotate(Fixture.standup, with: Annotations(trim: TrimPoints(inFrame: 1000, outFrame: frames + 500)))
        }
        let check = StoreCheck(location: dir.location)
        #expect(try check.run(repair: false).problems.contains(.trimPastEnd(path: Self.path)))
        let repaired = try check.run(repair: true)
        #expect(repaired.repairs.contains("clamped the trim points of \(Self.path) to its audio"))
        #expect(try trim == TrimPoints(inFrame: 1000, outFrame: frames))
        #expect(!(try check.run(repair: false)).problems.contains(.trimPastEnd(path: Self.path)))
        // Nothing left between them: removed.
        try store.transaction {
            try $0.annotate(
                Fixture.standup, with: Annotations(trim: TrimPoints(inFrame: frames + 10, outFrame: frames + 500)))
        }
        #expect(
            try check.run(repair: true).repairs.contains(
                "removed the trim points of \(Self.path), which were past its end"))
        #expect(try trim == nil)
    }

    @Test("--auto: the margin around the first and last region, inside the recording")
    func auto() {
        let regions: [Range<Int64>] = [48_000..<60_000, 100_000..<120_000]
        #expect(
            TrimPoints.around(speech: regions, margin: 0.3, sampleRate: 48_000, length: 200_000)
                == TrimPoints(inFrame: 33_600, outFrame: 134_400))
        #expect(
            TrimPoints.around(speech: [0..<10], margin: 0.3, sampleRate: 48_000, length: 20)
                == TrimPoints(inFrame: 0, outFrame: 20))
        #expect(TrimPoints.around(speech: [], margin: 0.3, sampleRate: 48_000, length: 20) == nil)
    }
}

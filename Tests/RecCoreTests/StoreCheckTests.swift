import Foundation
import RecAudio
import RecSystem
import RecTestSupport
import Testing

@testable import RecCore
@testable import RecStore

@Suite("fsck")
struct StoreCheckTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
        let store = try DocumentStore(location: dir.location)
        try store.transaction { try Fixture.build(into: &$0) }
    }

    var check: StoreCheck { StoreCheck(location: dir.location) }

    /// A one-second 440 Hz WAV written with libsndfile, as a real recording would be.
    func writeWAV(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: dir.location.audioDirectory, withIntermediateDirectories: true)
        let file = try SoundFile.create(path: dir.location.audioPath(name), format: .wav, rate: 8000, channels: 1)
        var samples = (0..<8000).map { Int16(8000 * sin(Double($0) * 2 * .pi * 440 / 8000)) }
        try samples.withUnsafeMutableBufferPointer { try file.write($0.baseAddress!, frames: 8000) }
        try file.close()
    }

    @Test("a store whose recording has no audio reports it, and repair cannot fix it")
    func missingAudio() throws {
        let report = try check.run(repair: false)
        #expect(
            report.problems == [.missingAudio(path: "/Work/Ideas/standup", file: Fixture.info(Fixture.standup).file)])
        let bytes = dir.bytes("store.json")
        let repaired = try check.run(repair: true)
        #expect(repaired.remaining == report.problems)
        #expect(dir.bytes("store.json") == bytes)
    }

    @Test("markers past a recording's end are reported, and repair moves them to the end")
    func markersPastEnd() throws {
        let store = try DocumentStore(location: dir.location)
        let frames = Fixture.info(Fixture.standup).frames
        try store.transaction {
            try $0.annotate(
                Fixture.standup,
                with: Annotations(markers: [
                    Marker(frame: 10, label: "in"), Marker(frame: frames + 5, label: "late"),
                    Marker(frame: frames * 2),
                ]))
        }
        let report = try check.run(repair: false)
        #expect(report.problems.contains(.markersPastEnd(path: "/Work/Ideas/standup", count: 2)))
        let repaired = try check.run(repair: true)
        #expect(repaired.repairs.contains("moved the markers past the end of /Work/Ideas/standup to its end"))
        let markers = try DocumentStore(location: dir.location).document[Fixture.standup]!.annotations.markers
        #expect(markers.map(\.frame) == [10, frames, frames])
        #expect(
            !(try check.run(repair: false)).problems.contains {
                if case .markersPastEnd = $0 { return true } else { return false }
            })
    }

    @Test("orphan audio is adopted into /Recovered, never deleted; garbage is only reported")
    func orphans() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        let orphanID = ItemID.random()
        try writeWAV("\(orphanID).wav")
        try dir.write("audio/garbage.opus", Array("not audio".utf8))
        #expect(
            try check.run(repair: false).problems == [
                .orphanAudio(file: "\(orphanID).wav"), .orphanAudio(file: "garbage.opus"),
            ])
        let report = try check.run(repair: true)
        #expect(report.repairs == ["adopted audio/\(orphanID).wav as /Recovered/\(orphanID)"])
        let document = try DocumentStore(location: dir.location).document
        let adopted = try #require(document[orphanID])
        #expect(document.path(of: orphanID) == "/Recovered/\(orphanID)")
        #expect(adopted.recording?.frames == 8000)
        #expect(adopted.recording?.sampleRate == 8000)
        #expect(dir.exists("audio/garbage.opus"))
        #expect(try check.run(repair: false).problems == [.orphanAudio(file: "garbage.opus")])
    }

    @Test("trashed recordings' audio is not orphaned")
    func trashKeepsAudio() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        let store = try DocumentStore(location: dir.location)
        try store.transaction { try $0.remove(Fixture.work) }
        #expect(try check.run(repair: false).problems == [])
    }

    @Test("duplicate names and a lost parent are repaired from parent pointers")
    func links() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        var text = String(decoding: dir.bytes("store.json")!, as: UTF8.self)
        // Rename Home to Work (a duplicate) and point Ideas at a parent that does not exist.
        text = text.replacingOccurrences(of: "\"name\": \"Home\"", with: "\"name\": \"Work\"")
        text = text.replacingOccurrences(
            of: "\"parent\": \"\(Fixture.work)\"", with: "\"parent\": \"99999999-0000-4000-8000-000000000000\"")
        try dir.write("store.json", Array(text.utf8))
        #expect(throws: RecError.self) { _ = try DocumentStore(location: dir.location) }

        let report = try check.run(repair: false)
        #expect(report.problems.count >= 2)
        #expect(report.problems.allSatisfy { if case .link = $0 { return true } else { return false } })
        _ = try check.run(repair: true)
        let document = try DocumentStore(location: dir.location).document
        #expect(document.children(of: .root).map(\.name).sorted() == ["Recovered", "Work", "Work (2)"])
        #expect(document.path(of: Fixture.standup) == "/Recovered/Ideas/standup")
        #expect(try check.run(repair: false).problems == [])
    }

    @Test("a recording left in progress by a dead process is reported, and recovered on repair")
    func staleRecording() throws {
        let id = ItemID.random()
        try writeWAV(Fixture.info(Fixture.standup).file)
        try writeWAV("\(id).wav")
        let library = try Library(location: dir.location)
        let entry = ViewState.RecordingInProgress(
            id: id, parent: Fixture.home, name: "memo", file: "\(id).wav", format: .wav,
            sampleRate: 8000, channels: 1, pid: 999_999, started: .now())
        try library.viewState.transaction { $0.recordingStarted(entry) }
        let report = try check.run(repair: false, isAlive: { _ in false })
        #expect(report.problems == [.staleRecording(name: "memo", pid: 999_999, file: "\(id).wav")])
        var repaired = StoreCheck.Report(problems: [], repairs: [], remaining: [])
        try StoreCheck.repairViewState(try Library(location: dir.location), into: &repaired)
        let notes = repaired.repairs
        #expect(notes.count == 1)
        let document = try DocumentStore(location: dir.location).document
        #expect(document.path(of: id) == "/Home/memo (recovered)")
        #expect(try check.run(repair: false).problems == [])
    }

    @Test("a view state pointing at removed folders is reported and trimmed")
    func danglingViewState() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        let library = try Library(location: dir.location)
        try library.viewState.transaction { $0.navigate(to: [.root, Fixture.work, Fixture.ideas]) }
        // Removed behind the library's back (a library trims the view state with the change).
        try DocumentStore(location: dir.location).transaction { try $0.remove(Fixture.ideas, permanently: true) }
        #expect(
            try check.run(repair: false).problems == [
                .danglingViewState("the folder stack points at folders that no longer exist there")
            ])
        var repaired = StoreCheck.Report(problems: [], repairs: [], remaining: [])
        try StoreCheck.repairViewState(try Library(location: dir.location), into: &repaired)
        let notes = repaired.repairs
        #expect(notes == ["trimmed the view state to folders and recordings that exist"])
        #expect(try Library(location: dir.location).viewState.state.folderStack == [.root, Fixture.work])
        #expect(try check.run(repair: false).problems == [])
    }
}

extension StoreCheckTests {
    @Test("temporary files of an interrupted write are reported, and removed on repair")
    func strayTemporaries() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        let before = dir.bytes("store.json")
        try dir.write(".store.json.tmp-999999", Array("{half a sto".utf8))
        try dir.write(".viewstate.json.tmp-999998", Array("{".utf8))
        let report = try check.run(repair: false, isAlive: { _ in false })
        #expect(
            report.problems == [
                .strayTemporary(file: ".store.json.tmp-999999"), .strayTemporary(file: ".viewstate.json.tmp-999998"),
            ])
        let repaired = try check.run(repair: true, isAlive: { _ in false })
        #expect(repaired.repairs == ["removed .store.json.tmp-999999", "removed .viewstate.json.tmp-999998"])
        #expect(!dir.exists(".store.json.tmp-999999"))
        #expect(dir.bytes("store.json") == before)
        #expect(try check.run(repair: false).problems == [])
    }
}

extension StoreCheckTests {
    @Test("an import's temporary file in audio/ is a stray once its pid is gone, and only then")
    func strayImportTemporaries() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        try dir.write("audio/.import-4242-0123456789ab.opus", Array("half".utf8))
        try dir.write("audio/.\(Fixture.standup).wav.tmp-4243", Array("half".utf8))
        #expect(try check.run(repair: false, isAlive: { _ in true }).problems == [])
        let report = try check.run(repair: false, isAlive: { $0 != 4242 && $0 != 4243 })
        #expect(
            report.problems == [
                .strayTemporary(file: "audio/.\(Fixture.standup).wav.tmp-4243"),
                .strayTemporary(file: "audio/.import-4242-0123456789ab.opus"),
            ])
        _ = try check.run(repair: true, isAlive: { _ in false })
        #expect(!dir.exists("audio/.import-4242-0123456789ab.opus"))
        #expect(!dir.exists("audio/.\(Fixture.standup).wav.tmp-4243"))
    }

    @Test("an empty orphan audio file is reported, and removed by repair rather than adopted")
    func emptyOrphan() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        try dir.write("audio/\(ItemID.random()).opus", [])
        #expect(try check.run(repair: false).problems.count == 1)
        _ = try check.run(repair: true)
        #expect(try check.run(repair: false).problems == [])
        #expect(
            try DocumentStore(location: dir.location).document.child(named: StoreCheck.recoveredFolder, in: .root)
                == nil)
    }
}

extension StoreCheckTests {
    @Test("temporary-file names that embed a pid, and only those")
    func temporaryFileOwners() {
        #expect(StoreCheck.temporaryFileOwner(".store.json.tmp-123") == 123)
        #expect(StoreCheck.temporaryFileOwner(".import-77-0123456789ab.flac") == 77)
        #expect(StoreCheck.temporaryFileOwner("store.json") == nil)
        #expect(StoreCheck.temporaryFileOwner(".import-x-0123.opus") == nil)
        #expect(StoreCheck.temporaryFileOwner(".notes.tmp-") == nil)
        #expect(StoreCheck.temporaryFileOwner(".\(Fixture.standup).opus.recovering") == nil)
    }

    @Test("a lost store.json is rebuilt from the journal: names, folders, moves; unknown audio into /Recovered")
    func rebuildFromJournal() throws {
        try writeWAV(Fixture.info(Fixture.standup).file.replacingOccurrences(of: ".opus", with: ".wav"))
        let store = try DocumentStore(location: dir.location)
        try store.transaction { try $0.move(Fixture.ideas, into: Fixture.home, name: "Thoughts") }
        let stranger = ItemID.random()
        try writeWAV("\(stranger).wav")
        try FileManager.default.removeItem(atPath: dir.location.storeFile)
        #expect(
            recError { _ = try DocumentStore(location: dir.location) }?.description.contains("fsck --repair") == true)
        #expect(!dir.exists("store.json"))
        #expect(try check.run(repair: false).problems.first == .missingStore)
        let report = try check.run(repair: true)
        #expect(report.remaining == [])
        let document = try DocumentStore(location: dir.location).document
        #expect(document.path(of: Fixture.standup) == "/Home/Thoughts/standup")
        #expect(document[Fixture.standup]?.recording?.frames == 8000)
        #expect(document.path(of: Fixture.work) == "/Work")
        #expect(document[Fixture.work]?.created == Fixture.created)
        #expect(document.path(of: stranger) == "/Recovered/\(stranger)")
    }

    @Test("a store.json cut short is kept aside and rebuilt from its whole lines, the journal and the audio")
    func rebuildFromBrokenFile() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        let store = try DocumentStore(location: dir.location)
        try store.transaction {
            try $0.annotate(Fixture.standup, with: Annotations(note: "kept", tags: ["q3"]))
        }
        // No journal: only the broken file's lines know the names and the note.
        try FileManager.default.removeItem(atPath: store.journal.path)
        let bytes = try #require(dir.bytes("store.json"))
        let text = String(decoding: bytes, as: UTF8.self)
        let standupLine = try #require(text.range(of: "\"name\": \"standup\""))
        let lineEnd = try #require(text[standupLine.upperBound...].firstIndex(of: "\n"))
        // Cut just after the recording's line (the last item's): the array is never closed.
        let cut = text.utf8.distance(from: text.startIndex, to: lineEnd) + 1
        let broken = Array(bytes.prefix(cut))
        try dir.write("store.json", broken)

        let found = try check.run(repair: false)
        guard case .brokenStore(let reason)? = found.problems.first else {
            Issue.record("not reported as broken: \(found.problems)")
            return
        }
        #expect(reason.hasPrefix("corrupt JSON at line "))
        #expect(found.remaining == found.problems)
        #expect(dir.bytes("store.json") == broken)

        let report = try check.run(repair: true)
        let aside = try #require(
            try FileManager.default.contentsOfDirectory(atPath: dir.location.directory).first {
                $0.hasPrefix("store.json.broken-")
            })
        #expect(dir.bytes(aside) == broken)
        #expect(report.repairs.first == "moved the broken store.json aside as \(aside), which is kept as it was")
        #expect(report.remaining == [])
        let document = try DocumentStore(location: dir.location).document
        #expect(document.path(of: Fixture.standup) == "/Work/Ideas/standup")
        #expect(document[Fixture.standup]?.annotations.note == "kept")
        #expect(document[Fixture.standup]?.annotations.tags == ["q3"])
        #expect(try check.run(repair: false).problems == [])
    }

    @Test("an older store's missing analysis is information: fsck stays clean and --repair measures it")
    func missingAnalysisIsInformation() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        // As a version-2 store has it: no "analysis".
        let text = String(decoding: try #require(dir.bytes("store.json")), as: UTF8.self)
        let older = text.replacingOccurrences(
            of: #", "analysis": \{[^{}]*(\{[^{}]*\})?\}"#, with: "", options: .regularExpression)
        try dir.write("store.json", Array(older.utf8))
        let store = try DocumentStore(location: dir.location)
        #expect(store.document[Fixture.standup]?.recording?.analysis == nil)
        let report = try check.run(repair: false)
        #expect(report.problems.count == 1 && report.problems.first?.severity == .information, "\(report.problems)")
        #expect(report.remaining == [])
        let repaired = try check.run(repair: true)
        #expect(repaired.repairs == ["measured and stored the levels and waveform of 1 recording"])
        #expect(try check.run(repair: false).problems == [])
    }

    @Test("an older store's missing loudness is information: fsck stays clean and --repair measures it")
    func missingLoudnessIsInformation() throws {
        try writeWAV(Fixture.info(Fixture.standup).file)
        // As a version-4 store has it: an analysis without "loudness".
        let text = String(decoding: try #require(dir.bytes("store.json")), as: UTF8.self)
        let older = text.replacingOccurrences(of: #", "loudness": \{[^{}]*\}"#, with: "", options: .regularExpression)
        #expect(older != text)
        try dir.write("store.json", Array(older.utf8))
        let report = try check.run(repair: false)
        #expect(report.problems == [.missingLoudness(paths: ["/Work/Ideas/standup"])], "\(report.problems)")
        #expect(report.problems.first?.severity == .information && report.remaining == [])
        let repaired = try check.run(repair: true)
        #expect(repaired.repairs == ["measured and stored the loudness of 1 recording"], "\(repaired.repairs)")
        // The tone's, measured from the file: a 440 Hz sine of peak -12.24 dBFS is -15.25 dBFS
        // RMS, -15.94 LUFS before K-weighting (which lifts 440 Hz a little); steady, so 0 LU.
        let loudness = try #require(
            try DocumentStore(location: dir.location).document[Fixture.standup]?.recording?.analysis?.loudness)
        #expect(
            abs(loudness.integrated - -15.9) < 0.5 && loudness.range < 0.5 && abs(loudness.truePeak - -12.2) < 0.3,
            "\(loudness)")
        #expect(try check.run(repair: false).problems == [])
    }
}

import Foundation
import RecSystem
import RecTestSupport
import RecValues
import Testing

@testable import RecStore

final class ViewStateLog {
    var actions: [ViewStateStore.Action] = []
    var states: [ViewState] = []

    init(_ store: ViewStateStore) {
        store.observe { [unowned self] action, state in
            actions.append(action)
            states.append(state)
        }
    }
}

@Suite("View-state store")
struct ViewStateStoreTests {
    let dir: TemporaryDirectory
    let store: ViewStateStore
    let log: ViewStateLog

    init() throws {
        dir = try TemporaryDirectory()
        store = try ViewStateStore(location: dir.location)
        log = ViewStateLog(store)
    }

    func reopened() throws -> ViewStateStore { try ViewStateStore(location: dir.location) }

    let a = ItemID("aaaaaaaa-0000-4000-8000-000000000001")!
    let b = ItemID("bbbbbbbb-0000-4000-8000-000000000002")!
    let c = ItemID("cccccccc-0000-4000-8000-000000000003")!

    func entry() -> ViewState.RecordingInProgress {
        .init(
            id: c, parent: a, name: "take \"1\"", file: "\(c).flac", format: .flac, sampleRate: 44100,
            channels: 2, pid: 4242, started: Timestamp(millisecondsSinceEpoch: 1_700_000_000_123))
    }

    @Test("a missing file gives the root folder and no warning")
    func missingFile() throws {
        #expect(store.state == ViewState())
        #expect(store.state.folderStack == [.root])
        #expect(store.warnings.isEmpty)
        #expect(!dir.exists("viewstate.json"))
    }

    @Test("pushFolder and popFolder change the stack, persist, and notify")
    func pushAndPop() throws {
        try store.transaction { $0.pushFolder(a) }
        try store.transaction { $0.pushFolder(b) }
        #expect(store.state.folderStack == [.root, a, b])
        #expect(try reopened().state.folderStack == [.root, a, b])
        try store.transaction { $0.popFolder() }
        #expect(log.actions == [.pushFolder(a), .pushFolder(b), .popFolder(b)])
        #expect(log.states.map(\.currentFolder) == [a, b, a])
        #expect(try reopened().state.folderStack == [.root, a])
    }

    @Test("popping at the root does nothing and writes nothing")
    func popAtRoot() throws {
        try store.transaction { $0.popFolder() }
        #expect(log.actions.isEmpty)
        #expect(!dir.exists("viewstate.json"))
        #expect(store.state.folderStack == [.root])
    }

    @Test("navigate is the pops and pushes from the current stack to the target")
    func navigate() throws {
        try store.transaction { $0.navigate(to: [.root, a, b]) }
        #expect(log.actions == [.pushFolder(a), .pushFolder(b)])
        try store.transaction { $0.navigate(to: [.root, c]) }
        #expect(log.actions.dropFirst(2) == [.popFolder(b), .popFolder(a), .pushFolder(c)])
        try store.transaction { $0.navigate(to: [.root, c]) }
        #expect(log.actions.count == 5)
        try store.transaction { $0.navigate(to: [.root]) }
        #expect(log.actions.last == .popFolder(c))
        #expect(try reopened().state.folderStack == [.root])
    }

    @Test("selectRecording, and the play position written by the player's acknowledgement alone")
    func selection() throws {
        try store.transaction { $0.acknowledgeControl(of: .playback, through: 0, paused: false, position: 3) }
        #expect(log.actions.isEmpty, "nothing playing, no position")
        try store.transaction { $0.selectRecording(c, position: 1.5) }
        let playback = ViewState.Playback(id: c, pid: 4242, started: .now())
        try store.transaction { $0.playbackStarted(playback) }
        try store.transaction { $0.acknowledgeControl(of: .playback, through: 0, paused: false, position: 42.25) }
        #expect(
            log.actions == [
                .selectRecording(c), .playbackStarted(playback),
                .controlAcknowledged(.playback, through: 0, paused: false, position: 42.25),
            ])
        #expect(store.state.selection == .init(recording: c, position: 42.25))
        #expect(store.state.position(of: .playback) == 42.25)
        #expect(try reopened().state.selection == .init(recording: c, position: 42.25))
        try store.transaction { $0.playbackEnded() }
        try store.transaction { $0.selectRecording(nil) }
        #expect(log.actions.last == .selectRecording(nil))
        #expect(try reopened().state.selection == nil)
    }

    @Test("the acknowledgement stamps when the position was reported, and the file keeps it")
    func reportTime() throws {
        try store.transaction { $0.selectRecording(c, position: 0) }
        try store.transaction { $0.playbackStarted(ViewState.Playback(id: c, pid: 4242, started: .now())) }
        let before = Timestamp.now()
        try store.transaction { $0.acknowledgeControl(of: .playback, through: 0, paused: false, position: 2) }
        let stamped = try #require(store.state.playing?.control.reportedAt)
        #expect(stamped >= before && stamped <= Timestamp.now())
        #expect(try reopened().state.playing?.control.reportedAt == stamped)
    }

    @Test("a running job's position is carried forward on the clock since its report; a paused one's is not")
    func carriedPosition() {
        let reported = Timestamp(millisecondsSinceEpoch: 1_000_000)
        func at(_ ms: Int64) -> Timestamp { Timestamp(millisecondsSinceEpoch: 1_000_000 + ms) }
        let running = ViewState.Control(paused: false, reportedAt: reported)
        // Readings 0.3 s apart differ by 0.3 s, not by 0 until the next report.
        #expect(abs(running.position(2, at: at(300)) - 2.3) < 1e-9)
        #expect(abs(running.position(2, at: at(600)) - running.position(2, at: at(300)) - 0.3) < 1e-9)
        // Never further than one report period and some slack: a stopped job does not run on.
        #expect(running.position(2, at: at(60_000)) == 2 + ViewState.Control.carryAllowance)
        // A clock that went back never moves the time back.
        #expect(running.position(2, at: at(-5_000)) == 2)
        // Paused: exactly where it paused. Unknown report time (an older file): as reported.
        #expect(ViewState.Control(paused: true, reportedAt: reported).position(2, at: at(900)) == 2)
        #expect(ViewState.Control(paused: false).position(2, at: at(900)) == 2)
    }

    @Test(
        "a watcher without inotify still sees a change, by looking, and still wakes and stops",
        arguments: [ViewStateWatcher.Source.inotify, .looking])
    func watcherWithAndWithoutInotify(source: ViewStateWatcher.Source) throws {
        let watcher = try ViewStateWatcher(location: dir.location, source: source)
        try store.transaction { $0.pushFolder(a) }
        #expect(watcher.wait(milliseconds: 5000) == .changed)
        watcher.wake()
        #expect(watcher.wait(milliseconds: 5000) == .woken)
        watcher.stop()
        #expect(watcher.wait(milliseconds: 5000) == .stopped)
    }

    @Test("a player whose recording is no longer the selection does not move the selection's position")
    func staleSelection() throws {
        try store.transaction { $0.selectRecording(b, position: 7) }
        try store.transaction { $0.playbackStarted(.init(id: c, pid: 4242, started: .now())) }
        try store.transaction { $0.acknowledgeControl(of: .playback, through: 0, paused: false, position: 42) }
        #expect(store.state.selection == .init(recording: b, position: 7))
        #expect(store.state.position(of: .playback) == nil)
    }

    @Test("a recorder's position is its entry's, and round-trips")
    func recordingPosition() throws {
        let entry = ViewState.RecordingInProgress(
            id: c, parent: .root, name: "n", file: "f.opus", format: .opus,
            sampleRate: 48000, channels: 1, pid: 4242, started: .now())
        try store.transaction { $0.recordingStarted(entry) }
        try store.transaction { $0.acknowledgeControl(of: .recording, through: 0, paused: true, position: 12.5) }
        #expect(try reopened().state.position(of: .recording) == 12.5)
        #expect(try reopened().state.recording?.control.paused == true)
    }

    @Test("recordingStarted and recordingEnded")
    func recordingInProgress() throws {
        try store.transaction { $0.recordingEnded() }
        #expect(log.actions.isEmpty)
        try store.transaction { $0.recordingStarted(entry()) }
        #expect(log.actions == [.recordingStarted(entry())])
        #expect(try reopened().state.recording == entry())
        try store.transaction { $0.recordingEnded() }
        #expect(log.actions.last == .recordingEnded(c))
        #expect(try reopened().state.recording == nil)
    }

    @Test("a recording's markers live in its entry, round-trip, and an entry written before them reads with none")
    func recordingMarkers() throws {
        try store.transaction { $0.recordingStarted(entry()) }
        // An entry written before markers: no "markers" key.
        let old = String(decoding: try #require(try FileSystem.read(dir.location.viewStateFile)), as: UTF8.self)
        #expect(!old.contains("markers"))
        let markers = [Marker(frame: 96_000, label: "idée \"1\""), Marker(frame: 10, label: "")]
        try store.transaction { vs in for marker in markers { vs.markRecording(c, marker) } }
        try store.transaction { $0.markRecording(a, Marker(frame: 1)) }  // not the recording in progress: ignored
        #expect(log.actions.suffix(2) == [.recordingMarked(c, markers[0]), .recordingMarked(c, markers[1])])
        #expect(try reopened().state.recording?.markers == markers)
        try old.write(toFile: dir.location.viewStateFile, atomically: true, encoding: .utf8)
        #expect(try reopened().state.recording == entry())
        #expect(try reopened().warnings.isEmpty)
        // A marker with a negative frame is a corrupt file, rebuilt with a warning.
        try old.replacingOccurrences(
            of: "\"control\"", with: "\"markers\": [{\"frame\": -1, \"label\": \"\"}], \"control\""
        )
        .write(toFile: dir.location.viewStateFile, atomically: true, encoding: .utf8)
        #expect(try reopened().warnings.count == 1)
    }

    @Test("a recording's enhancement lives in its entry and round-trips; an entry without one reads as off")
    func recordingEnhancement() throws {
        try store.transaction { $0.recordingStarted(entry()) }
        let plain = String(decoding: try #require(try FileSystem.read(dir.location.viewStateFile)), as: UTF8.self)
        #expect(!plain.contains("enhance"))
        for enhance in [Enhancement.all, Enhancement(level: true), Enhancement(denoise: true)] {
            var enhanced = entry()
            enhanced.enhance = enhance
            try store.transaction { vs in
                vs.recordingEnded()
                vs.recordingStarted(enhanced)
            }
            #expect(try reopened().state.recording == enhanced)
            #expect(try reopened().state.recording?.enhance == enhance)
        }
        // One written before enhancements were kept in it: off.
        try plain.write(toFile: dir.location.viewStateFile, atomically: true, encoding: .utf8)
        #expect(try reopened().state.recording?.enhance == .off)
        #expect(try reopened().warnings.isEmpty)
    }

    @Test("a throwing transaction changes nothing")
    func throwing() throws {
        try store.transaction { $0.pushFolder(a) }
        let before = dir.bytes("viewstate.json")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.transaction { tx in
                tx.pushFolder(b)
                throw Stop()
            }
        }
        #expect(dir.bytes("viewstate.json") == before)
        #expect(log.actions == [.pushFolder(a)])
        #expect(store.state.folderStack == [.root, a])
    }

    @Test("the file round-trips every field")
    func roundTrip() throws {
        let state = ViewState(
            folderStack: [.root, a, b], selection: .init(recording: c, position: 0.1),
            recording: entry())
        let bytes = ViewStateCodec.encode(state)
        let decoded = try bytes.withUnsafeBufferPointer { try ViewStateCodec.decode($0) }
        #expect(decoded == state)
        let json = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        #expect(json?["version"] as? Int == 1)
        #expect((json?["folderStack"] as? [String])?.count == 3)
    }

    @Test("the speed is kept: set, acknowledged by a player, round-tripped; a file without it reads as 1×")
    func speedKept() throws {
        let state = ViewState(speed: PlaybackSpeed(factor: 1.75)!)
        #expect(try ViewStateCodec.encode(state).withUnsafeBufferPointer { try ViewStateCodec.decode($0) } == state)
        try store.transaction { $0.setSpeed(PlaybackSpeed(factor: 1.5)!) }
        #expect(log.actions == [.speedSet(PlaybackSpeed(factor: 1.5)!)])
        #expect(try reopened().state.speed == PlaybackSpeed(factor: 1.5))
        // A recorder's acknowledgement carries no speed; a player's does.
        try store.transaction { $0.selectRecording(c, position: 0) }
        try store.transaction { $0.playbackStarted(ViewState.Playback(id: c, pid: 4242, started: .now())) }
        try store.transaction {
            $0.acknowledgeControl(of: .playback, through: 0, paused: false, position: 1, speed: .normal)
        }
        #expect(try reopened().state.speed == .normal)
        // A file from before the speed was kept: no "speed" key, 1×, no warning.
        try store.transaction { $0.setSpeed(PlaybackSpeed(factor: 2)!) }
        let text = String(decoding: try #require(try FileSystem.read(dir.location.viewStateFile)), as: UTF8.self)
        #expect(text.contains("\"speed\": 2"))
        try text.replacingOccurrences(of: "\"speed\": 2,", with: "")
            .write(toFile: dir.location.viewStateFile, atomically: true, encoding: .utf8)
        let old = try reopened()
        #expect(old.state.speed == .normal)
        #expect(old.warnings.isEmpty)
        #expect(old.state.selection?.recording == c)
    }

    @Test("speed commands queued for a player round-trip")
    func speedCommands() throws {
        let pending: [ViewState.ControlCommand] = [
            .init(sequence: 1, action: .speed(to: 1.5)), .init(sequence: 2, action: .speedBy(-0.25)),
        ]
        let playback = ViewState.Playback(
            id: c, pid: 4242, started: .now(), control: .init(pending: pending, lastSequence: 2))
        let state = ViewState(playing: playback)
        #expect(try ViewStateCodec.encode(state).withUnsafeBufferPointer { try ViewStateCodec.decode($0) } == state)
    }

    @Test("a playback's position is carried at its speed")
    func carriedAtSpeed() {
        let control = ViewState.Control(paused: false, reportedAt: Timestamp(millisecondsSinceEpoch: 1_000_000))
        #expect(abs(control.position(2, at: Timestamp(millisecondsSinceEpoch: 1_000_400), speed: 2) - 2.8) < 1e-9)
    }

    @Test("a recording to --output round-trips with its output and no file; others have no output key")
    func outputRoundTrip() throws {
        for output in ["-", "/tmp/live take.wav"] {
            let entry = ViewState.RecordingInProgress(
                id: c, parent: .root, name: output, file: "", output: output, format: nil,
                sampleRate: 8000, channels: 1, pid: 77, started: Timestamp(millisecondsSinceEpoch: 5))
            let bytes = ViewStateCodec.encode(ViewState(recording: entry))
            #expect(try bytes.withUnsafeBufferPointer { try ViewStateCodec.decode($0) }.recording == entry)
            let json = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            #expect((json?["recording"] as? [String: Any])?["output"] as? String == output)
        }
        let plain = ViewStateCodec.encode(ViewState(recording: entry()))
        #expect(!String(decoding: plain, as: UTF8.self).contains("\"output\""))
    }

    @Test(
        "a recording entry must name a file in audio/ or, alone, an output that is - or absolute",
        arguments: [
            (#""file": "x.wav", "output": "-""#, "a file and an output"),
            (#""file": "", "output": "relative.wav""#, "a relative output"),
            (#""file": "", "output": """#, "an empty output"),
            (#""file": """#, "no file and no output"),
        ])
    func badOutputEntries(fields: String, what: String) throws {
        let text =
            #"{"version": 1, "folderStack": [], "recording": {"uuid": "\#(c)", "parent": "\#(ItemID.root)", "name": "n", "#
            + fields
            + #", "format": "wav", "sampleRate": 8000, "channels": 1, "pid": 5, "started": "2026-01-01T00:00:00.000Z"}}"#
        #expect(throws: JSONReader.Failure.self, "\(what)") {
            _ = try Array(text.utf8).withUnsafeBufferPointer { try ViewStateCodec.decode($0) }
        }
    }

    @Test(
        "a corrupt file is rebuilt with one warning that names it, once",
        arguments: [
            "{\"version\": 1, \"folderStack\": [",
            "garbage",
            "{\"version\": 99, \"folderStack\": []}",
            "{\"folderStack\": []}",
            "{\"version\": 1, \"folderStack\": [\"not-a-uuid\"]}",
        ])
    func corrupt(text: String) throws {
        try dir.write("viewstate.json", Array(text.utf8))
        let loaded = try reopened()
        #expect(loaded.state == ViewState())
        #expect(loaded.warnings.count == 1)
        let warning = try #require(loaded.warnings.first)
        #expect(warning.hasPrefix(dir.location.viewStateFile + ": corrupt at line "))
        #expect(!warning.contains("\n"))
        // Rewritten, so the next load is quiet.
        #expect(try reopened().warnings.isEmpty)
        #expect(dir.bytes("viewstate.json") == ViewStateCodec.encode(ViewState()))
    }

    @Test("the view-state store never creates or touches store.json")
    func leavesStoreAlone() throws {
        try dir.write("viewstate.json", Array("nope".utf8))
        try dir.write("store.json", Array("not even JSON".utf8))
        _ = try reopened()
        try reopened().transaction { $0.pushFolder(a) }
        #expect(dir.bytes("store.json") == Array("not even JSON".utf8))
    }
}

@Suite("View-state restoration")
struct ViewStateRestorationTests {
    @Test("an intact stack is kept")
    func intact() throws {
        let document = try Fixture.document()
        let state = ViewState(folderStack: [.root, Fixture.work, Fixture.ideas])
        #expect(state.restored(against: document) == state)
    }

    @Test("a removed folder trims the stack to the deepest folder that still exists")
    func removed() throws {
        var tx = DocumentStore.Transaction(document: try Fixture.document())
        try tx.remove(Fixture.ideas)
        let state = ViewState(folderStack: [.root, Fixture.work, Fixture.ideas])
        #expect(state.restored(against: tx.document).folderStack == [.root, Fixture.work])
        try tx.remove(Fixture.work)
        #expect(state.restored(against: tx.document).folderStack == [.root])
        #expect(state.restored(against: tx.document).currentFolder == .root)
    }

    @Test("a moved folder is followed to where it is now")
    func moved() throws {
        var tx = DocumentStore.Transaction(document: try Fixture.document())
        try tx.move(Fixture.ideas, into: Fixture.home, name: "Ideas")
        let state = ViewState(folderStack: [.root, Fixture.work, Fixture.ideas])
        #expect(state.restored(against: tx.document).folderStack == [.root, Fixture.home, Fixture.ideas])
        // Moved out from under a folder that was then removed.
        try tx.remove(Fixture.work)
        #expect(state.restored(against: tx.document).folderStack == [.root, Fixture.home, Fixture.ideas])
    }

    @Test("a recording on the stack is skipped, and a vanished selection is dropped")
    func recordingsAndSelection() throws {
        var tx = DocumentStore.Transaction(document: try Fixture.document())
        let state = ViewState(
            folderStack: [.root, Fixture.work, Fixture.ideas, Fixture.standup],
            selection: .init(recording: Fixture.standup, position: 4))
        let kept = state.restored(against: tx.document)
        #expect(kept.folderStack == [.root, Fixture.work, Fixture.ideas])
        #expect(kept.selection == .init(recording: Fixture.standup, position: 4))
        try tx.remove(Fixture.standup)
        #expect(state.restored(against: tx.document).selection == nil)
        // A selection that names a folder is no selection either.
        let folderSelected = ViewState(selection: .init(recording: Fixture.home, position: 0))
        #expect(folderSelected.restored(against: tx.document).selection == nil)
    }
}

@Suite("View state follows the documents")
struct ViewStateFollowsDocumentsTests {
    @Test("a change that removes or moves a folder on the stack, or the selection, trims the view state with it")
    func trimmedWithTheChange() throws {
        let dir = try TemporaryDirectory()
        let library = try Library(location: dir.location)
        try library.documents.transaction { try Fixture.build(into: &$0) }
        try library.viewState.transaction {
            $0.navigate(to: [.root, Fixture.work, Fixture.ideas])
            $0.selectRecording(Fixture.standup)
        }
        try library.documents.transaction { try $0.move(Fixture.ideas, into: Fixture.home, name: "Ideas") }
        #expect(try ViewStateStore(location: dir.location).state.folderStack == [.root, Fixture.home, Fixture.ideas])
        try library.documents.transaction { try $0.remove(Fixture.home) }
        let state = try ViewStateStore(location: dir.location).state
        #expect(state.folderStack == [.root])
        #expect(state.selection == nil)
    }
}

import RecStore
import RecTestSupport
import RecValues
import Testing

@testable import RecCore

/// `browse` without a terminal: the reducer's decisions and effects, and the frames the view
/// draws, as plain text.
@Suite("Browse: update and view")
struct BrowseTests {
    static func state(width: Int = 80, height: Int = 24, folder: ItemID = .root, selected: ItemID? = nil) throws
        -> BrowseState
    {
        BrowseState(width: width, height: height, document: try Fixture.document(), folder: folder, selected: selected)
    }

    /// Sends each message in turn; the effects of all of them.
    @discardableResult
    static func send(_ state: inout BrowseState, _ messages: BrowseMessage...) -> [BrowseEffect] {
        var effects: [BrowseEffect] = []
        for message in messages {
            let (next, more) = BrowseUpdate.update(state, message)
            state = next
            effects += more
        }
        return effects
    }

    static func type(_ state: inout BrowseState, _ text: String) -> [BrowseEffect] {
        var effects: [BrowseEffect] = []
        for character in text {
            effects += send(&state, .key(character == " " ? .space : .character(String(character))))
        }
        return effects
    }

    @Test("it starts in the view state's folder with its selected recording under the cursor")
    func startsWhereTheViewStateIs() throws {
        let state = try Self.state(folder: Fixture.ideas, selected: Fixture.standup)
        #expect(state.rows.map(\.name) == ["standup"])
        #expect(state.selected?.id == Fixture.standup)
        // A folder that is gone (or a recording's id) starts at the root.
        #expect(try Self.state(folder: Fixture.standup).folder == .root)
    }

    @Test("j/k move, Enter opens a folder, h goes back up onto it; each folder change is kept in the view state")
    func navigation() throws {
        var state = try Self.state()
        #expect(state.rows.map(\.name) == ["Home", "Work"])
        #expect(Self.send(&state, .key(.character("j"))).isEmpty)
        #expect(state.selected?.name == "Work")
        #expect(Self.send(&state, .key(.down)).isEmpty)
        #expect(state.cursor == 1, "the cursor stops at the last row")
        #expect(Self.send(&state, .key(.enter)) == [.keepPlace(folderStack: [.root, Fixture.work], selected: nil)])
        #expect(state.rows.map(\.name) == ["Ideas"])
        let effects = Self.send(&state, .key(.enter))
        #expect(
            effects == [
                .keepPlace(folderStack: [.root, Fixture.work, Fixture.ideas], selected: Fixture.standup),
                .loadDetails(Fixture.standup),
            ])
        #expect(Self.send(&state, .key(.backspace)) == [.keepPlace(folderStack: [.root, Fixture.work], selected: nil)])
        #expect(state.selected?.id == Fixture.ideas, "back up, the cursor is on the folder we came from")
        _ = Self.send(&state, .key(.character("h")))
        #expect(state.folder == .root)
        #expect(Self.send(&state, .key(.character("h"))).isEmpty, "the root has no parent")
    }

    @Test("Enter on a recording plays it; the player's keys go to it, or to another process's job, or say why not")
    func playerKeys() throws {
        var state = try Self.state(folder: Fixture.ideas, selected: Fixture.standup)
        #expect(Self.send(&state, .key(.enter)).first == .play(Fixture.standup))
        #expect(Self.send(&state, .key(.space)).isEmpty)
        #expect(state.message?.text == "nothing is playing or recording")
        _ = Self.send(
            &state, .playing(.init(id: Fixture.standup, frames: 48000, end: 600_000, sampleRate: 48000, paused: false)))
        #expect(Self.send(&state, .key(.space)) == [.player(.toggle)])
        #expect(Self.send(&state, .key(.left)) == [.player(.skip(by: -5))])
        #expect(Self.send(&state, .key(.right)) == [.player(.skip(by: 5))])
        #expect(Self.send(&state, .key(.character("]"))) == [.seekMark(forward: true)])
        #expect(Self.send(&state, .key(.character("["))) == [.seekMark(forward: false)])
        #expect(Self.send(&state, .key(.character("m"))) == [.player(.mark(label: ""))])
        #expect(Self.send(&state, .key(.character("}"))) == [.player(.speedBy(0.25))])
        #expect(Self.send(&state, .key(.character("{"))) == [.player(.speedBy(-0.25))])
        #expect(Self.send(&state, .key(.character("="))) == [.player(.speed(to: 1))])
        #expect(Self.send(&state, .key(.character("x"))) == [.player(.stop)])
        _ = Self.send(&state, .playbackEnded(Fixture.standup))
        #expect(state.player == nil)
        _ = Self.send(
            &state,
            .jobsChanged([.init(kind: .recording, id: .random(), path: "/memo", pid: 42, paused: false, position: 3)]))
        #expect(Self.send(&state, .key(.space)) == [.remote(.toggle)])
        #expect(Self.send(&state, .key(.character("x"))) == [.remote(.stop)])
        #expect(Self.send(&state, .key(.left)).isEmpty, "a recording cannot seek")
        #expect(Self.send(&state, .key(.character("}"))).isEmpty, "a recording has no speed")
        #expect(state.message?.text == "nothing is playing")
    }

    @Test("r records into the folder; s or Enter stops; the name alert saves, Esc asks before discarding")
    func recordAndName() throws {
        var state = try Self.state(folder: Fixture.work)
        #expect(Self.send(&state, .key(.character("r"))) == [.record(into: Fixture.work)])
        #expect(Self.send(&state, .key(.character("r"))).isEmpty)
        #expect(state.message == .init("already recording", isError: true))
        #expect(Self.send(&state, .key(.character("m"))) == [.recorder(.mark(label: ""))])
        #expect(Self.send(&state, .key(.space)) == [.recorder(.toggle)])
        #expect(
            Self.send(&state, .key(.enter)) == [.recorder(.stop)], "Enter stops a recording rather than opening a row")
        _ = Self.send(&state, .recordingStopped(defaultName: "Recording 1"))
        guard case .alert(let alert) = state.mode else {
            Issue.record("no name alert: \(state.mode)")
            return
        }
        #expect(alert.line.text == "Recording 1")
        // Esc asks; n goes back to the name; Esc and y discard.
        _ = Self.send(&state, .key(.escape))
        #expect(state.mode == .confirm(.discardRecording))
        _ = Self.send(&state, .key(.character("n")))
        #expect(state.mode == .alert(.init(.nameRecording, text: "Recording 1")))
        _ = Self.send(&state, .key(.deleteToStart))
        _ = Self.type(&state, "Ideas")
        #expect(Self.send(&state, .key(.enter)).isEmpty, "a name taken in the folder is refused in place")
        guard case .alert(let refused) = state.mode else {
            Issue.record("the alert closed")
            return
        }
        #expect(refused.problem == "Ideas already exists here")
        _ = Self.send(&state, .key(.deleteToStart))
        _ = Self.type(&state, "plan b")
        #expect(Self.send(&state, .key(.enter)) == [.saveRecording(name: "plan b")])
        #expect(state.mode == .list)
        _ = Self.send(&state, .recordingEnded)
        #expect(state.recorder == nil)
        // Discarding, the other way out.
        _ = Self.send(&state, .key(.character("r")), .recordingStopped(defaultName: "Recording 2"), .key(.escape))
        #expect(Self.send(&state, .key(.character("y"))) == [.discardRecording])
    }

    @Test("The recorder's live words show under it, their latest part when they are long")
    func liveWordsUnderTheRecorder() throws {
        var state = try Self.state(folder: Fixture.work)
        _ = Self.send(&state, .key(.character("r")))
        let bottom = { BrowseView.render(state).lines[state.height - 1] }
        #expect(bottom().hasPrefix("Enter open"), "no words yet: the keys")
        _ = Self.send(&state, .heard("go forward ten meters"))
        #expect(bottom().hasPrefix("go forward ten meters"))
        _ = Self.send(&state, .heard(String(repeating: "and then some more ", count: 8) + "the end"))
        #expect(bottom().hasPrefix("…") && bottom().trimmingCharacters(in: .whitespaces).hasSuffix("the end"))
        _ = Self.send(&state, .recordingStopped(defaultName: "Recording 1"), .key(.escape), .key(.character("y")))
        _ = Self.send(&state, .recordingEnded)
        #expect(bottom().hasPrefix("Enter open"), "gone with the recorder")
    }

    @Test("another shell's recording, shown on the recorder's line, has its live words under it")
    func liveWordsOfAnotherShellsRecording() throws {
        var state = try Self.state(folder: Fixture.work)
        let bottom = { BrowseView.render(state).lines[state.height - 1] }
        let job = BrowseState.Job(
            kind: .recording, id: .random(), path: "/memo", pid: 42, paused: false, position: 3,
            words: "go forward ten meters")
        _ = Self.send(&state, .jobsChanged([job]))
        #expect(bottom().hasPrefix("go forward ten meters"))
        var playback = job
        playback.kind = .playback
        _ = Self.send(&state, .jobsChanged([playback]))
        #expect(bottom().hasPrefix("Enter open"), "a playback has no words")
        _ = Self.send(&state, .jobsChanged([job]), .key(.character("r")))
        #expect(bottom().hasPrefix("Enter open"), "this browser's own recorder shows its own words, none yet")
    }

    @Test("n, R and t open an alert that checks what is typed before anything is asked of the store")
    func alerts() throws {
        var state = try Self.state()
        _ = Self.send(&state, .key(.character("n")))
        _ = Self.type(&state, "a/b")
        #expect(Self.send(&state, .key(.enter)).isEmpty)
        guard case .alert(let alert) = state.mode else {
            Issue.record("the alert closed")
            return
        }
        #expect(alert.problem == NameRules.violation("a/b"))
        _ = Self.send(&state, .key(.backspace), .key(.backspace))
        #expect(Self.send(&state, .key(.enter)) == [.makeFolder(name: "a", in: .root)])

        _ = Self.send(&state, .key(.character("j")), .key(.character("R")))
        #expect(state.mode == .alert(.init(.rename(Fixture.work), text: "Work")))
        #expect(Self.send(&state, .key(.enter)).isEmpty, "the same name changes nothing")
        _ = Self.send(&state, .key(.character("R")), .key(.deleteToStart))
        _ = Self.type(&state, "Job")
        #expect(Self.send(&state, .key(.enter)) == [.rename(Fixture.work, to: "Job")])

        _ = Self.send(&state, .key(.character("t")))
        _ = Self.type(&state, "#b a +#x")
        #expect(Self.send(&state, .key(.enter)).isEmpty, "+#x adds no tag, as with recnotes tag")
        _ = Self.send(&state, .key(.backspace), .key(.backspace), .key(.backspace), .key(.backspace))
        #expect(Self.send(&state, .key(.enter)) == [.setTags(Fixture.work, ["a", "b"])])
        _ = Self.send(&state, .key(.character("t")), .key(.escape))
        #expect(state.mode == .list, "Esc cancels")
    }

    @Test("d asks, y trashes, u undoes, e edits the note, q keeps the place and quits")
    func trashUndoNoteQuit() throws {
        var state = try Self.state()
        _ = Self.send(&state, .key(.character("d")))
        #expect(state.mode == .confirm(.trash(Fixture.home)))
        #expect(Self.send(&state, .key(.character("n"))).isEmpty)
        #expect(state.mode == .list)
        _ = Self.send(&state, .key(.character("d")))
        #expect(Self.send(&state, .key(.character("y"))) == [.trash(Fixture.home)])
        #expect(Self.send(&state, .key(.character("u"))) == [.undo])
        #expect(Self.send(&state, .key(.character("e"))) == [.editNote(Fixture.home)])
        #expect(Self.send(&state, .key(.character("?"))).isEmpty)
        #expect(state.mode == .help)
        #expect(Self.send(&state, .key(.character("q"))).isEmpty, "q closes the help first")
        #expect(Self.send(&state, .key(.character("q"))) == [.keepPlace(folderStack: [.root], selected: nil), .quit])
        #expect(state.quitting)
    }

    @Test(
        "/ filters as you type: the driver's hits narrow the rows; a late answer for older text is dropped; Esc clears")
    func filter() throws {
        var state = try Self.state(folder: Fixture.work)
        _ = Self.send(&state, .key(.character("/")))
        #expect(Self.type(&state, "st") == [.filter("s", in: Fixture.work), .filter("st", in: Fixture.work)])
        _ = Self.send(&state, .filtered(query: "s", hits: []))
        #expect(state.rows.map(\.name) == ["Ideas"], "an answer for older text changes nothing")
        _ = Self.send(&state, .filtered(query: "st", hits: []))
        #expect(state.rows.isEmpty)
        _ = Self.send(&state, .key(.backspace), .filtered(query: "s", hits: [Fixture.ideas]))
        #expect(state.rows.map(\.name) == ["Ideas"])
        _ = Self.send(&state, .key(.enter))
        #expect(state.filter?.typing == false)
        #expect(
            Self.send(&state, .key(.enter)).first
                == .keepPlace(folderStack: [.root, Fixture.work, Fixture.ideas], selected: Fixture.standup),
            "after Enter, keys act on the hits")
        _ = Self.send(&state, .key(.character("h")), .key(.character("/")), .key(.character("x")), .key(.escape))
        #expect(state.filter == nil)
        #expect(state.rows.map(\.name) == ["Ideas"])
    }

    @Test("E turns a recording's enhancement on (both) and off; a folder is not enhanced; the detail pane shows it")
    func enhanceKey() throws {
        var state = try Self.state(folder: Fixture.ideas, selected: Fixture.standup)
        #expect(BrowseView.render(state).lines.contains { $0.hasSuffix("│ Enhance   off") })
        #expect(Self.send(&state, .key(.character("E"))).contains(.setEnhancement(Fixture.standup, .all)))
        var tx = DocumentStore.Transaction(document: state.document)
        try tx.enhance(Fixture.standup, Enhancement(level: true))
        _ = Self.send(&state, .documentChanged(tx.document))
        #expect(BrowseView.render(state).lines.contains { $0.hasSuffix("│ Enhance   level on, denoise off") })
        #expect(
            Self.send(&state, .key(.character("E"))).contains(.setEnhancement(Fixture.standup, .off)), "any on: all off"
        )
        var folders = try Self.state(selected: Fixture.work)
        _ = Self.send(&folders, .key(.character("j")))
        #expect(folders.selected?.isFolder == true)
        #expect(Self.send(&folders, .key(.character("E"))).isEmpty)
        #expect(folders.message?.text == "only recordings are enhanced")
    }

    @Test("another process's change keeps the cursor on its item; a folder removed elsewhere sends us to the root")
    func liveChanges() throws {
        var state = try Self.state()
        _ = Self.send(&state, .key(.character("j")))
        #expect(state.selected?.name == "Work")
        var tx = DocumentStore.Transaction(document: state.document)
        try tx.add(.folder(name: "Archive", parent: .root))
        _ = Self.send(&state, .documentChanged(tx.document))
        #expect(state.rows.map(\.name) == ["Archive", "Home", "Work"])
        #expect(state.selected?.name == "Work")
        _ = Self.send(&state, .key(.enter), .key(.enter))
        #expect(state.folder == Fixture.ideas)
        try tx.remove(Fixture.work)
        #expect(Self.send(&state, .documentChanged(tx.document)) == [.keepPlace(folderStack: [.root], selected: nil)])
        #expect(state.folder == .root)
    }

    /// What the driver reads as the browser goes: the folder shown and its items
    /// through the reads' table, nothing else; a folder whose items are not read yet is asked
    /// for (`.list`) and entered when they come, its counts from the table meanwhile.
    @Test("a folder is read as it is entered, through the reads' table; the cursor and the view state follow")
    func foldersReadAsEntered() throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        try DocumentStore(location: location).transaction { try Fixture.build(into: &$0) }
        try Library(location: location).keepReadTable()
        func read(_ folder: ItemID) throws -> Document {
            try #require(Library.browsing(location, listing: [folder], showing: [])).document
        }
        let root = try read(.root)
        #expect(Set(root.items.keys) == [.root, Fixture.work, Fixture.home], "only the root and its items are read")
        var state = BrowseState(width: 80, height: 24, document: root, folder: .root)
        #expect(state.rows.map(\.name) == ["Home", "Work"])
        // Work's items are not read: its counts are asked for, from the table.
        #expect(Self.send(&state, .key(.character("j"))) == [.loadDetails(Fixture.work)])
        #expect(BrowseView.render(state).lines.contains { $0.hasSuffix("│ Folder    …") })
        let counts = try #require(
            Library.browsing(location, listing: [.root], showing: [])?.childCounts(of: Fixture.work))
        #expect(counts.folders == 1 && counts.recordings == 0)
        _ = Self.send(
            &state,
            .details(.init(id: Fixture.work, size: nil, transcript: [], contents: .init(folders: 1, recordings: 0))))
        #expect(BrowseView.render(state).lines.contains { $0.hasSuffix("│ Folder    1 folder, 0 recordings") })

        #expect(Self.send(&state, .key(.enter)) == [.list(Fixture.work)])
        #expect(state.rows.isEmpty && state.entering != nil)
        #expect(
            Self.send(&state, .documentChanged(try read(Fixture.work)))
                == [.keepPlace(folderStack: [.root, Fixture.work], selected: nil), .loadDetails(Fixture.ideas)])
        #expect(state.rows.map(\.name) == ["Ideas"])
        #expect(Self.send(&state, .key(.enter)) == [.list(Fixture.ideas)])
        #expect(
            Self.send(&state, .documentChanged(try read(Fixture.ideas)))
                == [
                    .keepPlace(folderStack: [.root, Fixture.work, Fixture.ideas], selected: Fixture.standup),
                    .loadDetails(Fixture.standup),
                ])
        // Up into Work: its items came with Ideas (Ideas is all it holds), so no read.
        #expect(Self.send(&state, .key(.backspace)) == [.keepPlace(folderStack: [.root, Fixture.work], selected: nil)])
        #expect(state.selected?.id == Fixture.ideas)
        // Up into the root, whose Home is not read: the cursor lands on Work when it comes.
        #expect(Self.send(&state, .key(.character("h"))) == [.list(.root)])
        #expect(
            Self.send(&state, .documentChanged(root))
                == [.keepPlace(folderStack: [.root], selected: nil), .loadDetails(Fixture.work)])
        #expect(state.selected?.id == Fixture.work)
    }

    @Test("the list scrolls to keep the cursor in sight")
    func scrolling() throws {
        var tx = DocumentStore.Transaction(document: try Fixture.document())
        for n in 0..<50 { try tx.add(.folder(name: "f\(n < 10 ? "0" : "")\(n)", parent: Fixture.home)) }
        var state = BrowseState(width: 80, height: 24, document: tx.document, folder: Fixture.home)
        _ = Self.send(&state, .key(.character("G")))
        #expect(state.cursor == 49)
        #expect(state.top == 50 - state.listHeight)
        let screen = BrowseView.render(state)
        #expect(screen.lines[state.listHeight].hasPrefix(TextWidth.truncated("▸ f49/", to: 40)))
        _ = Self.send(&state, .key(.pageUp), .key(.character("g")))
        #expect(state.top == 0)
    }

    // MARK: View

    @Test("an 80×24 frame: breadcrumb, list, detail, status line")
    func frame80x24() throws {
        var state = try Self.state(folder: Fixture.ideas, selected: Fixture.standup)
        _ = Self.send(&state, .details(.init(id: Fixture.standup, size: 75_000, transcript: ["good morning everyone"])))
        let lines = BrowseView.render(state).lines
        let date = Format.date(Fixture.created)
        #expect(lines.count == 24)
        #expect(lines[0] == " Recordings › Work › Ideas" + String(repeating: " ", count: 80 - 26 - 8) + " 1 item")
        #expect(lines[1] == "  standup             00:12  \(date.prefix(10)) │ standup")
        #expect(lines[2] == String(repeating: " ", count: 40) + "│ Created   \(date)")
        #expect(lines[3] == String(repeating: " ", count: 40) + "│ Format    opus · 48000 Hz · mono")
        #expect(lines[4] == String(repeating: " ", count: 40) + "│ Duration  00:12")
        #expect(lines[5] == String(repeating: " ", count: 40) + "│ Size      75 KB")
        #expect(lines[8...].contains { $0.hasSuffix("│ Transcript") })
        #expect(lines[8...].contains { $0.hasSuffix("│  good morning everyone") })
        #expect(lines[23].hasPrefix("Enter open · Space pause · r record"))
        for line in lines { #expect(TextWidth.of(line) <= 80) }
    }

    @Test("a transcribed recording's pane shows its topics and chapters, then the transcript")
    func topicsAndChapters() throws {
        var state = try Self.state(width: 100, height: 30, folder: Fixture.ideas, selected: Fixture.standup)
        let chapters = [
            Chapters.Chapter(start: 0, words: ["pasta", "sauce"]),
            Chapters.Chapter(start: 95, words: ["rocket", "fuel"]),
        ]
        _ = Self.send(
            &state,
            .details(
                .init(
                    id: Fixture.standup, size: 75_000, transcript: ["boil the water"], topics: ["pasta", "rocket"],
                    chapters: chapters)))
        let lines = BrowseView.render(state).lines
        func row(_ suffix: String) -> Int? { lines.firstIndex { $0.hasSuffix(suffix) } }
        let topics = try #require(lines.firstIndex { $0.contains("│ Topics    pasta · rocket") }, "\(lines)")
        let heading = try #require(row("│ Chapters"), "\(lines)")
        let first = try #require(row("│  00:00  pasta, sauce"), "\(lines)")
        let second = try #require(row("│  01:35  rocket, fuel"), "\(lines)")
        let transcript = try #require(row("│ Transcript"), "\(lines)")
        #expect(topics < heading && heading < first && first < second && second < transcript)
        for line in lines { #expect(TextWidth.of(line) <= 100) }
    }

    @Test("a 120×40 frame uses the room: a wider list, the waveform across the pane, the player line")
    func frame120x40() throws {
        var state = try Self.state(width: 120, height: 40, folder: Fixture.ideas, selected: Fixture.standup)
        _ = Self.send(
            &state,
            .playing(.init(id: Fixture.standup, frames: 300_000, end: 600_000, sampleRate: 48000, paused: false)))
        let screen = BrowseView.render(state)
        let lines = screen.lines
        #expect(lines.count == 40)
        #expect(lines[0].hasSuffix(" 1 item"))
        #expect((0..<120).allSatisfy { screen[0, $0].style == Palette.header }, "the header spans the width")
        let split = BrowseLayout.listWidth(120)
        #expect(split == 60)
        #expect(lines[1].hasPrefix("▶ standup"), "the playing recording is marked")
        #expect(lines[1].dropFirst(split).hasPrefix("│ standup"))
        // The play head: half way through, in the waveform's row.
        let waveRow = try #require((0..<40).first { screen[$0, split + 2].style == Palette.waveform })
        let head = try #require((split + 2..<120).first { screen[waveRow, $0].style == Palette.playHead })
        #expect(head - (split + 2) == (120 - split - 3) / 2)
        #expect(lines[38].hasPrefix("▶ 00:00:06.25 / 00:00:12  standup"))
        // At another speed than 1×, the player line shows it beside the time.
        _ = Self.send(
            &state,
            .playing(
                .init(
                    id: Fixture.standup, frames: 300_000, end: 600_000, sampleRate: 48000, paused: false,
                    speed: PlaybackSpeed(factor: 1.5)!)))
        #expect(BrowseView.render(state).lines[38].hasPrefix("▶ 00:00:06.25 / 00:00:12  1.5×  standup"))
    }

    @Test("a clip under a second shows its length, and markers 0.3 s apart show apart")
    func shortClipsAndCloseMarkers() throws {
        var tx = DocumentStore.Transaction(document: try Fixture.document())
        let clip = ItemID.random()
        try tx.add(
            .recording(
                id: clip, name: "clip", parent: Fixture.home, created: Fixture.created,
                info: Fixture.info(clip, duration: 0.4)))
        try tx.annotate(
            clip, with: Annotations(markers: [Marker(frame: 0, label: "a"), Marker(frame: 14_400, label: "b")]))
        let state = BrowseState(width: 80, height: 24, document: tx.document, folder: Fixture.home, selected: clip)
        let lines = BrowseView.render(state).lines
        #expect(lines[1].hasPrefix("  clip ") && lines[1].contains(" 00:00.40  2023-11-14 "), "\(lines[1])")
        #expect(lines.contains { $0.hasSuffix("│ Duration  00:00.40") }, "\(lines)")
        #expect(lines.contains { $0.contains("│  #1  00:00:00.00  a") }, "\(lines)")
        #expect(lines.contains { $0.contains("│  #2  00:00:00.30  b") }, "\(lines)")
    }

    @Test("the list is in natural name order, case and accents ignored, as ls shows it")
    func naturalOrder() throws {
        var tx = DocumentStore.Transaction(document: Document())
        for name in ["note 10", "note 1", "Work", "apple", "note 2", "Ünïcode"] {
            try tx.add(.folder(name: name, parent: .root))
        }
        let lines = BrowseView.render(BrowseState(width: 80, height: 24, document: tx.document, folder: .root)).lines
        let names = lines[1...6].map { $0.dropFirst(2).components(separatedBy: "  ")[0] }
        #expect(names == ["apple/", "note 1/", "note 2/", "note 10/", "Ünïcode/", "Work/"], "\(lines)")
    }

    @Test("alerts and the help are drawn over the screen, the cursor in the field")
    func overlays() throws {
        var state = try Self.state()
        _ = Self.send(&state, .key(.character("n")))
        _ = Self.type(&state, "Plans")
        var screen = BrowseView.render(state)
        let row = try #require(screen.lines.firstIndex { $0.contains("┌─ New folder ") })
        #expect(screen.lines[row + 1].contains("│ Plans "))
        #expect(screen.cursor?.row == row + 1)
        #expect(screen.cursor.map { screen[$0.row, $0.column - 1].text } == "s")
        _ = Self.send(&state, .key(.escape), .key(.character("?")))
        screen = BrowseView.render(state)
        for binding in BrowseKeymap.bindings {
            #expect(screen.text.contains(binding.help), "the help lists \(binding.label)")
        }
    }

    @Test("wide characters take two cells and keep the columns aligned")
    func wideCharacters() throws {
        var tx = DocumentStore.Transaction(document: try Fixture.document())
        try tx.add(.folder(name: "会議メモ 🎤 with a long name that is cut", parent: Fixture.home))
        try tx.add(.folder(name: "café", parent: Fixture.home))
        let state = BrowseState(width: 80, height: 24, document: tx.document, folder: Fixture.home)
        let screen = BrowseView.render(state)
        for line in screen.lines[1...3] {
            #expect(TextWidth.of(String(line.prefix { $0 != "│" })) == 40, "\(line)")
        }
        #expect(screen.lines[2].hasPrefix("▸ 会議メモ 🎤"))
        let row = 2
        #expect(screen[row, 2].text == "会" && screen[row, 3].isContinuation)
    }

    @Test("t takes +TAG and -TAG as recnotes tag does, beside the tags it lists")
    func tagDialogAddsAndRemoves() throws {
        var tx = DocumentStore.Transaction(document: Document())
        try Fixture.build(into: &tx)
        try tx.tag(["/Work"], adding: ["draft", "work"], removing: [], from: .root)
        var state = BrowseState(width: 80, height: 24, document: tx.document, folder: .root, selected: Fixture.work)
        func submit(_ text: String) -> [BrowseEffect] {
            _ = Self.send(&state, .key(.character("t")), .key(.deleteToStart))
            _ = Self.type(&state, text)
            return Self.send(&state, .key(.enter))
        }
        _ = Self.send(&state, .key(.character("t")))
        #expect(state.mode == .alert(.init(.tags(Fixture.work), text: "draft work")))
        _ = Self.type(&state, " +work2")
        #expect(Self.send(&state, .key(.enter)) == [.setTags(Fixture.work, ["draft", "work", "work2"])])
        // Only changes: made to the tags it has.
        #expect(submit("+work2") == [.setTags(Fixture.work, ["draft", "work", "work2"])])
        #expect(submit("-draft +q3") == [.setTags(Fixture.work, ["q3", "work"])])
        #expect(submit("work -work") == [.setTags(Fixture.work, [])])
        #expect(submit("") == [.setTags(Fixture.work, [])], "an empty line removes them all")
        #expect(submit("+#x").isEmpty, "a tag that starts with # is refused as by tag")
        if case .alert(let alert) = state.mode {
            #expect(alert.problem != nil)
        } else {
            Issue.record("the alert closed")
        }
        _ = Self.send(&state, .key(.escape))
        #expect(submit("+-x").isEmpty, "as recnotes tag +-x")
    }

    @Test("Esc after a filter keeps the selected row, whether typing or not")
    func escapeKeepsTheSelection() throws {
        var state = try Self.state(folder: .root)
        #expect(state.rows.map(\.name) == ["Home", "Work"])
        _ = Self.send(&state, .key(.character("/")))
        _ = Self.type(&state, "wo")
        _ = Self.send(&state, .filtered(query: "wo", hits: [Fixture.work]), .key(.enter))
        #expect(state.selected?.id == Fixture.work)
        _ = Self.send(&state, .key(.escape))
        #expect(state.filter == nil && state.rows.map(\.name) == ["Home", "Work"])
        #expect(state.selected?.id == Fixture.work, "Esc after Enter")
        _ = Self.send(&state, .key(.character("/")))
        _ = Self.type(&state, "w")
        _ = Self.send(&state, .filtered(query: "w", hits: [Fixture.work]), .key(.escape))
        #expect(state.selected?.id == Fixture.work, "Esc while typing")
    }

    @Test("a terminal too small is asked to grow")
    func tooSmall() throws {
        let state = try Self.state(width: 30, height: 8)
        #expect(BrowseView.render(state).lines[0...1] == ["Too small for browse:", "needs 40×10 (q quits)"])
    }
}

@Suite("Screen diff, text width, key decoding")
struct ScreenTests {
    @Test("an unchanged screen writes no cell; a changed cell is one cursor move and its text")
    func minimalUpdates() {
        var screen = Screen(width: 20, height: 3)
        screen.write("hello", row: 1, column: 2)
        #expect(ScreenDiff.update(from: screen, to: screen, color: true) == "\u{1B}[?25l")
        var next = screen
        next.write("J", row: 1, column: 2)
        #expect(ScreenDiff.update(from: screen, to: next, color: true) == "\u{1B}[?25l\u{1B}[2;3H\u{1B}[0mJ")
        let full = ScreenDiff.update(from: nil, to: next, color: true)
        #expect(full.contains("\u{1B}[2J") && full.contains("Jello"))
    }

    @Test("a wide character is rewritten from its left half; colours go under NO_COLOR, reverse video stays")
    func wideAndStyles() {
        var a = Screen(width: 10, height: 1)
        a.write("会x", row: 0, column: 0)
        var b = a
        b[0, 1] = Cell("", CellStyle(color: .red))
        #expect(ScreenDiff.changedRuns(row: 0, old: a, new: b) == [0..<2])
        var styled = Screen(width: 4, height: 1)
        styled.write("ab", row: 0, column: 0, style: CellStyle(color: .blue, reverse: true))
        #expect(ScreenDiff.update(from: nil, to: styled, color: true).contains("\u{1B}[0;7;34m"))
        #expect(ScreenDiff.update(from: nil, to: styled, color: false).contains("\u{1B}[0;7m"))
        #expect(!ScreenDiff.update(from: nil, to: styled, color: false).contains("34"))
    }

    @Test("display width: wide CJK and emoji take two cells, combining marks none; cutting keeps whole characters")
    func widths() {
        #expect(TextWidth.of("abc") == 3)
        #expect(TextWidth.of("会議") == 4)
        #expect(TextWidth.of("🎤") == 2)
        #expect(TextWidth.of("☎\u{FE0F}") == 2)
        #expect(TextWidth.of("e\u{301}") == 1)
        #expect(TextWidth.truncated("会議メモ", to: 5) == "会議…")
        #expect(TextWidth.of(TextWidth.truncated("会議メモ", to: 4)) <= 4)
        #expect(TextWidth.padded("ab", to: 4) == "ab  ")
    }

    @Test("keys: arrows, page keys, Esc alone, UTF-8, and the sequences terminals send for Home and End")
    func keyDecoding() {
        func decode(_ bytes: [UInt8]) -> Key? {
            var rest = bytes.dropFirst()
            return Key.decode(first: bytes[0]) { _ in rest.popFirst() }
        }
        #expect(decode([0x1B, 0x5B, 0x41]) == .up)
        #expect(decode([0x1B, 0x5B, 0x42]) == .down)
        #expect(decode([0x1B, 0x4F, 0x48]) == .home)
        #expect(decode([0x1B, 0x5B, 0x35, 0x7E]) == .pageUp)
        #expect(decode([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43]) == .right, "Ctrl-→ (ESC [ 1 ; 5 C) is →")
        #expect(decode([0x1B]) == .escape)
        // Esc then q in one read: Esc, and q handed back to be the next key, not swallowed.
        var rest: ArraySlice<UInt8> = [0x71]
        var handedBack: [UInt8] = []
        #expect(Key.decode(first: 0x1B, next: { _ in rest.popFirst() }, unread: { handedBack.append($0) }) == .escape)
        #expect(handedBack == [0x71])
        #expect(decode(Array("é".utf8)) == .character("é"))
        #expect(decode([0x7F]) == .backspace)
        #expect(decode([0x03]) == .interrupt)
    }
}

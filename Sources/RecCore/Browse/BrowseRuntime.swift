import RecStore
import RecSystem
import RecValues
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs what `BrowseUpdate` asks for against the stores and the audio engine, and reports
/// back with messages: the thin driver of the Elm Architecture. Store changes run on the
/// calling (browser's) thread; a playback and a recording each run on a thread of their
/// own, with a `Library` of their own, and post their progress through `post`.
///
/// The browser's document is what it shows: the folder shown and its items, the
/// view state's places and jobs, read through the reads' table (`Library.browsing`) when
/// the browser enters a folder and whenever `store.json` is replaced, the whole store only
/// when the table cannot answer. A change is made as the CLI's command makes it, in a
/// `Library` of its own opened as that command opens one, and the document is then read again.
package final class BrowseRuntime {
    /// What the browser's document was read from: partial (`Library.browsing`) or, where
    /// the reads' table could not answer, the whole store.
    package private(set) var library: Library
    /// The folder the browser shows, whose items each read holds.
    private var shown: ItemID
    /// What the journal calls the browser's changes (the command line).
    private let summary: String
    private let device: String
    private let post: @Sendable (BrowseMessage) -> Void
    /// `e`: the note's text edited by the user ($EDITOR, the screen suspended), nil if
    /// unchanged.
    private let editNote: (_ text: String, _ name: String) throws -> String?
    private var playback: (session: PlaybackSession, thread: JoinableThread)?
    private var recording: (session: RecordingSession, thread: JoinableThread?)?

    package init(
        library: Library, device: String, editNote: @escaping (String, String) throws -> String?,
        post: @escaping @Sendable (BrowseMessage) -> Void
    ) {
        self.library = library
        shown = library.state.currentFolder
        summary = library.documents.summary
        self.device = device
        self.editNote = editNote
        self.post = post
        // Read whole (no table, a stale one, or a job registered as it opened): the table is
        // made now, so that the next folder and the next change are read through it.
        if !library.documents.isPartial { library.keepReadTable() }
    }

    /// Whether a playback or recording of this browser runs: its line is then redrawn from
    /// the engine's position several times a second (`tick`).
    package var isRunningAudio: Bool { playback != nil || (recording.map { $0.thread != nil } ?? false) }

    /// Where the playback is now. The engine reports its position once a device period
    /// (125 ms), so between reports it is carried forward on the clock, as media players
    /// do: the play head and time move at every frame. A report that goes backwards by more
    /// than a period is a seek and is taken as it is; a smaller one never moves the time back.
    package func tick() -> BrowseMessage? {
        guard let (session, _) = playback else { return nil }
        let state = session.player.controls.state
        let now = MonotonicClock.now()
        let rate = Double(session.sampleRate)
        let allowance = Int64(rate * Self.periodAllowance)
        let speed = PlaybackSpeed(factor: session.player.controls.speed) ?? .normal
        // A second of the clock is `speed` seconds of the recording.
        func carried(_ anchor: PlayAnchor) -> Int64 {
            anchor.paused
                ? anchor.frames
                : min(
                    anchor.frames + Int64((now - anchor.time) * rate * speed.factor), anchor.reported + allowance,
                    session.end)
        }
        if playAnchor?.reported != state.frames || playAnchor?.paused != state.paused {
            var base = state.frames
            if let previous = playAnchor, !previous.paused, !state.paused {
                let shown = carried(previous)
                if shown > base && shown - base < allowance { base = shown }
            }
            playAnchor = PlayAnchor(reported: state.frames, frames: base, time: now, paused: state.paused)
        }
        return .playing(
            .init(
                id: session.item.id, frames: playAnchor.map(carried) ?? state.frames, end: session.end,
                sampleRate: session.sampleRate, paused: state.paused, speed: speed))
    }

    private struct PlayAnchor {
        /// The engine's last report, the position shown at that moment, when, and whether paused.
        var reported: Int64, frames: Int64, time: Double, paused: Bool
    }

    private var playAnchor: PlayAnchor?
    /// How far ahead of the engine's report the time may be carried: a bit more than a period.
    private static let periodAllowance = 0.2

    /// Called with every message before `update` sees it: the end of a playback or of a
    /// recording's capture joins its thread.
    package func received(_ message: BrowseMessage) {
        switch message {
        case .playbackEnded(let id):
            if let (session, thread) = playback, session.item.id == id {
                thread.join()
                playback = nil
            }
        case .recordingStopped:
            recording?.thread?.join()
            recording?.thread = nil
        case .recordingFinished(let text, let id):
            // The store changed on another thread: read it here, then tell the browser, in
            // this order (the inbox keeps it), so that the saved item can be selected.
            finishing?.join()
            finishing = nil
            if (try? reload()) != nil { post(.documentChanged(library.document)) }
            if let text { post(.done(text, select: id)) }
            post(.recordingEnded)
        default:
            break
        }
    }

    package func run(_ effect: BrowseEffect) {
        do {
            try perform(effect)
        } catch {
            post(.failed("\(error)"))
        }
    }

    private func perform(_ effect: BrowseEffect) throws {
        switch effect {
        case .play(let id): try play(id)
        case .player(let action): control(action)
        case .seekMark(let forward):
            if let session = playback?.session {
                session.player.seekMark(forward: forward, frames: session.markerFrames)
            }
        case .record(let folder): try record(into: folder)
        case .recorder(let action):
            guard let recorder = recording?.session.recorder else { return }
            switch action {
            case .toggle, .pause, .resume: recorder.togglePause()
            case .stop: recorder.stop()
            case .mark(let label): recorder.mark(label: label)
            default: break
            }
        case .saveRecording(let name): try finishRecording(as: name)
        case .discardRecording: try discardRecording()
        case .makeFolder(let name, let folder):
            let path = child(name, of: folder)
            let made = try change { try $0.makeFolder(at: path, from: .root, createParents: false) }
            post(.done("made \(path)", select: made.last?.id))
        case .rename(let id, let name):
            guard let item = library.document[id] else { return }
            let from = library.document.path(of: id)
            let to = child(name, of: item.parent ?? .root)
            try change { try $0.moveItems(at: [from], to: to, from: .root) }
            post(.done("renamed \(from) to \(to)", select: id))
        case .trash(let id):
            let path = library.document.path(of: id)
            try change { try $0.removeItems(at: [path], from: .root, recursive: true) }
            post(.done("moved \(path) to the trash (u undoes)"))
        case .undo:
            // As `recnotes undo`: the whole store.
            let own = try Library(location: library.location)
            own.documents.summary = summary
            let undone = try own.documents.undo()
            try reload()
            post(.documentChanged(library.document))
            // On the item taken back, where it is listed (a trashed one is back on its row);
            // else the selection stays where it was.
            post(.done("undid #\(undone.entry.sequence): \(undone.change)", select: undone.entry.steps.first?.id))
        case .setTags(let id, let tags):
            guard let item = library.document[id] else { return }
            let old = item.annotations.tags
            let path = library.document.path(of: id)
            try change(annotating: [path]) {
                try $0.tag(
                    [path], adding: tags.filter { !old.contains($0) }, removing: old.filter { !tags.contains($0) },
                    from: .root)
            }
            post(
                .done(
                    tags.isEmpty
                        ? "no tags on \(path)" : "tagged \(path): " + tags.map { "#" + $0 }.joined(separator: " ")))
        case .setEnhancement(let id, let enhance):
            guard library.document[id] != nil else { return }
            let path = library.document.path(of: id)
            let item = try change(annotating: [path]) { try $0.enhance(id, enhance) }
            post(.done("\(path): \(item.annotations.enhance)"))
        case .editNote(let id):
            guard let item = library.document[id] else { return }
            guard let text = try editNote(item.annotations.note, item.name) else {
                post(.done("the note is unchanged"))
                return
            }
            let path = library.document.path(of: id)
            try change(annotating: [path]) { try $0.setNote(text, at: path, from: .root) }
            post(.done("saved the note of \(path)"))
        case .loadDetails(let id):
            guard let item = library.document[id] else { return }
            if item.isFolder {
                let counts = library.childCounts(of: id).map { BrowseState.Contents(folders: $0, recordings: $1) }
                post(.details(.init(id: id, size: nil, transcript: [], contents: counts)))
                return
            }
            let transcript = try? TranscriptFiles(location: library.location).read(id)
            let lines = transcript?.segments.prefix(BrowseLayout.transcriptLines).map(\.text) ?? []
            let topics =
                transcript.map { RecordingTopics.of($0, of: item, in: library, limit: BrowseLayout.topicTerms) } ?? []
            post(
                .details(
                    .init(
                        id: id, size: library.audioSize(of: item), transcript: Array(lines),
                        topics: topics.map(\.term), chapters: transcript.map { Chapters.of($0) } ?? [])))
        case .filter(let text, let folder):
            post(.filtered(query: text, hits: try filter(text, in: folder)))
        case .list(let folder):
            shown = folder
            try reload()
            post(.documentChanged(library.document))
        case .keepPlace(let stack, let selected):
            shown = stack.last ?? .root
            // The view state only: the document read to show (`Library.browsing`) is read-only.
            guard !library.viewState.isReadOnly else { return }
            try library.viewState.transaction { vs in
                if vs.state.folderStack != stack { vs.navigate(to: stack) }
                if let selected, vs.state.selection?.recording != selected { vs.selectRecording(selected) }
            }
        case .remote(let action):
            let sent = try RemoteControl(library: library).send(action)
            post(.done("sent \(action) to the \(sent.job.rawValue) in pid \(sent.pid)"))
        case .quit:
            shutdown()
        }
    }

    /// The document's change, made as the CLI's command makes it: in a `Library` of its own,
    /// `Library.changing` for a change of the annotations of the items at `paths` (read
    /// through the reads' table and spliced into `store.json`, as `tag` and `note --set`),
    /// else the whole store (as `mkdir`, `mv` and `rm`); then the browser's document read
    /// again and the browser told of it.
    @discardableResult
    private func change<T>(annotating paths: [String]? = nil, _ body: (inout DocumentStore.Transaction) throws -> T)
        throws -> T
    {
        let own =
            try paths.flatMap { Library.changing(library.location, paths: $0) } ?? Library(location: library.location)
        own.documents.summary = summary
        let result = try own.documents.transaction(body)
        try reload()
        post(.documentChanged(library.document))
        return result
    }

    /// The browser's document read again (the caller tells the browser): the folder shown
    /// and what else it shows (a recording's folder, the playback), through the reads'
    /// table; else the whole store, after which the table is made for the next read.
    private func reload() throws {
        let listing = [shown] + (recording.map { [$0.session.parent] } ?? [])
        let showing = playback.map { [$0.session.item.id] } ?? []
        if let read = Library.browsing(library.location, listing: listing, showing: showing) {
            library = read
            // A table that trusts a store.json written in the last second by its bytes (each
            // read hashes it) marked, a second on, as trusting its identity, as reads do.
            read.keepReadTable()
            return
        }
        let whole = try Library(location: library.location)
        whole.documents.summary = summary
        whole.keepReadTable()
        library = whole
    }

    /// The view state changed (another shell's recording or playback started or ended): the
    /// document read again when it lacks an item of the jobs registered there, which the player
    /// line names (`Library.browsing` reads them). Whether it was (the caller tells the browser).
    package func viewStateChanged() throws -> Bool {
        guard library.documents.isPartial, let state = ViewStateStore.peek(library.location) else { return false }
        let jobs = [state.recording?.parent, state.playing?.id].compactMap { $0 }
        guard jobs.contains(where: { library.document[$0] == nil }) else { return false }
        try reload()
        return true
    }

    /// The store directory saw `store.json` replaced (another shell, or a change of this
    /// browser): its document read again when it is not the file it was read from. Whether
    /// it was (the caller tells the browser).
    package func storeChanged() throws -> Bool {
        guard !library.isCurrent else { return false }
        try reload()
        return true
    }

    private func child(_ name: String, of folder: ItemID) -> String {
        let parent = library.document.path(of: folder)
        return (parent == "/" ? "" : parent) + "/" + name
    }

    /// `/`: the folder's rows that hold a match, as find --text finds them (names, notes,
    /// tags, markers, transcripts), from find's index (`Finder`, which opens the whole store
    /// only when the index cannot answer): a hit deeper down shows as the folder it is in.
    private func filter(_ text: String, in folder: ItemID) throws -> [ItemID] {
        var query = SearchQuery()
        query.setText(text)
        query.snippets = false
        let location = library.location
        let path = library.document.path(of: folder)
        let found = try Finder.find(query, in: path, details: false, location: location) {
            try Library(location: location)
        }
        // Each hit's path below the folder's: its first name is the row.
        let prefix = path == "/" ? "/" : path + "/"
        var rows = Set<ItemID>()
        for hit in found.paths where hit.hasPrefix(prefix) && hit.count > prefix.count {
            let name = hit.dropFirst(prefix.count).prefix { $0 != "/" }
            if let row = library.document.child(named: String(name), in: folder) { rows.insert(row.id) }
        }
        return Array(rows)
    }

    // MARK: Audio

    private func play(_ id: ItemID) throws {
        stopPlayback()
        playAnchor = nil
        // A library of its own: the session writes the view state from its thread. Read as
        // `Library.changing` reads (a marker made while playing is spliced in, as `tag`'s
        // change is), else the whole store.
        let path = library.document.path(of: id)
        let own = try Library.changing(library.location, paths: [path]) ?? Library(location: library.location)
        own.documents.summary = summary
        // At the speed the last playback had, as `play` without --speed.
        let session = try PlaybackSession(
            library: own, path: path, seek: nil, until: nil,
            fromStart: false, device: device)
        try session.register()
        let post = self.post
        let start = BrowseState.PlayerLine(
            id: id, frames: session.start, end: session.end, sampleRate: session.sampleRate, paused: false)
        post(.playing(start))
        let thread = try JoinableThread {
            do {
                // The browser's player line shows no level.
                try session.play(levels: false) { event in
                    switch event {
                    case .failed(_, let message): post(.failed("play: \(message)"))
                    case .marked(let position, _): post(.done("marked \(Format.preciseClock(position.seconds))"))
                    default: break
                    }
                }
            } catch {
                post(.failed("\(error)"))
            }
            post(.playbackEnded(id))
        }
        playback = (session, thread)
    }

    private func control(_ action: ViewState.ControlAction) {
        guard let player = playback?.session.player else { return }
        switch action {
        case .toggle, .pause, .resume: player.togglePause()
        case .skip(let by): player.seek(by: by)
        case .mark(let label): player.mark(label: label)
        case .stop: player.stop()
        case .speed, .speedBy: player.controls.submit(action.engineCommand)
        default: break
        }
    }

    private func stopPlayback() {
        guard let (session, thread) = playback else { return }
        session.player.stop()
        thread.join()
        playback = nil
        post(.playbackEnded(session.item.id))
    }

    private func record(into folder: ItemID) throws {
        guard recording == nil else { return }
        do {
            // Read as `Library.changing` reads (the folder and its ancestors) while it records;
            // saving adds an item, and the store reads the whole document for it then.
            let path = library.document.path(of: folder)
            let own = try Library.changing(library.location, paths: [path]) ?? Library(location: library.location)
            own.documents.summary = "recnotes browse: record"
            let format = AudioFormat.default
            let session = try RecordingSession(
                library: own, path: path, format: format,
                rate: format.defaultRate, channels: AudioFormat.defaultChannels,
                device: device, frameLimit: nil, liveWords: LiveWords.engine(asked: nil, location: own.location))
            let post = self.post
            let thread = try JoinableThread {
                do {
                    try session.record { event in
                        switch event {
                        case .progress(let progress):
                            post(
                                .recording(
                                    frames: progress.position.frames, sampleRate: progress.position.sampleRate,
                                    peak: progress.level.peak, bytes: progress.bytes ?? 0, paused: false))
                        case .paused(let position):
                            post(
                                .recording(
                                    frames: position.frames, sampleRate: position.sampleRate, peak: Level.floor,
                                    bytes: FileSystem.size(session.filePath) ?? 0, paused: true))
                        case .marked(let position, _): post(.done("marked \(Format.preciseClock(position.seconds))"))
                        case .failed(_, let message): post(.failed("record: \(message)"))
                        case .words(let segment): post(.heard(segment.text))
                        default: break
                        }
                    }
                } catch {
                    post(.failed("\(error)"))
                }
                post(.recordingStopped(defaultName: session.defaultName))
            }
            recording = (session, thread)
        } catch {
            post(.recordingEnded)
            throw error
        }
    }

    private func finishRecording(as name: String) throws {
        try finish("saving \(name)…") { session in
            let item = try session.save(as: name)
            return ("saved \(session.library.document.path(of: item.id))", item.id)
        }
    }

    private func discardRecording() throws {
        try finish("moving the recording to the trash…") { session in
            ("discarded: the recording is in the trash as \(try session.discardToTrash()) (u undoes)", nil)
        }
    }

    /// Saves or discards the stopped recording on a thread of its own: either measures the
    /// audio's analysis, seconds for a long recording, and the screen must not freeze
    /// meanwhile. It reports with `.recordingFinished`, which `received` completes.
    private func finish(_ saying: String, _ body: @escaping (RecordingSession) throws -> (String, ItemID?)) throws {
        guard let session = recording?.session, finishing == nil else { return }
        recording = nil
        let post = self.post
        post(.done(saying))
        finishing = try JoinableThread {
            do {
                let (text, id) = try body(session)
                post(.recordingFinished(text, select: id))
            } catch {
                post(.failed("\(error)"))
                post(.recordingFinished(nil, select: nil))
            }
        }
    }

    /// The thread saving or discarding a stopped recording, until it reports.
    private var finishing: JoinableThread?

    /// On the way out (q, a signal, an error): a playback stops where it is (its position
    /// kept), a recording is saved under its default name, as Ctrl-C saves one in `record`.
    package func shutdown() {
        stopPlayback()
        finishing?.join()
        finishing = nil
        guard let (session, thread) = recording else { return }
        session.recorder.stop()
        thread?.join()
        recording = nil
        if let item = try? session.save() {
            post(.done("saved \(session.library.document.path(of: item.id))"))
        }
    }
}

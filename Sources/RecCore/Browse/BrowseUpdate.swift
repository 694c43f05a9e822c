import RecStore
import RecValues

/// The reducer of `browse`: `update(state, message) -> (state, effects)`, pure. Everything the
/// browser does is decided here; the driver only runs the effects and reports back.
package enum BrowseUpdate {
    package static func update(_ state: BrowseState, _ message: BrowseMessage) -> (BrowseState, [BrowseEffect]) {
        var state = state
        var effects = apply(message, to: &state)
        keepCursorInSight(&state)
        // A recording's size and transcript; a folder's counts when its items are not read.
        if let selected = state.selected, selected.recording != nil || !state.isListed(selected.id),
            state.detailsAsked != selected.id
        {
            state.detailsAsked = selected.id
            effects.append(.loadDetails(selected.id))
        }
        return (state, effects)
    }

    private static func apply(_ message: BrowseMessage, to state: inout BrowseState) -> [BrowseEffect] {
        switch message {
        case .key(let key):
            return press(key, in: &state)
        case .resized(let width, let height):
            state.width = width
            state.height = height
        case .documentChanged(let document):
            let selected = state.selected?.id
            state.document = document
            if document[state.folder]?.isFolder != true {
                // The folder went (another shell's rm or mv): up to the nearest one left.
                state.folder = .root
                state.cursor = 0
                state.entering = nil
                return entered(&state, select: nil)
            }
            if let entering = state.entering, state.isListed {
                // The items of the folder just entered.
                state.entering = nil
                return entered(&state, select: entering.select)
            }
            if let selected, let index = state.rows.firstIndex(where: { $0.id == selected }) { state.cursor = index }
            if let id = state.details?.id, document[id] != nil, id == state.selected?.id {
                // Its tags, note or markers may have changed; its size and transcript too.
                state.detailsAsked = nil
            }
        case .jobsChanged(let jobs):
            state.jobs = jobs
        case .playing(let line):
            state.player = line
        case .playbackEnded(let id):
            if state.player?.id == id { state.player = nil }
        case .recording(let frames, let sampleRate, let peak, let bytes, let paused):
            state.recorder?.frames = frames
            state.recorder?.sampleRate = sampleRate
            state.recorder?.peak = peak
            state.recorder?.bytes = bytes
            state.recorder?.paused = paused
        case .heard(let text):
            if let words = state.recorder?.words { state.recorder?.words = words.isEmpty ? text : words + " " + text }
        case .recordingStopped(let defaultName):
            state.recorder?.stopped = true
            state.recorder?.defaultName = defaultName
            state.mode = .alert(.init(.nameRecording, text: defaultName))
        case .recordingFinished:
            break  // the runtime answers it with the document, the message and the end
        case .recordingEnded:
            state.recorder = nil
            if case .alert(let alert) = state.mode, alert.purpose == .nameRecording { state.mode = .list }
            if state.mode == .confirm(.discardRecording) { state.mode = .list }
        case .details(let details):
            if details.id == state.selected?.id { state.details = details }
        case .filtered(let query, let hits):
            guard var filter = state.filter, filter.line.text == query else { return [] }
            filter.hits = Set(hits)
            state.filter = filter
            state.cursor = 0
        case .done(let text, let select):
            state.message = .init(text)
            if let select, let index = state.rows.firstIndex(where: { $0.id == select }) { state.cursor = index }
        case .failed(let text):
            state.message = .init(text, isError: true)
        }
        return []
    }

    // MARK: Keys

    private static func press(_ key: Key, in state: inout BrowseState) -> [BrowseEffect] {
        state.message = nil
        switch state.mode {
        case .help:
            state.mode = .list
            return []
        case .confirm(let confirmation):
            return confirm(confirmation, key, in: &state)
        case .alert(let alert):
            return edit(alert, key, in: &state)
        case .list:
            break
        }
        if let filter = state.filter, filter.typing { return typeFilter(filter, key, in: &state) }
        if key == .escape, state.filter != nil {
            clearFilter(&state)
            return []
        }
        // While recording, Enter stops it (as `s` does), rather than opening the row.
        if key == .enter, let recorder = state.recorder, !recorder.stopped { return [.recorder(.stop)] }
        guard let command = BrowseKeymap.command(for: key) else { return [] }
        return run(command, in: &state)
    }

    private static func run(_ command: BrowseCommand, in state: inout BrowseState) -> [BrowseEffect] {
        let recording = state.recorder.map { !$0.stopped } ?? false
        switch command {
        case .down: state.cursor += 1
        case .up: state.cursor -= 1
        case .pageDown: state.cursor += state.listHeight
        case .pageUp: state.cursor -= state.listHeight
        case .first: state.cursor = 0
        case .last: state.cursor = state.rows.count - 1
        case .open:
            guard let item = state.selected else { return [] }
            if item.isFolder {
                state.folder = item.id
                state.cursor = 0
                state.top = 0
                state.filter = nil
                return entered(&state, select: nil)
            }
            return [.play(item.id)]
        case .parent:
            guard let parent = state.document[state.folder]?.parent else { return [] }
            let from = state.folder
            state.folder = parent
            state.filter = nil
            return entered(&state, select: from)
        case .togglePause:
            if recording { return [.recorder(.toggle)] }
            if state.player != nil { return [.player(.toggle)] }
            if !state.jobs.isEmpty { return [.remote(.toggle)] }
            state.message = .init("nothing is playing or recording")
        case .back, .forward:
            let step = command == .back ? -BrowseKeymap.seekStep : BrowseKeymap.seekStep
            if state.player != nil { return [.player(.skip(by: step))] }
            if state.jobs.contains(where: { $0.kind == .playback }) { return [.remote(.skip(by: step))] }
            state.message = .init("nothing is playing")
        case .nextMark, .previousMark:
            if state.player != nil { return [.seekMark(forward: command == .nextMark)] }
            state.message = .init("nothing is playing")
        case .faster, .slower, .normalSpeed:
            let action: ViewState.ControlAction =
                command == .normalSpeed
                ? .speed(to: 1) : .speedBy(command == .faster ? PlaybackSpeed.step : -PlaybackSpeed.step)
            if state.player != nil { return [.player(action)] }
            if state.jobs.contains(where: { $0.kind == .playback }) { return [.remote(action)] }
            state.message = .init("nothing is playing")
        case .mark:
            if recording { return [.recorder(.mark(label: ""))] }
            if state.player != nil { return [.player(.mark(label: ""))] }
            if !state.jobs.isEmpty { return [.remote(.mark(label: ""))] }
            state.message = .init("nothing is playing or recording to mark")
        case .stopPlayback:
            if state.player != nil { return [.player(.stop)] }
            if !state.jobs.isEmpty { return [.remote(.stop)] }
            state.message = .init("nothing is playing")
        case .record:
            if state.recorder != nil {
                state.message = .init("already recording", isError: true)
                return []
            }
            state.recorder = .init(folder: state.folder, sampleRate: 0)
            return [.record(into: state.folder)]
        case .stopRecording:
            if recording { return [.recorder(.stop)] }
            state.message = .init("nothing is recording")
        case .newFolder:
            state.mode = .alert(.init(.newFolder))
        case .rename:
            guard let item = state.selected else { return [] }
            state.mode = .alert(.init(.rename(item.id), text: item.name))
        case .trash:
            guard let item = state.selected else { return [] }
            state.mode = .confirm(.trash(item.id))
        case .undo:
            return [.undo]
        case .tags:
            guard let item = state.selected else { return [] }
            state.mode = .alert(.init(.tags(item.id), text: item.annotations.tags.joined(separator: " ")))
        case .note:
            guard let item = state.selected else { return [] }
            return [.editNote(item.id)]
        case .enhance:
            guard let item = state.selected else { return [] }
            guard item.recording != nil else {
                state.message = .init("only recordings are enhanced", isError: true)
                return []
            }
            // One key for both: anything on turns all off, all off turns both on.
            return [.setEnhancement(item.id, item.annotations.enhance.isOff ? .all : .off)]
        case .filter:
            state.filter = state.filter ?? .init()
            state.filter?.typing = true
        case .help:
            state.mode = .help
        case .quit:
            state.quitting = true
            return [keepPlace(state), .quit]
        }
        return []
    }

    private static func typeFilter(_ filter: BrowseState.Filter, _ key: Key, in state: inout BrowseState)
        -> [BrowseEffect]
    {
        var filter = filter
        switch key {
        case .escape, .interrupt:
            clearFilter(&state)
            return []
        case .enter:
            filter.typing = false
            state.filter = filter
            return []
        case .down, .up:
            state.cursor += key == .down ? 1 : -1
            return []
        default:
            guard filter.line.apply(key) else { return [] }
            let query = filter.line.text
            filter.hits = nil
            state.filter = filter
            let words = query.split(whereSeparator: \.isWhitespace)
            return words.isEmpty ? [] : [.filter(query, in: state.folder)]
        }
    }

    // MARK: Alerts

    private static func confirm(_ confirmation: BrowseState.Confirmation, _ key: Key, in state: inout BrowseState)
        -> [BrowseEffect]
    {
        let yes = key == .character("y") || key == .character("Y") || key == .enter
        let no = key == .character("n") || key == .character("N") || key == .escape || key == .interrupt
        guard yes || no else { return [] }
        switch confirmation {
        case .trash(let id):
            state.mode = .list
            return yes ? [.trash(id)] : []
        case .discardRecording:
            if yes {
                state.mode = .list
                return [.discardRecording]
            }
            // Not discarded: back to naming it.
            state.mode = .alert(.init(.nameRecording, text: state.recorder?.defaultName ?? ""))
            return []
        }
    }

    private static func edit(_ alert: BrowseState.Alert, _ key: Key, in state: inout BrowseState) -> [BrowseEffect] {
        var alert = alert
        switch key {
        case .escape, .interrupt:
            // Esc on a finished recording's name asks before its audio goes.
            state.mode = alert.purpose == .nameRecording ? .confirm(.discardRecording) : .list
            return []
        case .enter:
            let text = alert.line.text
            if let (problem, effect) = submit(alert.purpose, text, in: state) {
                if let problem {
                    alert.problem = problem
                    state.mode = .alert(alert)
                    return []
                }
                state.mode = .list
                return effect.map { [$0] } ?? []
            }
            return []
        default:
            if alert.line.apply(key) { alert.problem = nil }
            state.mode = .alert(alert)
            return []
        }
    }

    /// What Enter in an alert does: a problem to show (the alert stays), or the effect.
    private static func submit(
        _ purpose: BrowseState.Alert.Purpose, _ text: String,
        in state: BrowseState
    ) -> (String?, BrowseEffect?)? {
        switch purpose {
        case .nameRecording:
            let name = text.isEmpty ? state.recorder?.defaultName ?? "" : text
            let folder = state.recorder?.folder ?? state.folder
            if let problem = nameProblem(name, in: folder, except: nil, state) { return (problem, nil) }
            return (nil, .saveRecording(name: name))
        case .newFolder:
            if let problem = nameProblem(text, in: state.folder, except: nil, state) { return (problem, nil) }
            return (nil, .makeFolder(name: text, in: state.folder))
        case .rename(let id):
            guard let item = state.document[id] else { return (nil, nil) }
            if text == item.name { return (nil, nil) }
            if let problem = nameProblem(text, in: item.parent ?? .root, except: id, state) { return (problem, nil) }
            return (nil, .rename(id, to: text))
        case .tags(let id):
            // As `recnotes tag` reads them: +TAG adds, -TAG removes; the other words are the
            // item's tags as listed (shown as the dialog opens), kept unless none is left.
            let words = TagWords(text.split(whereSeparator: { $0.isWhitespace || $0 == "," }))
            let listed = words.others.map { $0.first == "#" ? String($0.dropFirst()) : $0 }
            for tag in listed + words.adding + words.removing {
                if let problem = TagRules.violation(tag) { return ("\(NameRules.quoted(tag)): \(problem)", nil) }
            }
            let current = state.document[id]?.annotations.tags ?? []
            return (nil, .setTags(id, words.applied(to: listed.isEmpty && words.changes ? current : listed)))
        }
    }

    private static func nameProblem(_ name: String, in folder: ItemID, except: ItemID?, _ state: BrowseState) -> String?
    {
        if let problem = NameRules.violation(name) { return problem }
        if let existing = state.document.child(named: name, in: folder), existing.id != except {
            return "\(NameRules.quoted(name)) already exists here"
        }
        return nil
    }

    // MARK: Helpers

    /// The filter gone and every row back, the cursor still on the row it was on.
    static func clearFilter(_ state: inout BrowseState) {
        let selected = state.selected?.id
        state.filter = nil
        state.cursor = state.rows.firstIndex { $0.id == selected } ?? 0
    }

    /// A folder just shown: with its items in the document, the cursor on `select` (or the
    /// first row) and the place kept; else its items asked for, and the same done when they
    /// come (`documentChanged`).
    static func entered(_ state: inout BrowseState, select: ItemID?) -> [BrowseEffect] {
        guard state.isListed else {
            state.entering = .init(select: select)
            state.cursor = 0
            return [.list(state.folder)]
        }
        state.cursor = state.rows.firstIndex { $0.id == select } ?? 0
        return [keepPlace(state)]
    }

    static func keepPlace(_ state: BrowseState) -> BrowseEffect {
        .keepPlace(
            folderStack: state.folderStack, selected: state.selected.flatMap { $0.recording != nil ? $0.id : nil })
    }

    /// The cursor on a row that exists, and the list scrolled to show it.
    static func keepCursorInSight(_ state: inout BrowseState) {
        state.cursor = max(0, min(state.cursor, state.rows.count - 1))
        let height = state.listHeight
        if state.cursor < state.top { state.top = state.cursor }
        if state.cursor >= state.top + height { state.top = state.cursor - height + 1 }
        state.top = max(0, min(state.top, max(state.rows.count - height, 0)))
    }
}

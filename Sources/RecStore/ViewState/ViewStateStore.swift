import RecSystem
import RecValues

/// The view-state store: `viewstate.json`, with its own lock and lifecycle.
///
/// A missing file is rebuilt silently; a corrupt one is rebuilt with a warning (through
/// `warnings`), because view state is disposable. `store.json` is never touched here.
package final class ViewStateStore {
    package enum Action: Equatable, Sendable {
        case pushFolder(ItemID)
        case popFolder(ItemID)
        case selectRecording(ItemID?)
        case recordingStarted(ViewState.RecordingInProgress)
        case recordingEnded(ItemID)
        case playbackStarted(ViewState.Playback)
        case playbackEnded(ItemID)
        /// Another shell asked the running job to do something (queued, not yet applied).
        case controlRequested(ViewState.Job, ViewState.ControlCommand)
        /// The running job applied every command up to `through` and reached this state.
        case controlAcknowledged(ViewState.Job, through: Int, paused: Bool, position: Double)
        /// A marker was added to the recording in progress.
        case recordingMarked(ItemID, Marker)
        /// The playback speed to keep (a `play`, or a running player's change).
        case speedSet(PlaybackSpeed)
    }

    package let location: StoreLocation
    package private(set) var state: ViewState
    /// One-line warnings met while loading, for the CLI to print.
    package private(set) var warnings: [String] = []
    private var observers: [(Action, ViewState) -> Void] = []

    /// True when the store cannot be written: the state is read without a lock, and
    /// every change is refused.
    package let isReadOnly: Bool

    package init(location: StoreLocation) throws {
        self.location = location
        state = ViewState()
        isReadOnly = !location.isWritable
        if !isReadOnly { try FileSystem.makeDirectories(location.directory) }
        state = load()
    }

    package func observe(_ observer: @escaping (Action, ViewState) -> Void) {
        observers.append(observer)
    }

    private func load() -> ViewState {
        let path = location.viewStateFile
        do {
            guard let bytes = try FileSystem.read(path) else { return ViewState() }
            return try bytes.withUnsafeBufferPointer { try ViewStateCodec.decode($0) }
        } catch let failure as JSONReader.Failure {
            return rebuild(
                "\(path): corrupt at line \(failure.line), column \(failure.column) (\(failure.message)); starting again from the root folder"
            )
        } catch {
            return rebuild("\(error); starting again from the root folder")
        }
    }

    private func rebuild(_ warning: String) -> ViewState {
        warnings.append(warning)
        let fresh = ViewState()
        // Rewritten at once so the warning is given once, not on every later command.
        // A read-only store still works: the fresh state just lives in memory.
        guard !isReadOnly else { return fresh }
        try? FileLock.withLock(location.viewStateLockFile) {
            try FileSystem.writeAtomically(ViewStateCodec.encode(fresh), to: location.viewStateFile, durable: false)
        }
        return fresh
    }

    /// Applies changes under the view-state lock against the latest file, persists once,
    /// then notifies.
    @discardableResult
    package func transaction<T>(_ body: (inout Transaction) throws -> T) throws -> T {
        try withLock {
            var fresh = ViewState()
            if let bytes = try? FileSystem.read(location.viewStateFile),
                let decoded = try? bytes.withUnsafeBufferPointer({ try ViewStateCodec.decode($0) })
            {
                fresh = decoded
            }
            var transaction = Transaction(state: fresh)
            let result = try body(&transaction)
            guard !transaction.actions.isEmpty else {
                state = fresh
                return result
            }
            guard !isReadOnly else { throw readOnlyError }
            // Not fsynced: view state is disposable (a power cut at worst takes back the last
            // cd or play position; a lost recording-in-progress entry leaves an orphan file
            // that fsck adopts), and record and play write it several times per run.
            try FileSystem.writeAtomically(
                ViewStateCodec.encode(transaction.state), to: location.viewStateFile, durable: false)
            state = transaction.state
            for action in transaction.actions {
                for observer in observers { observer(action, state) }
            }
            return result
        }
    }

    /// The one-line refusal of a change to the view state of a read-only store.
    package var readOnlyError: RecError {
        RecError.failure(
            location.viewStateFile,
            "cannot change the view state: the store is read-only (\(location.writeProblem ?? "not writable"))")
    }

    /// The view-state lock; a read-only store takes none (it never writes).
    private func withLock<T>(_ body: () throws -> T) throws -> T {
        if isReadOnly { return try body() }
        return try FileLock.withLock(location.viewStateLockFile, body)
    }

    package struct Transaction {
        package private(set) var state: ViewState
        package private(set) var actions: [Action] = []

        init(state: ViewState) {
            self.state = state
        }

        package mutating func pushFolder(_ id: ItemID) {
            state.folderStack.append(id)
            actions.append(.pushFolder(id))
        }

        package mutating func popFolder() {
            guard state.folderStack.count > 1, let top = state.folderStack.popLast() else { return }
            actions.append(.popFolder(top))
        }

        /// Replaces the stack with the path to `target`, as the pops and pushes that get there.
        package mutating func navigate(to path: [ItemID]) {
            guard let first = path.first else { return }
            var common = 0
            while common < min(path.count, state.folderStack.count), path[common] == state.folderStack[common] {
                common += 1
            }
            if common == 0 {
                // A saved stack that does not start at the root (a hand edit): start over.
                state.folderStack = [first]
                actions.append(.pushFolder(first))
                common = 1
            }
            while state.folderStack.count > common { popFolder() }
            for id in path[common...] { pushFolder(id) }
        }

        /// Cuts the stack and the selection back to what exists in `document` (see
        /// `ViewState.restored`), as pops, pushes and a deselection. Returns whether
        /// anything changed.
        @discardableResult
        package mutating func trim(to document: Document) -> Bool {
            let restored = state.restored(against: document)
            var changed = false
            if restored.folderStack != state.folderStack {
                navigate(to: restored.folderStack)
                changed = true
            }
            if restored.selection == nil && state.selection != nil {
                selectRecording(nil)
                changed = true
            }
            return changed
        }

        package mutating func selectRecording(_ id: ItemID?, position: Double = 0) {
            state.selection = id.map { .init(recording: $0, position: position) }
            actions.append(.selectRecording(id))
        }

        package mutating func recordingStarted(_ entry: ViewState.RecordingInProgress) {
            state.recording = entry
            actions.append(.recordingStarted(entry))
        }

        /// Keeps a marker of the recording in progress `id` (if it is still the one), so
        /// that crash recovery saves it with the audio.
        package mutating func markRecording(_ id: ItemID, _ marker: Marker) {
            guard state.recording?.id == id else { return }
            state.recording?.markers.append(marker)
            actions.append(.recordingMarked(id, marker))
        }

        package mutating func recordingEnded() {
            guard let entry = state.recording else { return }
            state.recording = nil
            actions.append(.recordingEnded(entry.id))
        }

        package mutating func playbackStarted(_ entry: ViewState.Playback) {
            state.playing = entry
            actions.append(.playbackStarted(entry))
        }

        package mutating func playbackEnded() {
            guard let entry = state.playing else { return }
            state.playing = nil
            actions.append(.playbackEnded(entry.id))
        }

        /// Keeps `speed` as the last playback's (for the next `play`).
        package mutating func setSpeed(_ speed: PlaybackSpeed) {
            guard speed != state.speed else { return }
            state.speed = speed
            actions.append(.speedSet(speed))
        }

        /// Queues `action` for the running `job` under the next sequence number, which it
        /// returns (nil when `job` is not running).
        @discardableResult
        package mutating func requestControl(_ action: ViewState.ControlAction, for job: ViewState.Job) -> Int? {
            guard var control = state.control(of: job) else { return nil }
            control.lastSequence += 1
            let command = ViewState.ControlCommand(sequence: control.lastSequence, action: action)
            control.pending.append(command)
            setControl(control, of: job)
            actions.append(.controlRequested(job, command))
            return command.sequence
        }

        /// The running job's receipt: drops the commands it applied (those up to `through`;
        /// any queued since stay) and records the state it reached. This is the one writer
        /// of positions: a player's goes to the selection, a recorder's to its entry; a
        /// player's `speed`, to the one kept.
        package mutating func acknowledgeControl(
            of job: ViewState.Job, through: Int, paused: Bool, position: Double, speed: PlaybackSpeed? = nil
        ) {
            guard var control = state.control(of: job) else { return }
            control.pending.removeAll { $0.sequence <= through }
            control.paused = paused
            control.reportedAt = Timestamp.now()
            setControl(control, of: job)
            let seconds = max(position, 0)
            switch job {
            case .recording: state.recording?.position = seconds
            case .playback:
                if let playing = state.playing, state.selection?.recording == playing.id {
                    state.selection?.position = seconds
                }
            }
            actions.append(.controlAcknowledged(job, through: through, paused: paused, position: position))
            if job == .playback, let speed { setSpeed(speed) }
        }

        private mutating func setControl(_ control: ViewState.Control, of job: ViewState.Job) {
            switch job {
            case .recording: state.recording?.control = control
            case .playback: state.playing?.control = control
            }
        }
    }
}

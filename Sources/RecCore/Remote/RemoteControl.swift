import RecAudio
import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The other side: what `pause`, `resume`, `toggle`, `stop`, `seek` and `status` do. Each
/// command is a `ViewStateStore` action queued under the lock; the running process follows.
package struct RemoteControl {
    package let library: Library

    package init(library: Library) {
        self.library = library
    }

    package static let nothingRunning = RecError.failure("", "nothing is recording or playing")

    /// Why `action` has nowhere to go: a seek while only a recording runs is refused for
    /// what it is; anything else finds nothing running.
    static func noTarget(for action: ViewState.ControlAction, in state: ViewState) -> RecError {
        switch action {
        case .seek where state.recording != nil, .skip where state.recording != nil,
            .seekMark where state.recording != nil:
            return RecError.failure("seek", "a recording cannot seek; only a playback can")
        case .speed where state.recording != nil, .speedBy where state.recording != nil:
            return RecError.failure("speed", "a recording has no speed; only a playback has")
        default:
            return nothingRunning
        }
    }

    /// A running job as `status` shows it.
    package struct Status: Equatable, Sendable {
        package var job: ViewState.Job
        package var id: ItemID
        /// Where the item is (for a recording in progress: where it will be saved; for one
        /// made with `record --output`, that output: "-" or a file's absolute path).
        package var path: String
        package var pid: Int32
        package var paused: Bool
        /// Stopped by Ctrl-Z at its terminal (or SIGSTOP) until `fg`: it neither plays nor
        /// records, nor answers commands, meanwhile.
        package var suspended: Bool = false
        package var position: Double
        /// The item's length, for a playback.
        package var duration: Double?
        /// Commands queued but not yet applied.
        package var pending: Int
        /// A playback's speed, as the player last reported it; nil for a recording.
        package var speed: PlaybackSpeed? = nil
        /// A recording's live words so far; nil when it is not transcribed live.
        package var words: String? = nil
    }

    /// The running jobs as `status` shows them `now`: a running job's position carried
    /// forward on the clock since it last wrote it (see `ViewState.Control.position`).
    package func statuses(_ state: ViewState, now: Timestamp = .now()) -> [Status] {
        let document = library.document
        var result: [Status] = []
        if let r = state.recording {
            let folder = document.path(of: r.parent)
            let path = r.output ?? (folder == "/" ? "" : folder) + "/" + r.name
            let suspended = processIsStopped(r.pid)
            result.append(
                Status(
                    job: .recording, id: r.id, path: path, pid: r.pid, paused: r.control.paused,
                    suspended: suspended,
                    position: suspended ? r.position : r.control.position(r.position, at: now), duration: nil,
                    pending: r.control.pending.count, words: LiveWordsFiles(location: library.location).text(of: r.id)))
        }
        if let p = state.playing {
            let duration = document[p.id]?.recording?.duration
            let reported = state.position(of: .playback) ?? 0
            let suspended = processIsStopped(p.pid)
            let carried = suspended ? reported : p.control.position(reported, at: now, speed: state.speed.factor)
            result.append(
                Status(
                    job: .playback, id: p.id, path: document.whereabouts(of: p.id) ?? "(removed)", pid: p.pid,
                    paused: p.control.paused, suspended: suspended,
                    position: duration.map { min(carried, $0) } ?? carried,
                    duration: duration, pending: p.control.pending.count, speed: state.speed))
        }
        return result
    }

    /// Clears what dead processes left: a dead recorder's audio is recovered (as every
    /// command would), a dead player's entry is dropped. Returns a note for each.
    package func clearDead() throws -> [String] {
        var notes: [String] = []
        if let entry = library.viewState.state.recording, !processIsAlive(entry.pid) {
            let note: String?
            do { note = try library.recoverInterruptedRecording() } catch let waiting as RecoveryWaits {
                return [waiting.description]  // the entry stays, for a command that can write
            }
            if entry.output != nil {
                notes.append(
                    "the recorder to \(entry.destination) (pid \(entry.pid)) is no longer running; its entry was cleared"
                )
            } else {
                notes.append(
                    "the recorder (pid \(entry.pid)) is no longer running; " + (note ?? "its entry was cleared"))
            }
        }
        var dead: ViewState.Playback?
        // Nothing to clear takes no lock and changes no file.
        guard let playing = library.viewState.state.playing, !processIsAlive(playing.pid) else { return notes }
        try library.viewState.transaction { vs in
            if let entry = vs.state.playing, !processIsAlive(entry.pid) {
                dead = entry
                vs.playbackEnded()
            }
        }
        if let dead {
            notes.append(
                "the player of \(library.document.path(of: dead.id)) (pid \(dead.pid)) is no longer running; its entry was cleared"
            )
        }
        return notes
    }

    /// The running jobs, from the state on disk.
    package func running() -> [Status] {
        // A dead recorder whose audio waits to be saved (a full disk) keeps its entry, but it
        // is not running.
        statuses(ViewStateStore.peek(library.location) ?? library.viewState.state).filter { processIsAlive($0.pid) }
    }

    /// Which job a command goes to: a seek to the playback; anything else to the recording
    /// if one runs (a dictation hotkey matters most), else to the playback.
    static func target(for action: ViewState.ControlAction, in state: ViewState) -> ViewState.Job? {
        let recording = state.recording.map { processIsAlive($0.pid) } ?? false
        let playing = state.playing.map { processIsAlive($0.pid) } ?? false
        switch action {
        case .seek, .skip, .seekMark, .speed, .speedBy:
            return playing ? .playback : nil
        default:
            return recording ? .recording : playing ? .playback : nil
        }
    }

    package struct Sent: Equatable, Sendable {
        package var job: ViewState.Job
        package var id: ItemID
        package var pid: Int32
        package var sequence: Int
        /// For a recording made with `record --output`: where its audio went.
        package var output: String?
    }

    /// Queues `action` for the running job under the view-state lock, then wakes the job.
    package func send(_ action: ViewState.ControlAction) throws -> Sent {
        // Refused before the lock when nothing runs, so a failed command changes no file.
        if Self.target(for: action, in: ViewStateStore.peek(library.location) ?? ViewState()) == nil {
            throw Self.noTarget(for: action, in: library.viewState.state)
        }
        let sent = try library.viewState.transaction { vs in
            guard let job = Self.target(for: action, in: vs.state) else {
                throw Self.noTarget(for: action, in: vs.state)
            }
            let id = job == .recording ? vs.state.recording!.id : vs.state.playing!.id
            let pid = vs.state.pid(of: job)!
            guard let sequence = vs.requestControl(action, for: job) else { throw Self.nothingRunning }
            return Sent(
                job: job, id: id, pid: pid, sequence: sequence,
                output: job == .recording ? vs.state.recording?.output : nil)
        }
        // After the write, never before: the job reads the file when it wakes.
        WakeSignal.send(to: sent.pid)
        return sent
    }

    /// Resolves a `seek` time against the playing item (relative times stay relative, for
    /// the player to apply where it is) and queues it.
    package func seek(_ spec: TimeSpec, text: String) throws -> Sent {
        guard let playing = library.viewState.state.playing, processIsAlive(playing.pid) else {
            throw Self.noTarget(for: .seek(to: 0), in: library.viewState.state)
        }
        if case .relative(let delta) = spec { return try send(.skip(by: delta)) }
        let duration = library.document[playing.id]?.recording?.duration ?? 0
        return try send(.seek(to: try spec.resolve(duration: duration, spec: text)))
    }

    /// `seek next-mark` / `prev-mark`: the playing recording's markers go with the command,
    /// for the player to pick from where it is when it applies it.
    package func seekMark(forward: Bool) throws -> Sent {
        guard let playing = library.viewState.state.playing, processIsAlive(playing.pid) else {
            throw Self.noTarget(for: .seekMark(forward: forward, frames: []), in: library.viewState.state)
        }
        let item = library.document[playing.id]
        let frames = item?.annotations.markers.map(\.frame) ?? []
        guard !frames.isEmpty else {
            throw RecError.failure(
                forward ? "next-mark" : "prev-mark", "\(library.document.path(of: playing.id)) has no markers")
        }
        return try send(.seekMark(forward: forward, frames: frames))
    }

    /// `recnotes speed`: a factor (`1.5`, `1.5x`, `150%`), or a change from wherever the
    /// player is when it applies it (`+0.25`, `-0.25`; held inside the range there).
    /// Parsed before anything is sent: a bad speed is a usage error even with nothing playing.
    /// The stretcher's library is opened here too (as `play --speed` does): missing, the
    /// player could not make a stretcher, so the command fails before it is sent, not after
    /// a player that stayed at 1×.
    package static func speedAction(_ text: String) throws(RecError) -> ViewState.ControlAction {
        let action: ViewState.ControlAction
        if let sign = text.first, sign == "+" || sign == "-" {
            let magnitude = try PlaybackSpeed.parseChange(String(text.dropFirst()), text: text)
            action = .speedBy(sign == "-" ? -magnitude : magnitude)
        } else {
            action = .speed(to: try PlaybackSpeed.parse(text, option: "speed").factor)
        }
        if action != .speed(to: 1) { try TimeStretch.load(for: "speed") }
        return action
    }

    /// Ends the playback another process runs, for a new `play` (one playback at a time):
    /// queues a stop for it, as `recnotes stop` does, and waits until it has ended. Returns
    /// what was stopped, or nil when nothing else was playing.
    package func stopOtherPlayback(timeout: Double = 10) throws -> Status? {
        guard let playing = (ViewStateStore.peek(library.location) ?? library.viewState.state).playing,
            playing.pid != getpid(), processIsAlive(playing.pid)
        else { return nil }
        let watcher = try ViewStateWatcher(location: library.location)
        var sent: Sent?
        var stopped: Status?
        try library.viewState.transaction { vs in
            guard let entry = vs.state.playing, entry.pid != getpid(), processIsAlive(entry.pid),
                let sequence = vs.requestControl(.stop, for: .playback)
            else { return }
            stopped = statuses(vs.state).first { $0.job == .playback }
            sent = Sent(job: .playback, id: entry.id, pid: entry.pid, sequence: sequence, output: nil)
        }
        guard let sent, let stopped else { return nil }
        WakeSignal.send(to: sent.pid)
        switch wait(for: sent, until: .stop, watcher: watcher, timeout: timeout) {
        case .ended, .died, .applied:
            return stopped
        case .timedOut:
            throw RecError.failure(
                "play", "the playback of \(stopped.path) (pid \(sent.pid)) did not stop within \(Int(timeout)) s")
        }
    }

    package enum Outcome: Equatable, Sendable {
        /// The running process applied the command and reported the state it reached.
        case applied(Status)
        /// The job has ended (what `stop` waits for).
        case ended
        /// The process died before it applied the command.
        case died
        /// No answer in time; the command stays queued.
        case timedOut
    }

    /// Waits until the running process has acknowledged `sent` (for a stop: until the job is
    /// over and its item saved). The watcher must have been made before the command was
    /// sent, so that no change can slip between sending and waiting.
    package func wait(for sent: Sent, until: ViewState.ControlAction, watcher: ViewStateWatcher, timeout: Double)
        -> Outcome
    {
        let deadline = MonotonicClock.now() + timeout
        while true {
            let state = ViewStateStore.peek(library.location) ?? ViewState()
            guard state.isOwn(sent.job, id: sent.id, pid: sent.pid), let control = state.control(of: sent.job) else {
                return .ended
            }
            if until != .stop, !control.pending.contains(where: { $0.sequence <= sent.sequence }),
                let status = statuses(state).first(where: { $0.job == sent.job })
            {
                return .applied(status)
            }
            if !processIsAlive(sent.pid) {
                // It may have finished (entry cleared) between the read above and now.
                let last = ViewStateStore.peek(library.location) ?? ViewState()
                return last.isOwn(sent.job, id: sent.id, pid: sent.pid) ? .died : .ended
            }
            let left = deadline - MonotonicClock.now()
            if left <= 0 { return .timedOut }
            _ = watcher.wait(milliseconds: Int32(min(left, 0.5) * 1000) + 1)
        }
    }
}

extension RemoteControl {
    /// A marker a running job added, as `mark` reports it: numbered as `marks` numbers it.
    package struct AddedMarker: Equatable, Sendable {
        package var marker: Marker
        /// 1-based, in time order among the item's markers.
        package var number: Int
        package var sampleRate: Int
    }

    /// The item `job` is running on now, if it runs.
    package func runningItem(_ job: ViewState.Job) -> ItemID? {
        let state = ViewStateStore.peek(library.location)
        return job == .recording ? state?.recording?.id : state?.playing?.id
    }

    /// The markers `job`'s item holds now, in time order, with its sample rate: a recording's
    /// from its in-progress entry (where `mark` puts them until it is saved), a playback's
    /// from the store as last saved (the player adds them at once).
    package func markers(of job: ViewState.Job, id: ItemID) throws -> (markers: [Marker], sampleRate: Int)? {
        switch job {
        case .recording:
            guard let entry = ViewStateStore.peek(library.location)?.recording, entry.id == id else { return nil }
            return (entry.markers.sorted { $0.frame < $1.frame }, entry.sampleRate)
        case .playback:
            // The store as saved now: read again only if it changed (the player writes it).
            _ = try library.documents.refresh()
            let document = library.document
            guard let item = document[id], let info = item.recording else {
                // In the trash since it started playing: no marker can be saved on it.
                if document.whereabouts(of: id) != nil { throw Self.markInTrash(document.whereabouts(of: id)!) }
                return nil
            }
            return (item.annotations.markers, info.sampleRate)
        }
    }

    /// The marker the job of `sent` (a `mark`) added, given what its item held `before`.
    /// A player saves its marker on a worker of its own just after acknowledging, so this
    /// waits for it a little (up to 5 s): when `mark` returns, `marks` shows it.
    package func addedMarker(by sent: Sent, before: [Marker]) throws -> AddedMarker? {
        let deadline = MonotonicClock.now() + 5
        while true {
            if let now = try markers(of: sent.job, id: sent.id),
                let added = Self.added(before: before, after: now.markers, sampleRate: now.sampleRate)
            {
                return added
            }
            guard sent.job == .playback, MonotonicClock.now() < deadline, processIsAlive(sent.pid) else {
                return nil
            }
            usleep(20_000)
        }
    }

    /// A marker for a playback whose recording was moved to the trash while it played.
    static func markInTrash(_ whereabouts: String) -> RecError {
        RecError.failure(
            whereabouts,
            "was moved to the trash while it played; no marker is kept there ('trash restore' it, then 'mark PATH --at TIME')"
        )
    }

    /// The marker in `after` that `before` did not have (a multiset difference: two markers
    /// may share a frame and a label), with its number among `after`.
    package static func added(before: [Marker], after: [Marker], sampleRate: Int) -> AddedMarker? {
        var remaining: [Marker: Int] = [:]
        for marker in before { remaining[marker, default: 0] += 1 }
        for (i, marker) in after.enumerated() {
            if let count = remaining[marker], count > 0 {
                remaining[marker] = count - 1
            } else {
                return AddedMarker(marker: marker, number: i + 1, sampleRate: sampleRate)
            }
        }
        return nil
    }
}

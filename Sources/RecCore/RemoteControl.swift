#if canImport(Glibc)
import Glibc
#endif

extension ViewStateStore {
    /// The view state as on disk, read without the lock: every write is an atomic rename,
    /// so a reader sees one whole version or the next. nil if missing or unreadable.
    public static func peek(_ location: StoreLocation) -> ViewState? {
        guard let bytes = try? FileSystem.read(location.viewStateFile) else { return nil }
        return try? bytes.withUnsafeBufferPointer { try ViewStateCodec.decode($0) }
    }
}

extension ViewState {
    /// Whether `job` is registered to this process with this item.
    func isOwn(_ job: Job, id: ItemID, pid: Int32) -> Bool {
        switch job {
        case .recording: return recording?.id == id && recording?.pid == pid
        case .playback: return playing?.id == id && playing?.pid == pid
        }
    }
}

/// Keeps a running recorder or player in step with the view state, on a thread of its own
/// so that neither capture nor playback ever waits for the disk or the lock.
///
/// When another process queues commands for this job, the follower hands the new ones (by
/// sequence number) to the engine's mailbox. When the engine has applied them and sent its
/// events, the follower acknowledges under the view-state lock: it removes what was
/// applied and writes the paused flag and position the engine reached. About once a
/// second it also writes the position, so `status` stays current.
public final class RemoteFollower: @unchecked Sendable {
    private let location: StoreLocation
    private let job: ViewState.Job
    private let id: ItemID
    private let pid = getpid()
    private let mailbox: ControlMailbox
    private let sampleRate: Int
    private let watcher: ViewStateWatcher
    /// Its own store object: the session's belongs to the main thread.
    private let store: ViewStateStore
    private var thread: AudioThread?

    public init(location: StoreLocation, job: ViewState.Job, id: ItemID, mailbox: ControlMailbox, sampleRate: Int) throws {
        self.location = location
        self.job = job
        self.id = id
        self.mailbox = mailbox
        self.sampleRate = sampleRate
        watcher = try ViewStateWatcher(location: location)
        store = try ViewStateStore(location: location)
        mailbox.onApplied = { [watcher] in watcher.wake() }
    }

    public func start() throws {
        guard thread == nil else { return }
        thread = try AudioThread { [self] in loop() }
    }

    /// Runs `body` (the engine's loop) while a follower keeps the job in step with the view
    /// state. Without inotify (out of watches) the job still runs, only not remotely.
    public static func following<T>(location: StoreLocation, job: ViewState.Job, id: ItemID, mailbox: ControlMailbox,
                                    sampleRate: Int, _ body: () throws -> T) rethrows -> T {
        let follower = try? RemoteFollower(location: location, job: job, id: id, mailbox: mailbox, sampleRate: sampleRate)
        try? follower?.start()
        defer { follower?.stop() }
        return try body()
    }

    /// Stops following; what the engine applied by now is acknowledged first.
    public func stop() {
        watcher.stop()
        thread?.join()
        thread = nil
        mailbox.onApplied = nil
    }

    deinit { stop() }

    private func loop() {
        var forwarded = 0, acknowledged = 0
        var written: (paused: Bool, frames: Int64)?
        var lastWrite = monotonicSeconds()
        var reread = true
        while true {
            if reread, let state = ViewStateStore.peek(location), state.isOwn(job, id: id, pid: pid),
               let control = state.control(of: job) {
                for command in control.pending where command.sequence > forwarded {
                    mailbox.submit(command.action, sequence: command.sequence)
                    forwarded = command.sequence
                }
            }
            reread = false
            let now = mailbox.state
            let due = monotonicSeconds() - lastWrite >= 1 && (written.map { $0 != (now.paused, now.frames) } ?? true)
            if now.applied > acknowledged || due {
                acknowledge(now)
                acknowledged = max(acknowledged, now.applied)
                written = (now.paused, now.frames)
                lastWrite = monotonicSeconds()
            }
            switch watcher.wait(milliseconds: 250) {
            case .stopped:
                let final = mailbox.state
                if final.applied > acknowledged { acknowledge(final) }
                return
            case .changed: reread = true
            case .woken, .timedOut: break
            }
        }
    }

    private func acknowledge(_ now: (applied: Int, paused: Bool, frames: Int64)) {
        let job = job, id = id, pid = pid
        let seconds = Double(now.frames) / Double(sampleRate)
        try? store.transaction { vs in
            guard vs.state.isOwn(job, id: id, pid: pid) else { return }
            vs.acknowledgeControl(of: job, through: now.applied, paused: now.paused, position: seconds)
        }
    }
}

/// The other side: what `pause`, `resume`, `toggle`, `stop`, `seek` and `status` do. Each
/// command is a `ViewStateStore` action queued under the lock; the running process follows.
public struct RemoteControl {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    public static let nothingRunning = RecError.failure("", "nothing is recording or playing")

    /// A running job as `status` shows it.
    public struct Status: Equatable, Sendable {
        public var job: ViewState.Job
        public var id: ItemID
        /// Where the item is (for a recording in progress: where it will be saved; for one
        /// made with `record --output`, that output: "-" or a file's absolute path).
        public var path: String
        public var pid: Int32
        public var paused: Bool
        public var position: Double
        /// The item's length, for a playback.
        public var duration: Double?
        /// Commands queued but not yet applied.
        public var pending: Int
    }

    public func statuses(_ state: ViewState) -> [Status] {
        let document = library.document
        var result: [Status] = []
        if let r = state.recording {
            let folder = document.path(of: r.parent)
            let path = r.output ?? (folder == "/" ? "" : folder) + "/" + r.name
            result.append(Status(job: .recording, id: r.id, path: path, pid: r.pid,
                                 paused: r.control.paused, position: r.control.position, duration: nil,
                                 pending: r.control.pending.count))
        }
        if let p = state.playing {
            result.append(Status(job: .playback, id: p.id, path: document.path(of: p.id), pid: p.pid,
                                 paused: p.control.paused, position: p.control.position,
                                 duration: document[p.id]?.recording?.duration, pending: p.control.pending.count))
        }
        return result
    }

    /// Clears what dead processes left: a dead recorder's audio is recovered (as every
    /// command would), a dead player's entry is dropped. Returns a note for each.
    public func clearDead() throws -> [String] {
        var notes: [String] = []
        if let entry = library.viewState.state.recording, !processIsAlive(entry.pid) {
            let note = try library.recoverInterruptedRecording()
            if entry.output != nil {
                notes.append("the recorder to \(entry.destination) (pid \(entry.pid)) is no longer running; its entry was cleared")
            } else {
                notes.append("the recorder (pid \(entry.pid)) is no longer running; " + (note ?? "its entry was cleared"))
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
            notes.append("the player of \(library.document.path(of: dead.id)) (pid \(dead.pid)) is no longer running; its entry was cleared")
        }
        return notes
    }

    /// The running jobs, from the state on disk.
    public func running() -> [Status] {
        statuses(ViewStateStore.peek(library.location) ?? library.viewState.state)
    }

    /// Which job a command goes to: a seek to the playback; anything else to the recording
    /// if one runs (a dictation hotkey matters most), else to the playback.
    static func target(for action: ViewState.ControlAction, in state: ViewState) -> ViewState.Job? {
        let recording = state.recording.map { processIsAlive($0.pid) } ?? false
        let playing = state.playing.map { processIsAlive($0.pid) } ?? false
        switch action {
        case .seek, .skip:
            return playing ? .playback : nil
        default:
            return recording ? .recording : playing ? .playback : nil
        }
    }

    public struct Sent: Equatable, Sendable {
        public var job: ViewState.Job
        public var id: ItemID
        public var pid: Int32
        public var sequence: Int
        /// For a recording made with `record --output`: where its audio went.
        public var output: String?
    }

    /// Queues `action` for the running job under the view-state lock.
    public func send(_ action: ViewState.ControlAction) throws -> Sent {
        // Refused before the lock when nothing runs, so a failed command changes no file.
        if Self.target(for: action, in: ViewStateStore.peek(library.location) ?? ViewState()) == nil {
            if case .seek = action, library.viewState.state.recording != nil { throw RecError.failure("seek", "a recording cannot seek; only a playback can") }
            if case .skip = action, library.viewState.state.recording != nil { throw RecError.failure("seek", "a recording cannot seek; only a playback can") }
            throw Self.nothingRunning
        }
        return try library.viewState.transaction { vs in
            guard let job = Self.target(for: action, in: vs.state) else {
                if case .seek = action, vs.state.recording != nil { throw RecError.failure("seek", "a recording cannot seek; only a playback can") }
                if case .skip = action, vs.state.recording != nil { throw RecError.failure("seek", "a recording cannot seek; only a playback can") }
                throw Self.nothingRunning
            }
            let id = job == .recording ? vs.state.recording!.id : vs.state.playing!.id
            let pid = vs.state.pid(of: job)!
            guard let sequence = vs.requestControl(action, for: job) else { throw Self.nothingRunning }
            return Sent(job: job, id: id, pid: pid, sequence: sequence,
                        output: job == .recording ? vs.state.recording?.output : nil)
        }
    }

    /// Resolves a `seek` time against the playing item (relative times stay relative, for
    /// the player to apply where it is) and queues it.
    public func seek(_ spec: TimeSpec, text: String) throws -> Sent {
        guard let playing = library.viewState.state.playing, processIsAlive(playing.pid) else {
            if library.viewState.state.recording != nil { throw RecError.failure("seek", "a recording cannot seek; only a playback can") }
            throw Self.nothingRunning
        }
        if case let .relative(delta) = spec { return try send(.skip(by: delta)) }
        let duration = library.document[playing.id]?.recording?.duration ?? 0
        return try send(.seek(to: try spec.resolve(duration: duration, spec: text)))
    }

    public enum Outcome: Equatable, Sendable {
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
    public func wait(for sent: Sent, until: ViewState.ControlAction, watcher: ViewStateWatcher, timeout: Double) -> Outcome {
        let deadline = monotonicSeconds() + timeout
        while true {
            let state = ViewStateStore.peek(library.location) ?? ViewState()
            guard state.isOwn(sent.job, id: sent.id, pid: sent.pid), let control = state.control(of: sent.job) else {
                return .ended
            }
            if until != .stop, !control.pending.contains(where: { $0.sequence <= sent.sequence }),
               let status = statuses(state).first(where: { $0.job == sent.job }) {
                return .applied(status)
            }
            if !processIsAlive(sent.pid) {
                // It may have finished (entry cleared) between the read above and now.
                let last = ViewStateStore.peek(library.location) ?? ViewState()
                return last.isOwn(sent.job, id: sent.id, pid: sent.pid) ? .died : .ended
            }
            let left = deadline - monotonicSeconds()
            if left <= 0 { return .timedOut }
            _ = watcher.wait(milliseconds: Int32(min(left, 0.5) * 1000) + 1)
        }
    }
}

extension RemoteControl.Status {
    /// `recording  /Ideas/standup  00:00:12  paused  pid 4242`
    public var line: String {
        var position = Format.clock(self.position)
        if let duration { position += " / " + Format.clock(duration) }
        return [job == .recording ? "recording" : "playing", path, position, paused ? "paused" : "running", "pid \(pid)"]
            .joined(separator: "  ")
    }
}

extension ItemJSON {
    /// `{"recording": {...} | null, "playing": {...} | null}`: always both keys, so a
    /// script can ask for either without testing the shape.
    public static func status(_ statuses: [RemoteControl.Status]) -> String {
        var w = JSONWriter()
        w.raw("{")
        for (i, job) in ViewState.Job.allCases.enumerated() {
            if i > 0 { w.raw(", ") }
            w.raw(job == .recording ? "\"recording\": " : "\"playing\": ")
            if let s = statuses.first(where: { $0.job == job }) {
                writeStatus(s, to: &w)
            } else {
                w.raw("null")
            }
        }
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    public static func status(_ s: RemoteControl.Status) -> String {
        var w = JSONWriter()
        writeStatus(s, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    static func writeStatus(_ s: RemoteControl.Status, to w: inout JSONWriter) {
        w.raw("{\"state\": ")
        w.string(s.job == .recording ? "recording" : "playing")
        w.raw(", \"uuid\": ")
        w.id(s.id)
        w.raw(", \"path\": ")
        w.string(s.path)
        w.raw(", \"position\": ")
        w.double((s.position * 1000).rounded() / 1000)
        if let duration = s.duration {
            w.raw(", \"duration\": ")
            w.double(duration)
        }
        w.raw(", \"paused\": ")
        w.bool(s.paused)
        w.raw(", \"pid\": ")
        w.int(s.pid)
        w.raw(", \"pending\": ")
        w.int(s.pending)
        w.raw("}")
    }
}

extension ItemJSON {
    /// What `stop --json` prints once the job is over.
    public static func stopped(_ job: ViewState.Job, id: ItemID, path: String) -> String {
        var w = JSONWriter()
        w.raw("{\"stopped\": ")
        w.string(job == .recording ? "recording" : "playing")
        w.raw(", \"uuid\": ")
        w.id(id)
        w.raw(", \"path\": ")
        w.string(path)
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

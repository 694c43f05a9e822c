import RecValues

/// Everything besides the documents that should survive between runs. It can be thrown
/// away and rebuilt at any time; the documents never can.
public struct ViewState: Equatable, Sendable {
    public static let currentVersion = 1

    /// The recording the player last had, and where it was.
    public struct Selection: Equatable, Sendable {
        public var recording: ItemID
        /// Seconds from the start: the play position, the only one kept. While the
        /// recording plays, its player's follower is the one writer (see RemoteFollower).
        public var position: Double

        public init(recording: ItemID, position: Double) {
            self.recording = recording
            self.position = position
        }
    }

    /// A recording being captured right now. If its process dies, the next command finds
    /// this entry with a dead pid and recovers the audio.
    ///
    /// `record --output` registers one too, so that `status`, `pause` and `stop` reach it;
    /// its audio goes to `output` ("-" for standard output, or an absolute file name)
    /// instead of the store, so it has no `file`, and `name` is `output`.
    public struct RecordingInProgress: Equatable, Sendable {
        public var id: ItemID
        public var parent: ItemID
        public var name: String
        /// The audio file's name inside `audio/`; empty for a recording to `output`.
        public var file: String
        public var output: String?
        /// nil for raw samples (`record --output - --encoding`).
        public var format: AudioFormat?
        public var sampleRate: Int
        public var channels: Int
        public var pid: Int32
        public var started: Timestamp
        /// Seconds recorded so far, as the recorder last acknowledged.
        public var position: Double
        /// Markers added while recording (`m`, `M`, `recnotes mark`), in frames of this
        /// recording, in the order they were added: saved with it, or by crash recovery.
        public var markers: [Marker]
        /// `record --enhance`: the enhancement it is saved with, here too so that crash
        /// recovery saves it with the same choice.
        public var enhance: Enhancement
        public var control: Control

        public init(
            id: ItemID, parent: ItemID, name: String, file: String, output: String? = nil, format: AudioFormat?,
            sampleRate: Int, channels: Int, pid: Int32, started: Timestamp, position: Double = 0,
            markers: [Marker] = [], enhance: Enhancement = .off, control: Control = .init()
        ) {
            self.id = id
            self.parent = parent
            self.name = name
            self.file = file
            self.output = output
            self.format = format
            self.sampleRate = sampleRate
            self.channels = channels
            self.pid = pid
            self.started = started
            self.position = position
            self.markers = markers
            self.enhance = enhance
            self.control = control
        }

        /// Where the audio goes, as messages name it.
        public var destination: String {
            switch output {
            case nil: return "\"\(name)\""
            case "-": return "standard output"
            case let path?: return path
            }
        }

        /// Whether `output` is a destination an entry may name: "-" or an absolute path.
        static func isValidOutput(_ output: String) -> Bool {
            output == "-" || (output.hasPrefix("/") && !output.utf8.contains(0))
        }
    }

    /// A playback running right now, so that other shells can pause, seek or stop it. Its
    /// position is the selection's (the recording playing is always the selected one).
    public struct Playback: Equatable, Sendable {
        public var id: ItemID
        public var pid: Int32
        public var started: Timestamp
        public var control: Control

        public init(id: ItemID, pid: Int32, started: Timestamp, control: Control = .init()) {
            self.id = id
            self.pid = pid
            self.started = started
            self.control = control
        }
    }

    /// Which running process a control command is for.
    public enum Job: String, Equatable, Sendable, CaseIterable {
        case recording, playback
    }

    /// What another shell asks a running recorder or player to do.
    public enum ControlAction: Equatable, Sendable {
        case pause, resume, toggle, stop
        /// Seconds from the start.
        case seek(to: Double)
        /// Seconds forward (negative: back) from wherever the player is when it applies it;
        /// kept relative so that two `seek +5s` sent at once move ten seconds.
        case skip(by: Double)
        /// A marker where the job is when it applies it (`recnotes mark [LABEL]`).
        case mark(label: String)
        /// To the next (or previous) of the recording's markers, `frames`, from wherever the
        /// player is when it applies it (`recnotes seek next-mark` / `prev-mark`).
        case seekMark(forward: Bool, frames: [Int64])
        /// Play at this factor (`recnotes speed 1.5`).
        case speed(to: Double)
        /// Faster by this much (negative: slower) than the player is when it applies it
        /// (`recnotes speed +0.25`), so that two sent at once add up.
        case speedBy(Double)
    }

    public struct ControlCommand: Equatable, Sendable {
        public var sequence: Int
        public var action: ControlAction

        public init(sequence: Int, action: ControlAction) {
            self.sequence = sequence
            self.action = action
        }
    }

    /// The remote-control channel of a running job: commands wait in `pending` until the
    /// running process applies them and removes them by sequence number, together with
    /// whether it is `paused` (its position is written beside, in one place per job: see
    /// `position(of:)`). Commands are queued, never overwritten, so two sent at once are
    /// both applied.
    public struct Control: Equatable, Sendable {
        /// As the running process last acknowledged.
        public var paused: Bool
        public var pending: [ControlCommand]
        /// The last sequence number handed out. It only grows, so an acknowledgement "up to
        /// n" can never drop a command queued after the process read the file.
        public var lastSequence: Int
        /// When the running process last wrote its position (wall clock, as other processes
        /// read it); nil in a file from before it was kept.
        public var reportedAt: Timestamp?

        public init(
            paused: Bool = false, pending: [ControlCommand] = [], lastSequence: Int = 0, reportedAt: Timestamp? = nil
        ) {
            self.paused = paused
            self.pending = pending
            self.lastSequence = lastSequence
            self.reportedAt = reportedAt
        }

        /// How far past its last report a running job's position may be carried: its report
        /// period (about a second) and some slack for a busy machine. A job that stops
        /// reporting (stopped by Ctrl-Z, or hung) is never shown further ahead than this.
        public static let carryAllowance = 1.5

        /// Where a job that reported `position` is `now`: carried forward on the clock since
        /// its report while it runs, as a media player's time display is, so that readings a
        /// moment apart differ by that moment; exactly the report when paused.
        public func position(_ position: Double, at now: Timestamp) -> Double {
            self.position(position, at: now, speed: 1)
        }

        /// The same for a player at `speed`: a second of the clock is `speed` seconds of
        /// the recording.
        public func position(_ position: Double, at now: Timestamp, speed: Double) -> Double {
            guard !paused, let reportedAt else { return position }
            let elapsed = Double(now.millisecondsSinceEpoch - reportedAt.millisecondsSinceEpoch) / 1000
            return position + min(max(elapsed, 0), Self.carryAllowance) * speed
        }
    }

    /// The folder navigation stack, root first. Never empty.
    public var folderStack: [ItemID]
    public var selection: Selection?
    public var recording: RecordingInProgress?
    public var playing: Playback?
    /// The speed of the last playback, as it last was (keys, `recnotes speed`): the next
    /// `play` without `--speed` plays at it, as podcast players do; while one plays, its
    /// speed now.
    public var speed: PlaybackSpeed

    public init(
        folderStack: [ItemID] = [.root], selection: Selection? = nil, recording: RecordingInProgress? = nil,
        playing: Playback? = nil, speed: PlaybackSpeed = .normal
    ) {
        self.folderStack = folderStack.isEmpty ? [.root] : folderStack
        self.selection = selection
        self.recording = recording
        self.playing = playing
        self.speed = speed
    }

    /// The control channel of `job`, if that job is running (or was, by a dead process).
    public func control(of job: Job) -> Control? {
        switch job {
        case .recording: return recording?.control
        case .playback: return playing?.control
        }
    }

    /// The pid registered for `job`.
    public func pid(of job: Job) -> Int32? {
        switch job {
        case .recording: return recording?.pid
        case .playback: return playing?.pid
        }
    }

    /// Where `job` is, in seconds: a recording's length so far, or the play position (the
    /// selection's, as long as it is the recording playing).
    public func position(of job: Job) -> Double? {
        switch job {
        case .recording: return recording?.position
        case .playback:
            guard let playing else { return nil }
            return selection?.recording == playing.id ? selection?.position : nil
        }
    }

    public var currentFolder: ItemID { folderStack.last ?? .root }

    /// The state as it applies to `document`: the stack is cut back to the deepest folder
    /// that still exists and rebuilt as that folder's real ancestry (so a folder moved by
    /// another command is followed), and a selection of a vanished recording is dropped.
    public func restored(against document: Document) -> ViewState {
        var copy = self
        let deepest = folderStack.last { document[$0]?.isFolder == true } ?? .root
        copy.folderStack = document.ancestry(of: deepest).map(\.id)
        if let selection, document[selection.recording]?.recording == nil { copy.selection = nil }
        return copy
    }
}

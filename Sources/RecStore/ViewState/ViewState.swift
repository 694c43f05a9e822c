import RecValues

/// Everything besides the documents that should survive between runs. It can be thrown
/// away and rebuilt at any time; the documents never can.
package struct ViewState: Equatable, Sendable {
    package static let currentVersion = 1

    /// The recording the player last had, and where it was.
    package struct Selection: Equatable, Sendable {
        package var recording: ItemID
        /// Seconds from the start: the play position, the only one kept. While the
        /// recording plays, its player's follower is the one writer (see RemoteFollower).
        package var position: Double

        package init(recording: ItemID, position: Double) {
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
    package struct RecordingInProgress: Equatable, Sendable {
        package var id: ItemID
        package var parent: ItemID
        package var name: String
        /// The audio file's name inside `audio/`; empty for a recording to `output`.
        package var file: String
        package var output: String?
        /// nil for raw samples (`record --output - --encoding`).
        package var format: AudioFormat?
        package var sampleRate: Int
        package var channels: Int
        package var pid: Int32
        package var started: Timestamp
        /// Seconds recorded so far, as the recorder last acknowledged.
        package var position: Double
        /// Markers added while recording (`m`, `M`, `recnotes mark`), in frames of this
        /// recording, in the order they were added: saved with it, or by crash recovery.
        package var markers: [Marker]
        /// `record --enhance`: the enhancement it is saved with, here too so that crash
        /// recovery saves it with the same choice.
        package var enhance: Enhancement
        package var control: Control

        package init(
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
        package var destination: String {
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
    package struct Playback: Equatable, Sendable {
        package var id: ItemID
        package var pid: Int32
        package var started: Timestamp
        package var control: Control

        package init(id: ItemID, pid: Int32, started: Timestamp, control: Control = .init()) {
            self.id = id
            self.pid = pid
            self.started = started
            self.control = control
        }
    }

    /// Which running process a control command is for.
    package enum Job: String, Equatable, Sendable, CaseIterable {
        case recording, playback
    }

    /// What another shell asks a running recorder or player to do.
    package enum ControlAction: Equatable, Sendable {
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

    package struct ControlCommand: Equatable, Sendable {
        package var sequence: Int
        package var action: ControlAction

        package init(sequence: Int, action: ControlAction) {
            self.sequence = sequence
            self.action = action
        }
    }

    /// The remote-control channel of a running job: commands wait in `pending` until the
    /// running process applies them and removes them by sequence number, together with
    /// whether it is `paused` (its position is written beside, in one place per job: see
    /// `position(of:)`). Commands are queued, never overwritten, so two sent at once are
    /// both applied.
    package struct Control: Equatable, Sendable {
        /// As the running process last acknowledged.
        package var paused: Bool
        package var pending: [ControlCommand]
        /// The last sequence number handed out. It only grows, so an acknowledgement "up to
        /// n" can never drop a command queued after the process read the file.
        package var lastSequence: Int
        /// When the running process last wrote its position (wall clock, as other processes
        /// read it); nil in a file from before it was kept.
        package var reportedAt: Timestamp?

        package init(
            paused: Bool = false, pending: [ControlCommand] = [], lastSequence: Int = 0, reportedAt: Timestamp? = nil
        ) {
            self.paused = paused
            self.pending = pending
            self.lastSequence = lastSequence
            self.reportedAt = reportedAt
        }

        /// How often a running job writes its position when nothing else changed. Readers
        /// carry it forward on the clock, so it need not be often, and each write is a
        /// rename of viewstate.json (a write-back of the file on ext4): once a second that
        /// was a tenth of a recording's CPU. A pause, a command or a speed change is written
        /// at once.
        package static let reportInterval = 5.0

        /// How far past its last report a running job's position may be carried: its report
        /// period and some slack for a busy machine. A job that stops reporting (stopped by
        /// Ctrl-Z, or hung) is never shown further ahead than this.
        package static let carryAllowance = reportInterval + 0.5

        /// Where a job that reported `position` is `now`: carried forward on the clock since
        /// its report while it runs, as a media player's time display is, so that readings a
        /// moment apart differ by that moment; exactly the report when paused.
        package func position(_ position: Double, at now: Timestamp) -> Double {
            self.position(position, at: now, speed: 1)
        }

        /// The same for a player at `speed`: a second of the clock is `speed` seconds of
        /// the recording.
        package func position(_ position: Double, at now: Timestamp, speed: Double) -> Double {
            guard !paused, let reportedAt else { return position }
            let elapsed = Double(now.millisecondsSinceEpoch - reportedAt.millisecondsSinceEpoch) / 1000
            return position + min(max(elapsed, 0), Self.carryAllowance) * speed
        }
    }

    /// The folder navigation stack, root first. Never empty.
    package var folderStack: [ItemID]
    package var selection: Selection?
    package var recording: RecordingInProgress?
    package var playing: Playback?
    /// The speed of the last playback, as it last was (keys, `recnotes speed`): the next
    /// `play` without `--speed` plays at it, as podcast players do; while one plays, its
    /// speed now.
    package var speed: PlaybackSpeed

    package init(
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
    package func control(of job: Job) -> Control? {
        switch job {
        case .recording: return recording?.control
        case .playback: return playing?.control
        }
    }

    /// The pid registered for `job`.
    package func pid(of job: Job) -> Int32? {
        switch job {
        case .recording: return recording?.pid
        case .playback: return playing?.pid
        }
    }

    /// Where `job` is, in seconds: a recording's length so far, or the play position (the
    /// selection's, as long as it is the recording playing).
    package func position(of job: Job) -> Double? {
        switch job {
        case .recording: return recording?.position
        case .playback:
            guard let playing else { return nil }
            return selection?.recording == playing.id ? selection?.position : nil
        }
    }

    package var currentFolder: ItemID { folderStack.last ?? .root }

    /// The state as it applies to `document`: the stack is cut back to the deepest folder
    /// that still exists and rebuilt as that folder's real ancestry (so a folder moved by
    /// another command is followed), and a selection of a vanished recording is dropped.
    package func restored(against document: Document) -> ViewState {
        var copy = self
        copy.folderStack = document.ancestry(of: document.deepestFolder(of: folderStack).id).map(\.id)
        if let selection, document[selection.recording]?.recording == nil { copy.selection = nil }
        return copy
    }
}

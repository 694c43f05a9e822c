import RecAudio
import RecStore
import RecSystem
import RecValues
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The play screen as store changes around a `Player`: the recording becomes the selected
/// one, and its position is kept in the view state while playing (every few seconds, and at
/// once on a pause or seek) and on exit, so that `play` with no PATH resumes where it
/// stopped. The position is written by the player's `RemoteFollower` alone.
package final class PlaybackSession {
    package let library: Library
    package let item: Item
    package let file: SoundFile
    package let player: Player
    /// The frames to play: `start..<end`.
    package let start: Int64
    package let end: Int64
    /// The first frame a seek can reach: the in point, unless `--untrimmed`.
    package let floor: Int64
    /// `--skip-silence`: the silences jumped over, in frames of the file.
    package private(set) var skips: [Range<Int64>] = []
    private var registered = false
    private var startsPaused = false
    /// The recording's markers' frames, with those made while playing (keys `]`, `[`).
    private let markers: Mutex<[Int64]>
    package var markerFrames: [Int64] { markers.withLock { $0 } }
    /// Things the user should know that are not errors (a --seek before the beginning).
    package private(set) var notes: [String] = []
    /// The playback another process ran, stopped to make way for this one.
    package private(set) var replaced: RemoteControl.Status?

    package var sampleRate: Int { file.sampleRate }
    package var duration: Double { file.duration }

    /// Plans (`PlaybackPlan`: the recording, its file, where to start and stop), then acts:
    /// the running playback, if any, ends and lets go of the device, and the device is opened.
    package convenience init(
        library: Library, path: String?, seek: String?, until: String?, fromStart: Bool,
        untrimmed: Bool = false, skipSilence: Double? = nil, silenceThreshold: Double? = nil,
        effects: EffectChoices = EffectChoices(), device: String, deviceConfiguration: String? = nil
    ) throws {
        let plan = try PlaybackPlan(
            library: library, path: path, seek: seek, until: until, fromStart: fromStart, untrimmed: untrimmed,
            skipSilence: skipSilence, silenceThreshold: silenceThreshold, effects: effects)
        try self.init(plan, device: device, deviceConfiguration: deviceConfiguration)
    }

    /// Acts on a plan: only once the recording is known to be playable does the running
    /// playback end (one playback at a time), and then the device is opened.
    package init(_ plan: PlaybackPlan, device: String, deviceConfiguration: String? = nil) throws {
        library = plan.library
        item = plan.item
        file = plan.file
        start = plan.start
        end = plan.end
        floor = plan.floor
        skips = plan.skips
        markers = Mutex(plan.markerFrames)
        notes = plan.notes
        if library.isReadOnly {
            // A backup on read-only media still plays; nothing of it can be written.
            notes.append(
                "the store is read-only; the play position will not be saved, and other shells cannot control this playback"
            )
        } else {
            replaced = try RemoteControl(library: library).stopOtherPlayback()
        }
        player = try Player(
            file: file, device: device, configuration: deviceConfiguration, effects: plan.effects)
    }

    /// Makes the recording the selected one and registers this process as its player, so
    /// that `status` sees it and other shells can control it. `play` does it if not done.
    package func register(paused: Bool = false) throws {
        guard !registered else { return }
        guard !library.isReadOnly else {
            registered = true
            startsPaused = paused
            return
        }
        let id = item.id
        let startSeconds = Double(start) / Double(sampleRate)
        // A player still registered (one that started meanwhile) loses its slot: the
        // newest playback is the one a hotkey means.
        let entry = ViewState.Playback(
            id: id, pid: getpid(), started: .now(),
            control: .init(paused: paused))
        let speed = player.stretch?.speed ?? .normal
        try library.viewState.transaction {
            $0.selectRecording(id, position: startSeconds)
            $0.playbackStarted(entry)
            $0.setSpeed(speed)  // kept for the next `play`; `--speed 1` puts it back to 1×
        }
        registered = true
        startsPaused = paused
    }

    /// Plays, keeping the view state's selection and position up to date, and following
    /// the commands other shells queue for it. `levels`: whether the events carry the
    /// audio's level (`Player.run`), for a caller that shows it.
    @discardableResult
    package func play(levels: Bool = true, onEvent: (AudioEvent) -> Void) throws -> (AudioPosition, Player.Ending) {
        try register(paused: startsPaused)
        if library.isReadOnly {
            return try player.run(
                from: start, until: end, paused: startsPaused, skipping: skips, floor: floor, levels: levels,
                onEvent: onEvent)
        }
        let id = item.id
        let library = library
        var ended = false
        defer { if !ended { unregister() } }
        // Without a follower (no pipe to be had) the audio still plays; only the position
        // is not kept and other shells cannot reach it.
        let follower = try? RemoteFollower(
            location: library.location, job: .playback, id: item.id,
            mailbox: player.controls, sampleRate: sampleRate)
        try? follower?.start()
        defer { follower?.stop() }
        // A marker made while playing is a change to the recording, undoable like `mark --at`.
        // It is written by a worker of its own: the events come on the audio thread, which a
        // store write (an fsync) must not hold up. The worker starts with the first marker:
        // most playbacks make none, and a thread started and joined for nothing is time off
        // the CPU at every play's end.
        var writer: SerialWorker?
        let result = try player.run(
            from: start, until: end, paused: startsPaused, skipping: skips, floor: floor, levels: levels
        ) {
            event in
            if case .marked(let position, let label) = event {
                markers.withLock { $0.append(position.frames) }
                let save = {
                    _ = try? library.documents.transaction {
                        try $0.addMarker(to: id, Marker(frame: position.frames, label: label))
                    }
                }
                if writer == nil { writer = try? SerialWorker() }
                if let writer { writer.submit(save) } else { save() }
            }
            onEvent(event)
        }
        writer?.finish()
        // The position reached and the end of this playback, in one write of the view state.
        ended = follower?.stop(closing: { $0.playbackEnded() }) ?? false
        return result
    }

    private func unregister() {
        let id = item.id
        let pid = getpid()
        try? library.viewState.transaction { vs in
            if vs.state.playing?.id == id && vs.state.playing?.pid == pid { vs.playbackEnded() }
        }
    }
}

import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The play screen as store changes around a `Player`: the recording becomes the selected
/// one, and its position is kept in the view state while playing (about once a second) and
/// on exit, so that `play` with no PATH resumes where it stopped. The position is written
/// by the player's `RemoteFollower` alone.
public final class PlaybackSession {
    public let library: Library
    public let item: Item
    public let file: SoundFile
    public let player: Player
    /// The frames to play: `start..<end`.
    public let start: Int64
    public let end: Int64
    /// The first frame a seek can reach: the in point, unless `--untrimmed`.
    public let floor: Int64
    /// `--skip-silence`: the silences jumped over, in frames of the file.
    public private(set) var skips: [Range<Int64>] = []
    private var registered = false
    private var startsPaused = false
    /// The recording's markers' frames, with those made while playing (keys `]`, `[`).
    private let markers: Mutex<[Int64]>
    public var markerFrames: [Int64] { markers.withLock { $0 } }
    /// Things the user should know that are not errors (a --seek before the beginning).
    public private(set) var notes: [String] = []
    /// The playback another process ran, stopped to make way for this one.
    public private(set) var replaced: RemoteControl.Status?

    public var sampleRate: Int { file.sampleRate }
    public var duration: Double { file.duration }

    /// Picks the recording (PATH, or the selected one), opens its file, resolves `--seek`
    /// and `--until` against its real length, then opens the device. Time specs are checked
    /// for syntax before anything is opened.
    ///
    /// The recording's trim points bound what plays unless `untrimmed`: it starts at the in
    /// point (or the saved position or `--seek`, if between them) and stops at the out point
    /// (or `--until`, if before it). Positions stay in the file's own time.
    ///
    /// `skipSilence` (seconds): silences longer than that, between the speech regions stored
    /// with the recording (or, with `silenceThreshold`, a fixed level instead of the
    /// detector's adaptive floor, found in the file before playing), are jumped over.
    public init(
        library: Library, path: String?, seek: String?, until: String?, fromStart: Bool,
        untrimmed: Bool = false, skipSilence: Double? = nil, silenceThreshold: Double? = nil,
        device: String, deviceConfiguration: String? = nil
    ) throws {
        self.library = library
        let seekSpec = try seek.map { try TimeSpec.parse($0, option: "--seek") }
        let untilSpec = try until.map { try TimeSpec.parse($0, option: "--until") }
        let resumeAt: Double?
        if let path {
            item = try library.resolver.resolve(path)
            resumeAt = nil
        } else {
            guard let selection = library.state.selection, let selected = library.document[selection.recording] else {
                throw RecError.usage("play", "no recording is selected; give the PATH of one to play")
            }
            item = selected
            resumeAt = fromStart ? nil : selection.position
        }
        guard let info = item.recording else {
            throw RecError.failure(path ?? library.document.path(of: item.id), "is a folder, not a recording")
        }
        try library.requireAudioHere(item)
        let opened = try SoundFile.open(path: library.location.audioPath(info.file))
        file = opened
        let rate = Double(opened.sampleRate)
        let length = opened.duration
        let frameCount = opened.frames
        func frame(_ seconds: Double) -> Int64 { min(Int64((seconds * rate).rounded()), frameCount) }
        let bounds = untrimmed ? 0..<frameCount : item.playedRange.clamped(to: 0..<frameCount)
        var from = bounds.lowerBound
        floor = bounds.lowerBound
        // A marker (#3, mark:LABEL) is its exact frame: no round trip through seconds.
        let markers = item.annotations.markers
        self.markers = Mutex(markers.map(\.frame))
        let shownPath = path ?? library.document.path(of: item.id)
        if let seekSpec, let text = seek {
            if let markerFrame = try seekSpec.markerFrame(
                in: markers, frames: frameCount, option: "--seek", path: shownPath)
            {
                from = markerFrame
            } else {
                let (seconds, note) = try seekSpec.resolveStart(duration: length, spec: text)
                if let note { notes.append(note) }
                from = frame(seconds)
            }
            if from >= bounds.upperBound {
                // Nothing is left to play there: refused, as a seek past the end of the file is,
                // rather than quietly starting again from the in point.
                let subject = TimeSpec.typed(text, option: "--seek")
                let at = Format.preciseClock(Double(from) / rate)
                let end = Format.preciseClock(Double(bounds.upperBound) / rate)
                if bounds.upperBound < frameCount {
                    throw RecError.usage(
                        subject, "\(at) is at or past the out point (\(end)); --untrimmed plays past it")
                }
                throw RecError.usage(subject, "\(at) is at the end of the recording (\(end)); nothing is left to play")
            }
            if !bounds.contains(from) {
                notes.append(
                    "--seek \(text) is outside the trim points; playing from \(Format.clock(Double(bounds.lowerBound) / rate)) (--untrimmed plays it all)"
                )
                from = bounds.lowerBound
            }
        } else if let resumeAt, resumeAt < length - 0.05, bounds.contains(frame(resumeAt)) {
            from = frame(resumeAt)
        }
        var to = bounds.upperBound
        if let untilSpec, let text = until {
            to = min(
                try untilSpec.markerFrame(in: markers, frames: frameCount, option: "--until", path: shownPath)
                    ?? frame(try untilSpec.resolve(duration: length, spec: text, option: "--until")), bounds.upperBound)
            guard to > from else {
                throw RecError.usage(
                    TimeSpec.typed(text, option: "--until"),
                    "must come after the start (\(Format.preciseClock(Double(from) / rate)))")
            }
        }
        start = from
        end = to
        if let skipSilence {
            let regions = try info.speechRegions(in: library.location, silenceThreshold: silenceThreshold)
            skips = SpeechRegions.silences(between: regions, in: from..<to, longerThan: Int64(skipSilence * rate))
        }
        // One playback at a time: once this one is known to be playable, the running one
        // ends (and lets go of the device) before the device is opened.
        if library.isReadOnly {
            // A backup on read-only media still plays; nothing of it can be written.
            notes.append(
                "the store is read-only; the play position will not be saved, and other shells cannot control this playback"
            )
        } else {
            replaced = try RemoteControl(library: library).stopOtherPlayback()
        }
        player = try Player(file: file, device: device, configuration: deviceConfiguration)
    }

    /// Makes the recording the selected one and registers this process as its player, so
    /// that `status` sees it and other shells can control it. `play` does it if not done.
    public func register(paused: Bool = false) throws {
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
        try library.viewState.transaction {
            $0.selectRecording(id, position: startSeconds)
            $0.playbackStarted(entry)
        }
        registered = true
        startsPaused = paused
    }

    /// Plays, keeping the view state's selection and position up to date, and following
    /// the commands other shells queue for it.
    @discardableResult
    public func play(onEvent: (AudioEvent) -> Void) throws -> (AudioPosition, Player.Ending) {
        try register(paused: startsPaused)
        if library.isReadOnly {
            return try player.run(
                from: start, until: end, paused: startsPaused, skipping: skips, floor: floor, onEvent: onEvent)
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
        // store write (an fsync) must not hold up.
        let writer = try? SerialWorker()
        let result = try player.run(from: start, until: end, paused: startsPaused, skipping: skips, floor: floor) {
            event in
            if case .marked(let position, let label) = event {
                markers.withLock { $0.append(position.frames) }
                let save = {
                    _ = try? library.documents.transaction {
                        try $0.addMarker(to: id, Marker(frame: position.frames, label: label))
                    }
                }
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

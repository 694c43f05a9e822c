import RecAudio
import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The record screen as a sequence of store changes around a `Recorder`:
///
/// 1. plan (`RecordingPlan`): resolve where the recording goes (an existing name is refused
///    here, before anything is recorded); then `init`: open the device, create the file, and
///    note the recording in progress in the view state (uuid, parent, file, pid, start time);
/// 2. `record`: capture until stopped (or, with a `VoiceTrigger`, from the first speech to
///    the silence that ends it, whose tail is then trimmed by an out point);
/// 3. `save` (close the file, add the item to the document, clear the in-progress entry)
///    or `discard` (close and delete the file, clear the entry).
///
/// A failure before recording leaves no file and no entry behind.
package final class RecordingSession {
    package let library: Library
    package let recorder: Recorder
    package let entry: ViewState.RecordingInProgress
    package let format: AudioFormat
    /// The folder the recording goes into and the name it gets unless another is chosen.
    package let parent: ItemID
    package let defaultName: String
    /// Whether the user gave the name (in PATH), so there is nothing to ask.
    package let nameGiven: Bool
    package let file: SoundFile
    /// The analysis, measured as the writer writes, so that saving decodes nothing; `sink`
    /// is `file` with it. On the writer's own thread: a recording's writer waits on the
    /// device, not on the processor, so a thread beside it (as an import has, whose encoder
    /// is busy) would only add its hand-over: a copy of every sample and a wake-up per block.
    private let analysis: AnalysisMeter
    private let sink: AnalysingSink
    /// Live words (nil when off, or when they could not start): the recorder's side.
    package private(set) var liveWords: LiveWords?
    private let liveWordsEngine: String??
    package private(set) var frames: Int64 = 0
    /// Markers made while recording, in the order made (also in the in-progress entry).
    package private(set) var markers: [Marker] = []
    /// `record --enhance`: the enhancement the recording is saved with (document data, in
    /// the same change that adds it). Kept in the in-progress entry from the start, so that
    /// a recording recovered after a crash is saved with it too.
    package var enhance: Enhancement { entry.enhance }
    private var finished = false
    /// Room to save in when the disk fills while recording (nil when there was none to set aside).
    private var reserve: SaveReserve?

    package var filePath: String { library.location.audioPath(entry.file) }

    /// Plans (`RecordingPlan`: where the recording goes, every refusal made), then starts.
    package convenience init(
        library: Library, path: String?, format: AudioFormat, rate: Int, channels: Int,
        device: String, frameLimit: Int64?, started: Timestamp = .now(),
        deviceConfiguration: String? = nil, createParents: Bool = false, voice: VoiceTrigger? = nil,
        enhance: Enhancement = .off, liveWords: String?? = nil
    ) throws {
        let plan = try RecordingPlan(
            library: library, path: path, format: format, rate: rate, channels: channels,
            createParents: createParents, started: started)
        try self.init(
            plan, device: device, frameLimit: frameLimit, started: started, deviceConfiguration: deviceConfiguration,
            voice: voice, enhance: enhance, liveWords: liveWords)
    }

    /// Starts what `plan` resolved: opens the device first (if it cannot be opened, no file and
    /// no folder is made), makes the folders `-p` asked for, creates the file and notes the
    /// recording in progress in the view state. `liveWords`: transcribe while recording, with
    /// the engine named (nil: the one `transcribe` would use); `.none`, not.
    package init(
        _ plan: RecordingPlan, device: String, frameLimit: Int64?, started: Timestamp = .now(),
        deviceConfiguration: String? = nil, voice: VoiceTrigger? = nil, enhance: Enhancement = .off,
        liveWords: String?? = nil
    ) throws {
        library = plan.library
        format = plan.format
        let (rate, channels) = (plan.rate, plan.channels)
        recorder = try Recorder(
            device: device, rate: rate, channels: channels, frameLimit: frameLimit,
            configuration: deviceConfiguration, voice: voice)
        // A `--duration` without a voice trigger is the length the file will have.
        analysis = AnalysisMeter(sampleRate: rate, channels: channels, length: voice == nil ? frameLimit : nil)
        var parent = plan.parent
        if !plan.foldersToMake.isEmpty {
            parent = try library.documents.transaction { tx in
                try tx.makeFolders(plan.foldersToMake, in: plan.parent).folder
            }.id
        }
        self.parent = parent
        let name = plan.name
        defaultName = name
        nameGiven = plan.nameGiven
        let id = ItemID.random()
        let fileName = "\(id).\(format.fileExtension)"
        try FileSystem.makeDirectories(library.location.audioDirectory)
        let path = library.location.audioPath(fileName)
        do {
            file = try SoundFile.create(path: path, format: format, rate: rate, channels: channels)
        } catch let error as AudioError {
            // The user knows the recording by its path in the store, not by its file's UUID.
            throw RecError.failure(
                Self.path(of: name, in: parent, library.document), "cannot create its audio file: \(error.reason)")
        }
        liveWordsEngine = liveWords
        let location = plan.library.location
        let tap = liveWords == nil ? nil : Self.speechTap(file, id: id, channels: channels, location: location)
        sink = AnalysingSink(tap ?? file, analysis: analysis)
        // The file's name survives a power cut from the start, so its periodic syncs count.
        FileSystem.syncDirectory(library.location.audioDirectory)
        entry = .init(
            id: id, parent: parent, name: name, file: fileName, format: format,
            sampleRate: rate, channels: channels, pid: getpid(), started: started, enhance: enhance)
        reserve = SaveReserve(location: library.location, id: id)
        do {
            try library.viewState.transaction { vs in
                // Checked again under the lock: another recording may have started meanwhile.
                try vs.state.refuseAnotherRecording()
                vs.recordingStarted(entry)
            }
        } catch {
            try? file.close()
            try? FileSystem.remove(path)
            reserve?.release()
            LiveWordsFiles(location: location).removeAll(of: id)
            throw error
        }
    }

    /// Where the recording goes, as the user knows it: `/Ideas/standup`.
    package var destinationPath: String { Self.path(of: defaultName, in: parent, library.document) }

    static func path(of name: String, in parent: ItemID, _ document: Document) -> String {
        let folder = document[parent] != nil ? document.path(of: parent) : "/"
        return (folder == "/" ? "" : folder) + "/" + name
    }

    /// The recording failed while capturing (the disk filled, the device went away): what
    /// reached the disk is saved, as crash recovery would, and the one line to report says
    /// so. When the store cannot be written either, the audio and the in-progress entry
    /// stay, and the next command that can write saves it (`recoverInterruptedRecording`).
    package func stop(after failure: Error) -> RecError {
        let why = Self.describe(failure)
        // Closing finishes the header over what reached the disk, which may be more than
        // the writes that completed (the last one, cut short, left part of its audio).
        if !finished { try? file.close() }
        guard frames > 0 || ((try? SoundFile.countFrames(path: filePath)) ?? 0) > 0 else {
            try? discard()
            return RecError.failure(destinationPath, "\(why); nothing was recorded")
        }
        do {
            let item = try save(cutShort: true)
            let length = Format.duration(item.recording?.duration ?? 0)
            return RecError.failure(
                library.document.path(of: item.id),
                "recording stopped after \(length): \(why); the \(length) recorded is saved")
        } catch {
            return RecError.failure(
                destinationPath,
                "recording stopped: \(why); its audio is kept, and the first command that can write the store saves it as \"\(entry.name) (recovered)\""
            )
        }
    }

    /// A failure in words that name what the user knows: a file error is about the
    /// recording's audio, not about `audio/<uuid>.wav`.
    static func describe(_ failure: Error) -> String {
        switch failure {
        case let error as AudioError:
            if case .file = error.subject { return "cannot write its audio: \(error.reason)" }
            return error.description
        case let error as RecError: return error.description
        default: return "\(failure)"
        }
    }

    /// The tap live words read, in the store's cache; nil (and no live words) if it cannot
    /// be made.
    private static func speechTap(_ file: SoundFile, id: ItemID, channels: Int, location: StoreLocation) -> SpeechTap? {
        let files = LiveWordsFiles(location: location)
        guard (try? FileSystem.makeDirectories(files.directory)) != nil else { return nil }
        return SpeechTap(file, channels: channels, tapPath: files.tap(id))
    }

    /// Captures until the recorder is stopped or reaches its frame limit.
    /// Other shells can pause, resume and stop it meanwhile, through the view state.
    /// With live words, the words heard come as `.words` events between the others.
    package func record(onEvent: (AudioEvent) -> Void) throws {
        defer { frames = recorder.framesWritten }
        if sink.sink is SpeechTap, let engine = liveWordsEngine {
            liveWords = LiveWords.start(
                location: library.location, id: entry.id, rate: entry.sampleRate, engine: engine)
        }
        func passWords() {
            for segment in liveWords?.poll() ?? [] { onEvent(.words(segment)) }
        }
        try RemoteFollower.following(
            location: library.location, job: .recording, id: entry.id,
            mailbox: recorder.controls, sampleRate: entry.sampleRate
        ) {
            _ = try recorder.run(into: sink) { event in
                if case .marked(let position, let label) = event { keep(Marker(frame: position.frames, label: label)) }
                if case .finished = event { passWords() }
                onEvent(event)
                if case .progress = event { passWords() }
            }
        }
    }

    /// Whether the live words' transcriber ended before the recording did (it crashed):
    /// the recording is then to be transcribed whole once saved.
    package var liveWordsLost: Bool {
        guard let liveWords else { return false }
        _ = liveWords.poll()
        return liveWords.workerEnded
    }

    /// A marker goes into the in-progress entry at once, so that a crash keeps it too.
    private func keep(_ marker: Marker) {
        markers.append(marker)
        let id = entry.id
        try? library.viewState.transaction { $0.markRecording(id, marker) }
    }

    /// Why `name` cannot be the recording's name, or nil if it can.
    package func nameProblem(_ name: String) -> String? {
        if let problem = NameRules.violation(name) { return problem }
        if let existing = library.document.child(named: name, in: parent) {
            return "\(library.document.path(of: existing.id)) already exists"
        }
        return nil
    }

    /// Closes the file and adds the recording to the store under `name` (the default when
    /// nil). If the name was taken meanwhile by another command, " (2)", " (3)" … is added.
    /// `cutShort`: a write failed (disk full), so the file may end in a partial block or hold
    /// less than was counted; it is closed as well as it goes and keeps what decodes, as
    /// crash recovery does.
    @discardableResult
    package func save(as name: String? = nil, cutShort: Bool = false) throws -> Item {
        try commit(as: name, cutShort: cutShort, toTrash: false)
        guard let item = library.document[entry.id] else {
            throw RecError.failure(name ?? defaultName, "was not saved")
        }
        return item
    }

    /// Esc at the name prompt: one key never loses a recording. It is saved under the
    /// default name and moved to the trash in the same change, audio included; returns its
    /// path there, which `trash restore` takes.
    @discardableResult
    package func discardToTrash() throws -> String {
        try commit(as: nil, cutShort: false, toTrash: true)
        guard let entry = library.document.trashEntry(entry.id) else {
            throw RecError.failure(defaultName, "was not saved")
        }
        return entry.path
    }

    private func commit(as name: String?, cutShort: Bool, toTrash: Bool) throws {
        guard !finished else { throw RecError.failure("record", "the recording was already saved or discarded") }
        finished = true
        if cutShort { try? file.close() } else { try file.close() }
        // The room set aside while recording is what saving it may need.
        reserve?.release()
        reserve = nil
        // The store must never name audio that a power cut could still take away.
        if cutShort { try? FileSystem.syncFile(filePath) } else { try FileSystem.syncFile(filePath) }
        FileSystem.syncDirectory(FileSystem.parentDirectory(of: filePath))
        // Measured while recording, so that neither saving nor `info` decodes the file. A
        // recording cut short (a failed write) holds what reached the disk, which may not be
        // what was measured: it is measured from the file, as crash recovery does.
        let info =
            cutShort
            ? (Library.recoverAudio(entry, path: filePath) ?? measuredInfo().analyzed(path: filePath))
            : sink.frames == frames ? measuredInfo().with(analysis.finish()) : measuredInfo().analyzed(path: filePath)
        let chosen = name ?? defaultName
        try library.documents.transaction { tx in
            let parentID = tx.document[parent]?.isFolder == true ? parent : .root
            let candidate = tx.document.freeName(chosen, in: parentID, except: nil)
            var item = Item.recording(
                id: entry.id, name: candidate, parent: parentID, created: entry.started, info: info)
            item.annotations.trim = trailingSilenceTrim(frames: info.frames)
            item.annotations.markers = MarkerRules.saved(markers, frames: info.frames)
            item.annotations.enhance = enhance
            try tx.add(item)
            if toTrash { try tx.remove(entry.id) }
        }
        try library.viewState.transaction { vs in
            if vs.state.recording?.id == entry.id { vs.recordingEnded() }
        }
        liveWords?.recordingEnded(frames: info.frames)
        // A transcriber that died left its files; the recording is transcribed whole instead.
        if liveWordsLost { LiveWordsFiles(location: library.location).removeAll(of: entry.id) }
    }

    /// `--stop-on-silence`: the silence that stopped the recording is kept in the file and
    /// trimmed by an out point `TrimPoints.defaultMargin` after the end of the last speech.
    private func trailingSilenceTrim(frames: Int64) -> TrimPoints? {
        guard recorder.stoppedOnSilence, let end = recorder.speechEnd else { return nil }
        guard
            let trim = TrimPoints.around(
                speech: [0..<end], margin: TrimPoints.defaultMargin, sampleRate: entry.sampleRate, length: frames),
            trim.outFrame < frames
        else { return nil }
        return trim
    }

    private func measuredInfo() -> RecordingInfo {
        let written = frames
        return RecordingInfo(
            duration: Double(written) / Double(entry.sampleRate), frames: written,
            sampleRate: entry.sampleRate, channels: entry.channels, format: format, file: entry.file)
    }

    /// Throws the recording away: the file is deleted and the in-progress entry cleared.
    package func discard() throws {
        guard !finished else { return }
        finished = true
        try? file.close()
        reserve?.release()
        reserve = nil
        try FileSystem.remove(filePath)
        try library.viewState.transaction { vs in
            if vs.state.recording?.id == entry.id { vs.recordingEnded() }
        }
        liveWords?.recordingEnded(frames: 0)
        if liveWords == nil { LiveWordsFiles(location: library.location).removeAll(of: entry.id) }
    }
}

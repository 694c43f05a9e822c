import RecAudio
import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `record --output`: where a recording goes when it goes to another program or to a file
/// outside the store, so recnotes can feed a pipeline live. Everything that can be wrong
/// with the combination is refused here, before any device or file is opened.
package struct RecordingOutput {
    /// "-" for standard output, else the file as given.
    package let target: String
    /// nil for raw samples.
    package let format: AudioFormat?
    package let encoding: RawEncoding?
    package let rate: Int
    package let channels: Int

    package init(target: String, format: AudioFormat?, encoding: RawEncoding?, rate: Int, channels: Int) throws {
        self.target = target
        self.rate = rate
        self.channels = channels
        self.encoding = encoding
        if target == "-" {
            if let encoding {
                if let format {
                    throw RecError.usage(
                        "--encoding \(encoding.rawValue)", "raw output has no format; drop --format \(format.rawValue)")
                }
                self.format = nil
            } else {
                switch format ?? .wav {
                case .wav: self.format = .wav
                case .flac: self.format = .flac
                case let other:
                    throw RecError.usage(
                        "--format \(other.rawValue)",
                        "standard output takes wav, flac, or raw samples with --encoding s16|s32|f32")
                }
            }
        } else {
            if let encoding {
                throw RecError.usage(
                    "--encoding \(encoding.rawValue)", "raw samples go to standard output only (--output -)")
            }
            guard let chosen = format ?? AudioFormat(fileName: target) else {
                throw RecError.usage(
                    target, "cannot tell the format from the extension; add --format wav|flac|opus|vorbis|mp3")
            }
            self.format = chosen
        }
        if let format = self.format { try format.validate(rate: rate, channels: channels) }
    }

    /// How the view state names it: "-", or the file's absolute path, so that `status` run
    /// from another directory still says where the audio goes.
    package var registeredName: String {
        if target == "-" || target.hasPrefix("/") { return target }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return target }
        let directory = String(cBuffer: buffer)
        return (directory == "/" ? "" : directory) + "/" + target
    }

    /// For the view state's `format`: the codec, or `raw-s16` and the like.

    /// Writes the stream's header, or creates the file.
    package func open(frames: Int64?) throws -> AudioSink {
        guard target == "-" else {
            return try SoundFile.create(path: target, format: format ?? .wav, rate: rate, channels: channels)
        }
        if let encoding {
            return try StreamSink(
                fd: STDOUT_FILENO, container: .raw(encoding), rate: rate, channels: channels, frames: frames)
        }
        if format == .flac { return try PipeFLACSink(fd: STDOUT_FILENO, rate: rate, channels: channels) }
        return try StreamSink(fd: STDOUT_FILENO, container: .wav, rate: rate, channels: channels, frames: frames)
    }
}

/// A `record --output` run, registered in the view state like a recording to the store, so
/// that `status` shows it and `pause`, `resume`, `toggle` and `stop` reach it from another
/// shell. Only the view state is opened: the store's documents are not touched, and no
/// `store.json` is made for it.
package final class OutputRecordingSession {
    package let recorder: Recorder
    package let sink: AudioSink
    package let output: RecordingOutput
    /// nil when the view state could not be written: the recording still runs, only not
    /// remotely (see `notes`).
    package private(set) var entry: ViewState.RecordingInProgress?
    /// Warnings for the user: a dead recording recovered first, or why remote control is off.
    package private(set) var notes: [String] = []
    private let location: StoreLocation
    private var viewState: ViewStateStore?

    package init(
        location: StoreLocation, output: RecordingOutput, device: String, frameLimit: Int64?,
        started: Timestamp = .now()
    ) throws {
        self.location = location
        self.output = output
        var state: ViewState?
        do {
            let store = try ViewStateStore(location: location)
            notes += store.warnings
            state = store.state
            viewState = store
        } catch {
            notes.append("\(error); recording without remote control")
        }
        try state?.refuseAnotherRecording()
        if let dead = state?.recording, dead.output == nil, !processIsAlive(dead.pid) {
            // Registering replaces the entry, so a dead recorder's audio is saved first.
            let library = try Library(location: location)
            if let note = try library.recoverInterruptedRecording() { notes.append(note) }
        }

        // The device before the output: if it cannot be opened, no file is made.
        recorder = try Recorder(device: device, rate: output.rate, channels: output.channels, frameLimit: frameLimit)
        sink = try output.open(frames: frameLimit)
        guard let viewState else { return }
        let entry = ViewState.RecordingInProgress(
            id: .random(), parent: .root, name: output.registeredName, file: "", output: output.registeredName,
            format: output.format, sampleRate: output.rate, channels: output.channels, pid: getpid(), started: started)
        var refusal: Error?
        do {
            try viewState.transaction { vs in
                // Checked again under the lock: another recording may have started meanwhile.
                do { try vs.state.refuseAnotherRecording() } catch {
                    refusal = error
                    return
                }
                vs.recordingStarted(entry)
            }
            if refusal == nil { self.entry = entry }
        } catch {
            notes.append("\(error); recording without remote control")
        }
        if let refusal {
            try? sink.close()
            if output.target != "-" { try? FileSystem.remove(output.target) }
            throw refusal
        }
    }

    /// Captures until stopped, here or from another shell.
    @discardableResult
    package func record(onEvent: (AudioEvent) -> Void) throws -> Int64 {
        guard let entry else { return try recorder.run(into: sink, onEvent: onEvent) }
        return try RemoteFollower.following(
            location: location, job: .recording, id: entry.id,
            mailbox: recorder.controls, sampleRate: entry.sampleRate
        ) {
            try recorder.run(into: sink, onEvent: onEvent)
        }
    }

    /// Closes the output, then clears the entry, so that a `stop` waiting for it returns
    /// only once the file is complete.
    package func finish() throws {
        defer { unregister() }
        try sink.close()
    }

    /// Clears the entry without closing anything, for a run that failed.
    package func unregister() {
        guard let entry, let viewState else { return }
        self.entry = nil
        try? viewState.transaction { vs in
            if vs.state.recording?.id == entry.id { vs.recordingEnded() }
        }
    }
}

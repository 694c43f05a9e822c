import RecAudio
import RecStore
import RecSystem
import RecTranscripts
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The recorder's side of live words: the transcriber runs as another process
/// (`recnotes transcribe --live-words-of UUID`, detached in its own session, at a lower priority), reading the
/// tap the recorder writes. Its words come back on a pipe that the recorder reads without
/// ever waiting; when the recording is saved, the transcriber is told so, finishes what it
/// has not decoded yet, and saves the transcript itself. If the recorder is killed, the
/// transcriber sees its pipe close, finishes all the same, and saves the transcript once
/// the recording is recovered.
package final class LiveWords {
    /// The private options of `transcribe` that make it the transcriber of a recording.
    package static let workerOption = "live-words-of"
    package static let rateOption = "live-words-rate"
    package let pid: pid_t
    private var toWorker: Int32
    private let fromWorker: Int32
    private var buffer: [UInt8] = []
    private var told = false
    /// The segments heard so far, in order.
    package private(set) var segments: [Transcript.Segment] = []
    /// The transcriber ended before it was told the recording was saved (it crashed).
    package private(set) var workerEnded = false

    private init(pid: pid_t, toWorker: Int32, fromWorker: Int32) {
        self.pid = pid
        self.toWorker = toWorker
        self.fromWorker = fromWorker
    }

    deinit {
        if toWorker >= 0 { close(toWorker) }
        close(fromWorker)
    }

    /// Starts the transcriber of recording `id`, whose tap is at its rate `rate`. nil (and
    /// the recording goes on without live words) if it cannot start.
    package static func start(location: StoreLocation, id: ItemID, rate: Int, engine: String?) -> LiveWords? {
        let files = LiveWordsFiles(location: location)
        files.sweep(except: id)
        guard let toWorker = try? System.closeOnExecPipe() else { return nil }
        guard let fromWorker = try? System.closeOnExecPipe() else {
            close(toWorker.read)
            close(toWorker.write)
            return nil
        }
        defer {
            close(toWorker.read)
            close(fromWorker.write)
        }
        var arguments = [
            "--store", location.directory, "transcribe", "--" + workerOption, "\(id)", "--" + rateOption, "\(rate)",
        ]
        if let engine { arguments += ["--engine", engine] }
        var launch = ProcessLaunch(
            [DetachedProcess.currentExecutable] + arguments, executable: DetachedProcess.currentExecutable)
        launch.input = .descriptor(toWorker.read)
        launch.output = .descriptor(fromWorker.write)
        launch.ownSession = true
        launch.closeInherited = true
        let started = FileSystem.withOpened(files.log(id), O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600) { log in
            launch.errors = .descriptor(log)
            return try? launch.start()
        }
        guard let pid = started ?? nil else {
            close(toWorker.write)
            close(fromWorker.read)
            return nil
        }
        // Below the recorder: the words never take the CPU the capture needs.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), niceness)
        _ = fcntl(fromWorker.read, F_SETFL, fcntl(fromWorker.read, F_GETFL) | O_NONBLOCK)
        return LiveWords(pid: pid, toWorker: toWorker.write, fromWorker: fromWorker.read)
    }

    /// Whether a recording is transcribed live, and with which engine (`RecordingSession`'s
    /// `liveWords`): as `asked` (`--transcribe`: the engine `transcribe` would use; nil for
    /// it, `.none` for off), or by default when Whisper is installed and
    /// `$RECNOTES_LIVE_WORDS` is not off. PocketSphinx, which every machine has, is used only
    /// when asked for: its words are a draft, and by default a recording without an engine
    /// is made as it always was.
    package static func engine(asked: Bool?, location: StoreLocation) -> String?? {
        switch asked {
        case false?: return .none
        case true?: return .some(nil)
        case nil:
            let setting = Environment.value(settingVariable)?.lowercased()
            if setting == "off" || setting == "0" || setting == "no" { return .none }
            return WhisperInstallation(storeDirectory: location.directory).isInstalled
                ? .some(WhisperInstallation.name) : .none
        }
    }

    package static let settingVariable = "RECNOTES_LIVE_WORDS"

    /// The niceness the transcriber runs at, as the Whisper worker's.
    package static let niceness: Int32 = 10

    /// What the transcriber has sent since the last call; never waits.
    package func poll() -> [Transcript.Segment] {
        guard !workerEnded else { return [] }
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = chunk.withUnsafeMutableBytes { bytes in
                System.retrying { read(fromWorker, bytes.baseAddress!, bytes.count) }
            }
            if n > 0 {
                buffer += chunk[..<n]
                continue
            }
            if n == 0 { workerEnded = !told }
            break
        }
        var new: [Transcript.Segment] = []
        while let newline = buffer.firstIndex(of: 0x0A) {
            if let segment = TranscriptCodec.decodeSegment(buffer[..<newline]) { new.append(segment) }
            buffer.removeSubrange(...newline)
        }
        segments += new
        return new
    }

    /// Tells the transcriber that the recording is saved (or discarded) with `frames`
    /// frames: it finishes in the background and saves the transcript. (The recorder
    /// ignores SIGPIPE, so a transcriber that is gone costs only the write.)
    package func recordingEnded(frames: Int64) {
        guard !told else { return }
        _ = poll()
        told = true
        // Not heard: the transcriber is gone, and the recording is transcribed whole.
        if (try? System.writeAll(toWorker, Array("end \(frames)\n".utf8))) == nil { workerEnded = true }
        close(toWorker)
        toWorker = -1
    }
}

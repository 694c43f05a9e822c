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
    /// The transcriber's option saying its recording is made in the served page.
    package static let pageOption = "live-words-of-page"
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
        var launch = workerLaunch(location: location, id: id, rate: rate, engine: engine)
        launch.input = .descriptor(toWorker.read)
        launch.output = .descriptor(fromWorker.write)
        guard let pid = startLogged(launch, log: files.log(id)) else {
            close(toWorker.write)
            close(fromWorker.read)
            return nil
        }
        _ = fcntl(fromWorker.read, F_SETFL, fcntl(fromWorker.read, F_GETFL) | O_NONBLOCK)
        return LiveWords(pid: pid, toWorker: toWorker.write, fromWorker: fromWorker.read)
    }

    /// Starts the transcriber of recording `id` made in the served page (`PageRecordings`),
    /// whose samples are its tap: it has no recorder to talk to, and ends once the page's
    /// recording is no longer in progress. `executable`: the `recnotes` to run. Whether it
    /// started.
    package static func startForPage(
        location: StoreLocation, id: ItemID, rate: Int, engine: String?, executable: String
    ) -> Bool {
        var launch = workerLaunch(location: location, id: id, rate: rate, engine: engine, executable: executable)
        launch.arguments.append("--" + pageOption)
        launch.input = .null
        launch.output = .null
        return startLogged(launch, log: LiveWordsFiles(location: location).log(id)) != nil
    }

    /// `transcribe --live-words-of UUID --live-words-rate RATE [--engine E]`, in a session of
    /// its own, with nothing of this process's open in it.
    private static func workerLaunch(
        location: StoreLocation, id: ItemID, rate: Int, engine: String?,
        executable: String = DetachedProcess.currentExecutable
    ) -> ProcessLaunch {
        var arguments = [
            "--store", location.directory, "transcribe", "--" + workerOption, "\(id)", "--" + rateOption, "\(rate)",
        ]
        if let engine { arguments += ["--engine", engine] }
        var launch = ProcessLaunch([executable] + arguments, executable: executable)
        launch.ownSession = true
        launch.closeInherited = true
        return launch
    }

    /// Starts `launch` with its stderr in `log`, below the recorder's priority (the words
    /// never take the CPU the capture needs); its pid, nil if it could not start.
    private static func startLogged(_ launch: ProcessLaunch, log: String) -> pid_t? {
        var launch = launch
        let started = FileSystem.withOpened(log, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600) { fd in
            launch.errors = .descriptor(fd)
            return try? launch.start()
        }
        guard let pid = started ?? nil else { return nil }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), niceness)
        return pid
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

import RecAudio
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Where `recnotes engine install whisper` puts the Whisper engine: a private Python venv
/// with faster-whisper, our worker program, and the models, under the store's directory
/// (`<store>/engines/whisper`), per machine.
package struct WhisperInstallation: Sendable, Equatable {
    package static let name = "whisper"
    /// Used when no model is asked for: English only, the smallest and fastest.
    package static let defaultModel = "tiny.en"
    /// For `--language auto` or another language than English.
    package static let multilingualModel = "base"

    package let directory: String

    package init(storeDirectory: String) {
        directory = storeDirectory + "/engines/" + Self.name
    }

    package var venv: String { directory + "/venv" }
    package var python: String { venv + "/bin/python" }
    package var worker: String { directory + "/recnotes-whisper.py" }
    package var modelsDirectory: String { directory + "/models" }
    package func modelDirectory(_ name: String) -> String { modelsDirectory + "/" + name }

    /// The models installed (directories of models/ with a model.bin), sorted by name.
    package var models: [String] {
        FileSystem.entries(of: modelsDirectory).filter { FileSystem.exists(modelDirectory($0) + "/model.bin") }.sorted()
    }

    package var isInstalled: Bool { FileSystem.exists(python) && !models.isEmpty }

    /// The model directory for `model` (a name installed here, or a path to any CTranslate2
    /// Whisper model directory) and `language`: without a model, tiny.en for English (or no
    /// language given), base for `auto` or another language when it is installed.
    package func resolveModel(_ model: String?, language: String?) throws(RecError) -> (name: String, path: String) {
        if let model, model.contains("/") {
            guard FileSystem.exists(model + "/model.bin") else {
                throw .transcribe(Self.name, "\(model) is not a CTranslate2 Whisper model directory (no model.bin)")
            }
            return (model, model)
        }
        let english = language == nil || language == "en"
        let wanted = model ?? (english ? Self.defaultModel : Self.multilingualModel)
        guard models.contains(wanted) else {
            let step =
                "recnotes engine install whisper"
                + (wanted == Self.defaultModel ? "" : " --model \(wanted)")
            throw .transcribe(Self.name, "model \(wanted) is not installed ('\(step)' installs it)")
        }
        return (wanted, modelDirectory(wanted))
    }
}

/// Whisper (faster-whisper over CTranslate2), run as a worker process of our own
/// (`WhisperWorker.source`) that recnotes talks to over pipes in JSON lines. The worker is
/// started on first use and kept for the engine's life, so that one model load serves every
/// recording of a command; it runs at a lower CPU priority than recording and playback.
package final class WhisperEngine: TranscriptionEngine, @unchecked Sendable {
    package var name: String { WhisperInstallation.name }
    package let installation: WhisperInstallation
    /// The model's name (tiny.en, base) or the directory given.
    package let model: String
    package let modelPath: String
    /// The language asked for: a code, "auto", or nil for the model's own (English for tiny.en).
    package let language: String?
    /// Your words, as the text Whisper is told came before (its initial prompt): a name in
    /// it is what the decoder expects to hear.
    package let prompt: String?
    package var hearsBetterWhole: Bool { true }
    /// The niceness the worker runs at.
    package static let niceness: Int32 = 10

    private var worker: Worker?
    private var temporary: String?

    package init(
        installation: WhisperInstallation, model: String? = nil, language: String? = nil, prompt: String? = nil
    ) throws(RecError) {
        guard FileSystem.exists(installation.python) else {
            throw .transcribe(WhisperInstallation.name, "not installed ('recnotes engine install whisper' installs it)")
        }
        let resolved = try installation.resolveModel(model, language: language)
        self.installation = installation
        self.model = resolved.name
        self.modelPath = resolved.path
        self.language = language
        self.prompt = prompt
    }

    deinit {
        worker?.stop()
        if let temporary { ExternalEngine.removeTree(temporary) }
    }

    /// Starts the worker, which loads the model while the caller goes on; a worker that
    /// cannot start is started again (and its error thrown) by the first `transcribe`.
    package func prepare() {
        guard worker == nil, (try? temporaryDirectory()) != nil else { return }
        worker = try? Worker.start(self)
    }

    /// The worker's process id, once it runs (for tests and the bench).
    package var workerPID: pid_t? { worker?.pid }

    package func transcribe(_ audio: SpeechAudio, cancel: CancelFlag, progress: (Double) -> Void) throws(RecError)
        -> Transcript
    {
        let directory = try temporaryDirectory()
        let wav = directory + "/audio.wav"
        try audio.writeWAV(to: wav)
        defer { unlink(wav) }
        if worker == nil { worker = try Worker.start(self) }
        guard let running = worker else { throw .transcribe(name, "cannot start the worker") }
        var request = JSONWriter()
        request.beginObject()
        request.field("wav", wav)
        request.field("language", language ?? (model.hasSuffix(".en") ? "en" : "auto"))
        if let prompt { request.field("prompt", prompt) }
        request.endObject()
        request.raw("\n")
        do {
            try running.send(request.bytes)
            while true {
                let line = try running.readLine(cancel: cancel)
                let reply = try WorkerReply.parse(line)
                switch reply {
                case .ready: continue
                case .progress(let done): progress(done)
                case .error(let why): throw RecError.transcribe(name, why)
                case .done(let language, let segments):
                    return Transcript(
                        engine: name, model: model, language: language, quality: .good, segments: segments)
                }
            }
        } catch let error as RecError {
            if error == .transcriptionStopped || !running.isAlive {
                running.stop()
                worker = nil
            }
            throw error
        } catch {
            throw .transcribe(name, "\(error)")
        }
    }

    private func temporaryDirectory() throws(RecError) -> String {
        if let temporary { return temporary }
        let base = Environment.temporaryDirectory
        ExternalEngine.sweep(base)
        var template = Array((base + "/\(ExternalEngine.directoryPrefix)\(getpid())-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .transcribe(name, "cannot create a temporary directory in \(base): \(systemReason(errno))")
        }
        temporary = String(cString: made)
        return temporary!
    }

    /// The worker process: its pid, the pipe to its stdin, the pipe from its stdout; its
    /// stderr goes to worker.log in the temporary directory, whose last line an error quotes.
    final class Worker {
        let pid: pid_t
        let input: Int32
        let output: Int32
        let log: String
        let engineName: String
        private var buffer: [UInt8] = []
        private var ended = false

        init(pid: pid_t, input: Int32, output: Int32, log: String, engineName: String) {
            self.pid = pid
            self.input = input
            self.output = output
            self.log = log
            self.engineName = engineName
        }

        static func start(_ engine: WhisperEngine) throws(RecError) -> Worker {
            let installation = engine.installation
            let current = try? FileSystem.read(installation.worker)
            if current != Array(WhisperWorker.source.utf8) {
                do {
                    try FileSystem.writeAtomically(Array(WhisperWorker.source.utf8), to: installation.worker)
                } catch {
                    throw .transcribe(engine.name, "cannot write \(installation.worker): \(error)")
                }
            }
            let toWorker: (read: Int32, write: Int32)
            let fromWorker: (read: Int32, write: Int32)
            do throws(Errno) {
                toWorker = try System.closeOnExecPipe()
                do throws(Errno) { fromWorker = try System.closeOnExecPipe() } catch {
                    close(toWorker.read)
                    close(toWorker.write)
                    throw error
                }
            } catch {
                throw .transcribe(engine.name, "cannot make a pipe: \(error)")
            }
            let log = (engine.temporary ?? "/tmp") + "/worker.log"
            var launch = ProcessLaunch(
                [installation.python, installation.worker, "--model", engine.modelPath], executable: installation.python
            )
            launch.input = .descriptor(toWorker.read)
            launch.output = .descriptor(fromWorker.write)
            launch.ownProcessGroup = true
            launch.closeInherited = true
            // The worker's stderr, for when it fails; without one, it goes nowhere.
            let started: Result<pid_t, Errno> =
                FileSystem.withOpened(log, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600) { fd in
                    launch.errors = .descriptor(fd)
                    return Result { () throws(Errno) in try launch.start() }
                }
                ?? {
                    launch.errors = .null
                    return Result { () throws(Errno) in try launch.start() }
                }()
            let pid: pid_t
            switch started {
            case .success(let started): pid = started
            case .failure(let error):
                for fd in [toWorker.read, toWorker.write, fromWorker.read, fromWorker.write] { close(fd) }
                throw .transcribe(engine.name, "cannot run \(installation.python): \(error)")
            }
            // Below the recorder and the player: a transcription never starves them of CPU.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), WhisperEngine.niceness)
            close(toWorker.read)
            close(fromWorker.write)
            if let temporary = engine.temporary {
                try? FileSystem.writeAtomically(
                    Array("\(pid)\n".utf8), to: temporary + "/" + ExternalEngine.enginePIDFile, durable: false)
            }
            return Worker(pid: pid, input: toWorker.write, output: fromWorker.read, log: log, engineName: engine.name)
        }

        var isAlive: Bool { !ended }

        func send(_ bytes: [UInt8]) throws(RecError) {
            do throws(Errno) { try System.writeAll(input, bytes) } catch { throw died() }
        }

        /// The next line the worker writes; polls `cancel` every 0.2 s, and on it kills the worker.
        func readLine(cancel: CancelFlag) throws(RecError) -> [UInt8] {
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    let line = Array(buffer[..<newline])
                    buffer.removeSubrange(...newline)
                    return line
                }
                if cancel.isCancelled { throw .transcriptionStopped }
                var pollers = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
                let ready: Int
                do throws(Errno) { ready = try System.waitUntilReady(&pollers, timeout: 200) } catch { throw died() }
                if ready == 0 { continue }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = chunk.withUnsafeMutableBufferPointer { bytes in
                    System.retrying { read(output, bytes.baseAddress!, bytes.count) }
                }
                guard n > 0 else { throw died() }
                buffer += chunk[..<n]
            }
        }

        /// The error for a worker that is gone: how it ended and the last line it wrote.
        private func died() -> RecError {
            ended = true
            close(input)
            close(output)
            let how = WaitStatus.wait(for: pid) ?? WaitStatus(0)
            let said = ExternalEngine.lastLine((try? FileSystem.read(log)) ?? nil ?? [])
            if let signal = how.signal {
                return .transcribe(engineName, "the worker was killed by signal \(signal)" + said)
            }
            return .transcribe(engineName, "the worker exited with status \(how.code ?? 0)" + said)
        }

        /// Ends it: at once (its process group killed) when it is still running.
        func stop() {
            guard !ended else { return }
            ended = true
            _ = kill(-pid, SIGKILL)
            close(input)
            close(output)
            _ = WaitStatus.wait(for: pid)
        }
    }
}

/// One line the worker wrote.
enum WorkerReply {
    case ready
    case progress(Double)
    case done(language: String, segments: [Transcript.Segment])
    case error(String)

    static func parse(_ line: [UInt8]) throws(RecError) -> WorkerReply {
        do {
            return try line.withUnsafeBufferPointer { buffer in
                var r = JSONReader(buffer)
                var reply: WorkerReply?
                try r.beginObject()
                var first = true
                while let key = try r.nextKey(first: &first) {
                    if key.equals("ready") {
                        try r.skipValue()
                        reply = .ready
                    } else if key.equals("progress") {
                        reply = .progress(try r.readDouble())
                    } else if key.equals("error") {
                        reply = .error(try r.readString())
                    } else if key.equals("done") {
                        reply = try readDone(&r)
                    } else {
                        try r.skipValue()
                    }
                }
                try r.finish()
                guard let reply else {
                    throw RecError.transcribe(WhisperInstallation.name, "the worker said nothing known")
                }
                return reply
            }
        } catch let error as RecError {
            throw error
        } catch {
            throw .transcribe(WhisperInstallation.name, "the worker wrote a line that is not its JSON")
        }
    }

    private static func readDone(_ r: inout JSONReader) throws -> WorkerReply {
        var language = ""
        var segments: [Transcript.Segment] = []
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("language") {
                language = try r.readString()
            } else if key.equals("segments") {
                try r.beginArray()
                var firstSegment = true
                while try r.nextElement(first: &firstSegment) {
                    var segment = Transcript.Segment(start: nil, end: nil, text: "")
                    try r.beginObject()
                    var firstKey = true
                    while let key = try r.nextKey(first: &firstKey) {
                        if key.equals("start") {
                            segment.start = try r.readDouble()
                        } else if key.equals("end") {
                            segment.end = try r.readDouble()
                        } else if key.equals("text") {
                            segment.text = try r.readString()
                        } else if key.equals("words") {
                            segment.words = try readWords(&r)
                        } else {
                            try r.skipValue()
                        }
                    }
                    if !segment.text.isEmpty { segments.append(segment) }
                }
            } else {
                try r.skipValue()
            }
        }
        return .done(language: language, segments: segments)
    }

    private static func readWords(_ r: inout JSONReader) throws -> [Transcript.Word] {
        var words: [Transcript.Word] = []
        try r.beginArray()
        var first = true
        while try r.nextElement(first: &first) {
            var word = Transcript.Word(start: 0, end: 0, text: "")
            try r.beginObject()
            var firstKey = true
            while let key = try r.nextKey(first: &firstKey) {
                if key.equals("start") {
                    word.start = try r.readDouble()
                } else if key.equals("end") {
                    word.end = try r.readDouble()
                } else if key.equals("word") {
                    word.text = try r.readString()
                } else {
                    try r.skipValue()
                }
            }
            if !word.text.isEmpty { words.append(word) }
        }
        return words
    }
}

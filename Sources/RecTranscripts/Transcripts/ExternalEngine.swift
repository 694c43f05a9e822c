import RecAudio
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Any program that turns a WAV file into text: `whisper-cli -m MODEL -f {wav}`, or a
/// script. recnotes writes the audio as a 16 kHz mono WAV into a temporary directory of
/// its own, puts its path where the command says `{wav}` (or last, if it says nowhere),
/// runs the command without a shell, and reads what it prints (`TranscriptOutput`).
/// A command that prints nothing but writes a file beside the WAV (whisper.cpp's `-oj`,
/// `-ovtt`, `-osrt`, `-otxt`) is read from that file. The directory is removed on every path.
package struct ExternalEngine: TranscriptionEngine {
    /// The environment variable that names the default external command.
    package static let environmentVariable = "RECNOTES_TRANSCRIBER"

    package let command: String
    package let arguments: [String]
    /// Seconds the command may take; nil: 5× the audio's length, plus 30 s.
    package var timeout: Double?
    /// Where the temporary directory goes: `$TMPDIR`, or /tmp.
    package var temporaryDirectory: String
    package var quality: Transcript.Quality

    /// Splits `command` into words (`CommandWords`). A usage error when it is empty or badly quoted.
    package init(
        command: String, timeout: Double? = nil, quality: Transcript.Quality = .good,
        temporaryDirectory: String? = nil
    ) throws(RecError) {
        let words = try CommandWords.split(command)
        guard !words.isEmpty else { throw .usage("transcriber command", "empty") }
        self.command = command
        self.arguments = words
        self.timeout = timeout
        self.quality = quality
        let tmp = Environment.temporaryDirectory
        self.temporaryDirectory = temporaryDirectory ?? tmp
    }

    /// The engine `$RECNOTES_TRANSCRIBER` names, or nil when it is unset or empty.
    package static func fromEnvironment(timeout: Double? = nil) throws(RecError) -> ExternalEngine? {
        guard let command = Environment.value(environmentVariable),
            command.contains(where: { !$0.isWhitespace })
        else { return nil }
        return try ExternalEngine(command: command, timeout: timeout)
    }

    /// The program's file name: what errors and the transcript call the engine.
    package var name: String { FileSystem.baseName(of: arguments[0]) }

    /// The value of `-m`/`--model`/`-model` in the command, or "".
    package var model: String {
        for (i, word) in arguments.enumerated() {
            if ["-m", "--model", "-model"].contains(word), i + 1 < arguments.count { return arguments[i + 1] }
            if word.hasPrefix("--model=") { return String(word.dropFirst("--model=".count)) }
        }
        return ""
    }

    /// The time the command gets for audio of this length.
    package func deadline(for duration: Double) -> Double {
        timeout ?? (5 * duration + 30)
    }

    /// An external engine cannot say how far it is; `cancel` kills its process group.
    package func transcribe(_ audio: SpeechAudio, cancel: CancelFlag, progress: (Double) -> Void) throws(RecError)
        -> Transcript
    {
        Self.sweep(temporaryDirectory)
        var template = Array((temporaryDirectory + "/\(Self.directoryPrefix)\(getpid())-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .transcribe(
                name, "cannot create a temporary directory in \(temporaryDirectory): \(systemReason(errno))")
        }
        let directory = String(cString: made)
        defer { Self.removeTree(directory) }
        let wav = directory + "/audio.wav"
        try audio.writeWAV(to: wav)

        var argv = CommandWords.substitute(arguments, wav: wav)
        if !arguments.contains(where: { $0.contains("{wav}") }) { argv.append(wav) }
        let outcome: CapturedRun
        do {
            outcome = try EngineProcess.run(argv, timeout: deadline(for: audio.duration), cancel: cancel) { pid in
                // For the sweep, should this process be killed while the engine runs.
                try? FileSystem.writeAtomically(
                    Array("\(pid)\n".utf8), to: directory + "/" + Self.enginePIDFile, durable: false)
            }
        } catch .cannotStart(let code) {
            throw .transcribe(name, "cannot run \(arguments[0]): \(code)")
        } catch .cancelled {
            throw .transcriptionStopped
        } catch .timedOut {
            throw .transcribe(name, "timed out after \(Self.seconds(deadline(for: audio.duration))) s (killed)")
        } catch {
            throw .transcribe(name, "printed more than \(EngineProcess.outputLimit >> 20) MB (killed)")
        }
        if let fault = EngineProcess.fault(of: outcome) { throw .transcribe(name, fault) }
        var output = outcome.stdout
        if !output.contains(where: { !Self.isBlank($0) }), let written = Self.writtenOutput(in: directory) {
            output = written
        }
        do {
            let parsed = try TranscriptOutput.parse(output)
            return Transcript(engine: name, model: model, quality: quality, segments: parsed.segments)
        } catch {
            throw .transcribe(name, error.reason)
        }
    }

    /// A transcript file the command wrote into the directory (whisper.cpp's `-oj`:
    /// `audio.wav.json`), JSON first, then WebVTT, SRT, text.
    static func writtenOutput(in directory: String) -> [UInt8]? {
        let names = FileSystem.entries(of: directory).filter { $0 != "audio.wav" }
        for suffix in [".json", ".vtt", ".srt", ".txt"] {
            if let name = names.first(where: { $0.hasSuffix(suffix) }),
                let bytes = try? FileSystem.read(directory + "/" + name)
            {
                return bytes
            }
        }
        return nil
    }

    /// `recnotes-transcribe-<pid of the transcriber>-XXXXXX`.
    static let directoryPrefix = "recnotes-transcribe-"
    static let enginePIDFile = "engine.pid"

    /// What a transcriber killed outright (SIGKILL, a power cut of the session) left in the
    /// temporary directory: its directory, and perhaps its engine, still running in a process
    /// group of its own. Each run clears those of transcribers that are gone: the directory is
    /// removed and the engine's group killed, if the process with that pid is still the engine
    /// (its arguments name the directory: a pid reused since is left alone).
    static func sweep(_ temporary: String) {
        for name in FileSystem.entries(of: temporary) where name.hasPrefix(directoryPrefix) {
            guard let owner = Int32(name.dropFirst(directoryPrefix.count).prefix { $0 != "-" }),
                !processIsAlive(owner)
            else { continue }
            let directory = temporary + "/" + name
            if let text = try? FileSystem.read(directory + "/" + enginePIDFile),
                let engine = Int32(String(decoding: text.prefix { $0 != 0x0A }, as: UTF8.self)),
                engine > 0, processIsAlive(engine),
                let arguments = try? FileSystem.read("/proc/\(engine)/cmdline"),
                String(decoding: arguments, as: UTF8.self).contains(directory)
            {
                _ = kill(-engine, SIGKILL)
                _ = kill(engine, SIGKILL)
            }
            removeTree(directory)
        }
    }

    /// Removes the temporary directory and whatever the command left in it.
    static func removeTree(_ path: String) {
        for name in FileSystem.entries(of: path) {
            let child = path + "/" + name
            var info = stat()
            if lstat(child, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                removeTree(child)
            } else {
                unlink(child)
            }
        }
        rmdir(path)
    }

    private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// ": <the last line it wrote to stderr>", or "" when it wrote none.
    static func lastLine(_ stderr: [UInt8]) -> String {
        let text = String(decoding: stderr, as: UTF8.self)
        guard
            let line = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).last(where: {
                $0.contains(where: { !$0.isWhitespace })
            })
        else { return "" }
        return ": " + line.trimmingBlanks().prefix(200)
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
    }
}

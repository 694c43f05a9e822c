import ArgumentParser
import RecAudio
import RecCore
import RecStore
import RecSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `record --background` and `play --background`: the same command runs again as a
/// detached child (its own session, stdin from /dev/null, stdout and stderr to `--log` or
/// /dev/null), and the parent returns only once the child has registered itself in the
/// view state, so that a `status` run right after sees it.
///
/// The child reports through a pipe on descriptor 3: its warnings and errors until it is
/// registered (the parent prints them, and exits with the child's status if it failed),
/// then the job's path and JSON, then it closes the pipe.
enum Background {
    /// The hidden flag that marks the child.
    static let childFlag = "--background-child"
    private static let statusDescriptor: Int32 = 3
    /// Set in the child until it is registered: messages go to the parent too.
    nonisolated(unsafe) private static var reporting = false

    /// What the child said when it was ready.
    struct Ready {
        var path: String
        var json: String
    }

    /// Starts the detached child and waits for it to be registered.
    static func detach(command: String, log: String?) throws -> Ready {
        let output = try openOutput(log)
        let pipe: (read: Int32, write: Int32)
        do throws(Errno) { pipe = try System.closeOnExecPipe() } catch {
            throw RecError.failure(command, "cannot start in the background: \(error)")
        }
        let ends = [pipe.read, pipe.write]
        defer { close(ends[0]) }
        let child: DetachedProcess
        do {
            defer { close(ends[1]) }
            child = try output.withDescriptor {
                try DetachedProcess.spawn(
                    executable: DetachedProcess.currentExecutable, arguments: childArguments(),
                    output: $0, report: ends[1], reportDescriptor: statusDescriptor)
            }
        } catch {
            throw RecError.failure(command, "cannot start in the background: \(error)")
        }
        // Up to 30 s for the device to open: a hung child must not hang the shell.
        guard let report = DetachedProcess.readToEnd(ends[0], within: 30) else {
            child.kill()
            throw RecError.failure(command, "the background process did not start within 30 s")
        }
        if let ready = relayReport(report) { return ready }
        // It failed before registering: its message was printed above; its status is ours.
        let code = child.exitStatus()
        throw ExitCode(code == 0 ? ExitStatus.failure : code)
    }

    /// This command line again, without `--background` and with the child flag (before any `--`).
    private static func childArguments() -> [String] {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        return arguments[..<end].filter { $0 != "--background" } + [childFlag] + arguments[end...]
    }

    /// Where the child's stdout and stderr go: `--log`, else /dev/null.
    private static func openOutput(_ log: String?) throws -> OpenFile {
        try OpenFile.opening(log ?? "/dev/null", log == nil ? O_WRONLY : O_WRONLY | O_CREAT | O_APPEND) {
            RecError.failure(log ?? "/dev/null", "cannot open the log: \($0)")
        }
    }

    /// Prints the messages the child sent, and returns its path and JSON if it got as far
    /// as registering.
    private static func relayReport(_ report: [UInt8]) -> Ready? {
        var path: String?
        var json: String?
        for line in String(decoding: report, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("path\t") {
                path = String(line.dropFirst(5))
            } else if line.hasPrefix("json\t") {
                json = String(line.dropFirst(5))
            } else if line.hasPrefix("msg\t") {
                Terminal.writeStderr(line.dropFirst(4) + "\n")
            }
        }
        guard let path, let json else { return nil }
        return Ready(path: path, json: json)
    }

    /// In the child, before anything can fail.
    static func beginChild() {
        reporting = fcntl(statusDescriptor, F_GETFD) >= 0
        if reporting { _ = fcntl(statusDescriptor, F_SETFD, FD_CLOEXEC) }
    }

    /// In the child, once registered: tells the parent, and stops reporting to it.
    static func ready(path: String, json: String) {
        guard reporting else { return }
        send("path\t\(path)\njson\t\(json)\n")
        reporting = false
        close(statusDescriptor)
    }

    /// A warning or error line, passed on while the parent is still waiting.
    static func relay(_ line: String) {
        guard reporting else { return }
        send("msg\t\(line)\n")
    }

    private static func send(_ text: String) {
        // A parent that stopped listening is no reason to stop the job.
        try? System.writeAll(statusDescriptor, Array(text.utf8))
    }
}

/// The options `record` and `play` share for running detached.
struct BackgroundOptions: ParsableArguments {
    @Flag(
        help:
            "Detach and return once it runs (a recording: once its first audio has arrived), printing the item's path; 'recnotes stop' ends it."
    )
    var background = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --background: append the detached process's output and errors to this file.", valueName: "file"))
    var log: String?

    @Flag(
        help:
            "With --background: print the job as JSON (as 'status --json' shows it) instead of its path. For record without --background: print the saved recording, as mkdir --json does."
    )
    var json = false

    @Flag(name: .customLong("background-child"), help: .private)
    var child = false

    /// In the parent: detaches, prints, and returns true (the caller returns). In the
    /// child: starts reporting to the parent and returns false. Otherwise false.
    /// `jsonAlone`: the command gives `--json` a meaning of its own without `--background`.
    func detachIfAsked(command: String, jsonAlone: Bool = false) throws -> Bool {
        if child {
            Background.beginChild()
            return false
        }
        if !background {
            if log != nil { throw RecError.usage("--log", "is only for --background") }
            if json && !jsonAlone {
                throw RecError.usage("--json", "is only for --background; for events use --progress json")
            }
            return false
        }
        let ready = try Background.detach(command: command, log: log)
        print(json ? ready.json : ready.path)
        return true
    }

    /// In the child, once registered in the view state.
    /// Whether `--json` asks for the saved item (not detaching, not the detached child).
    var wantsItemJSON: Bool { json && !background && !child }

    /// In the child of `record --background`: registered now, but the parent is told only
    /// once the first audio has arrived (`Readiness.see`), so that the recording it returns
    /// for is already capturing: on a loaded machine, opening the device and the first
    /// period can take a second, which a `sleep 3; recnotes stop` would otherwise cut.
    func readinessOnAudio(in library: Library) -> Readiness? {
        guard child,
            let status = RemoteControl(library: library).statuses(library.viewState.state).first(where: {
                $0.job == .recording
            })
        else { return nil }
        return Readiness(path: status.path, json: ItemJSON.status(status))
    }

    /// Tells the waiting parent once, on the first event that shows audio arriving (or the
    /// recording ending without any: it failed, or was stopped at once).
    final class Readiness: Sendable {
        private let payload: (path: String, json: String)
        private let told = Mutex(false)

        init(path: String, json: String) { payload = (path, json) }

        func see(_ event: AudioEvent) {
            switch event {
            case .progress(let progress) where progress.position.frames > 0 || progress.voice != nil: break
            case .finished, .failed: break
            default: return
            }
            let first = told.withLock { told in
                defer { told = true }
                return !told
            }
            if first { Background.ready(path: payload.path, json: payload.json) }
        }
    }

    func registered(_ job: ViewState.Job, in library: Library) {
        guard child,
            let status = RemoteControl(library: library).statuses(library.viewState.state).first(where: {
                $0.job == job
            })
        else { return }
        Background.ready(path: status.path, json: ItemJSON.status(status))
    }
}

/// `record --transcribe` and `import --transcribe`: `BackgroundTranscription`, warning
/// when it cannot start.
extension BackgroundTranscription {
    static func start(_ items: [Item], in library: Library) {
        do {
            try start(items.map(\.id), location: library.location)
        } catch {
            Terminal.warning("the transcription could not start (\(error)); run 'recnotes transcribe --all --missing'")
        }
    }
}

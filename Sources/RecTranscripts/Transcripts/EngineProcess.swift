import RecAudio
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One run of an external engine: argv without a shell (found on PATH), stdin from /dev/null,
/// stdout and stderr captured (`ProcessLaunch.capture`), a deadline. The child leads a
/// process group of its own, so that a timeout kills whatever it started too (a wrapper
/// script's decoder), not only the program named.
struct EngineProcess {
    typealias Failure = CaptureFailure

    /// More than this on stdout is not a transcript.
    static let outputLimit = 64 << 20
    /// The tail of stderr that is kept, for the error message.
    static let stderrLimit = 8192

    /// `started` is told the engine's pid (its process group's too) once it runs.
    /// Once `cancel` is set, the engine's group is killed within about 0.2 s. `input`: its
    /// standard input (a summarizer reads the transcript there).
    static func run(
        _ argv: [String], timeout seconds: Double, input: ChildStream = .null, cancel: CancelFlag? = nil,
        started: (pid_t) -> Void = { _ in }
    ) throws(Failure) -> CapturedRun {
        // Nothing else of ours (closeInherited): a descriptor inherited by mistake (a caller's
        // pipe) would keep that pipe open for as long as the engine, or an orphan of it, runs.
        // Its own process group, so that a timeout kills whatever it started too.
        var launch = ProcessLaunch(argv)
        launch.input = input
        launch.ownProcessGroup = true
        launch.closeInherited = true
        return try launch.capture(
            timeout: seconds, outputLimit: outputLimit, stderrLimit: stderrLimit,
            isCancelled: cancel.map { flag in { flag.isCancelled } }, started: started)
    }

    /// How a run that did not exit with status 0 ended, with the last line it wrote to stderr:
    /// "exited with status 3: no model"; nil when it succeeded.
    static func fault(of outcome: CapturedRun) -> String? {
        if let signal = outcome.ended.signal {
            return "killed by signal \(signal)" + ExternalEngine.lastLine(outcome.stderr)
        }
        if let status = outcome.ended.code, status != 0 {
            return "exited with status \(status)" + ExternalEngine.lastLine(outcome.stderr)
        }
        return nil
    }
}

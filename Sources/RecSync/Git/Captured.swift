import RecSystem

/// A program's exit status and what it wrote, for the git and git-annex commands whose
/// output sync reads (remote lists, `--json` transfer records) or whose error it reports.
public struct Captured: Sendable {
    public var status: Int32
    public var output: String
    public var errors: String

    public var succeeded: Bool { status == 0 }
    public var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// The last line git or git-annex wrote to stderr, the one that says why: not a hint,
    /// nor the advice git adds after any failure to reach a remote (the line before it, ssh's
    /// or the remote's, says why).
    public var reason: String {
        let lines = errors.split(separator: "\n").map { $0.trimmingPrefix("fatal: ") }.filter { !$0.isEmpty }
        let said = lines.last(where: { !$0.hasPrefix("hint:") && !Self.boilerplate.contains(String($0)) })
        return said.map(String.init) ?? "exit status \(status)"
    }

    /// What git says after ssh or the remote side has said why it failed.
    static let boilerplate: Set<String> = [
        "Could not read from remote repository.", "Please make sure you have the correct access rights",
        "and the repository exists.",
    ]

    /// Runs `arguments[0]` (looked up in PATH) with its stdin on /dev/null and waits
    /// (`ProcessLaunch.capture`: both streams read as they come).
    public static func run(_ arguments: [String]) throws -> Captured {
        var launch = ProcessLaunch(arguments)
        launch.input = .null
        let run: CapturedRun
        do {
            // git's stderr can be long (hints, progress); the last lines say why.
            run = try launch.capture(outputLimit: 1 << 30, stderrLimit: 16384)
        } catch {
            throw RecError.failure(arguments[0], "cannot run: \(error)")
        }
        return Captured(
            status: run.status, output: String(decoding: run.stdout, as: UTF8.self),
            errors: String(decoding: run.stderr, as: UTF8.self))
    }
}

import RecSystem

/// A program's exit status and what it wrote, for the git and git-annex commands whose
/// output sync reads (remote lists, `--json` transfer records) or whose error it reports.
package struct Captured: Sendable {
    package var status: Int32
    package var output: String
    package var errors: String

    package var succeeded: Bool { status == 0 }
    package var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// The last line git or git-annex wrote to stderr, the one that says why: not a hint,
    /// nor the advice git adds after any failure to reach a remote (the line before it, ssh's
    /// or the remote's, says why).
    /// Lines end at a CR as well as a LF: ssh ends its own with CR LF, which Swift would
    /// otherwise take as one character inside a line.
    package var reason: String {
        let lines = errors.unicodeScalars.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { Self.oneLine(String($0)).trimmingPrefix("fatal: ") }.filter { !$0.isEmpty }
        let said = lines.last(where: { !$0.hasPrefix("hint:") && !Self.boilerplate.contains(String($0)) })
        return said.map(String.init) ?? "exit status \(status)"
    }

    /// A child's text as one readable line: line breaks, tabs and other control characters
    /// become spaces, runs of them one, none at either end.
    static func oneLine(_ text: String) -> String {
        var out = ""
        var space = false
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == " " {
                space = !out.isEmpty
                continue
            }
            if space { out.unicodeScalars.append(" ") }
            space = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    /// git-annex reaches an ssh remote the way git does only with GIT_ANNEX_USE_GIT_SSH=1
    /// (git-annex(1)); without it, a user's GIT_SSH_COMMAND would carry the library and not the
    /// audio. Set once, before the first git or git-annex recnotes starts, unless the user set it.
    private static let annexFollowsGitSSH: Void = {
        if Environment.value("GIT_SSH_COMMAND") != nil {
            Environment.setDefault("GIT_ANNEX_USE_GIT_SSH", "1")
        }
    }()

    /// What git says after ssh or the remote side has said why it failed.
    static let boilerplate: Set<String> = [
        "Could not read from remote repository.", "Please make sure you have the correct access rights",
        "and the repository exists.",
    ]

    /// Runs `arguments[0]` (looked up in PATH) with its stdin on /dev/null and waits
    /// (`ProcessLaunch.capture`: both streams read as they come). `line` is given each whole
    /// line of stdout, without its line feed, as soon as it is written (git-annex's progress
    /// records); `output` holds them all at the end.
    package static func run(_ arguments: [String], line: ((Substring) -> Void)? = nil) throws -> Captured {
        _ = annexFollowsGitSSH
        var launch = ProcessLaunch(arguments)
        launch.input = .null
        let run: CapturedRun
        var pending: [UInt8] = []
        do {
            // git's stderr can be long (hints, progress); the last lines say why.
            run = try launch.capture(
                outputLimit: 1 << 30, stderrLimit: 16384,
                received: { piece in
                    guard let line else { return }
                    pending += piece
                    guard let last = pending.lastIndex(of: UInt8(ascii: "\n")) else { return }
                    for whole in String(decoding: pending[..<last], as: UTF8.self).split(separator: "\n") {
                        line(whole)
                    }
                    pending.removeFirst(last + 1)
                })
        } catch {
            throw RecError.failure(arguments[0], "cannot run: \(error)")
        }
        // A last line without its line feed.
        if let line, !pending.isEmpty { line(Substring(String(decoding: pending, as: UTF8.self))) }
        return Captured(
            status: run.status, output: String(decoding: run.stdout, as: UTF8.self),
            errors: String(decoding: run.stderr, as: UTF8.self))
    }
}

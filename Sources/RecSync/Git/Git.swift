import RecSystem

/// git and git-annex, run in one repository through `ChildProcess` (never a shell string).
public struct Git: Sendable {
    public var directory: String

    public init(directory: String) { self.directory = directory }

    /// Runs `git -C <directory> <arguments>`; a non-zero exit is a one-line failure about `what`.
    public func run(_ arguments: [String], what: String, quiet: Bool = true) throws {
        let status = try ChildProcess.run(["git", "-C", directory] + arguments, quiet: quiet)
        guard status == 0 else {
            throw RecError.failure(what, "git \(arguments.first ?? "") failed (exit status \(status))")
        }
    }

    /// Runs `git -C <directory> <arguments>` and returns what it said; `line` is given each
    /// line of its stdout as it comes (`Captured.run`).
    public func capture(_ arguments: [String], line: ((Substring) -> Void)? = nil) throws -> Captured {
        try Captured.run(["git", "-C", directory] + arguments, line: line)
    }

    /// `capture` that must succeed: a failure is one line, `<what>: <git's reason>`.
    @discardableResult
    public func require(_ arguments: [String], what: String) throws -> Captured {
        let result = try capture(arguments)
        guard result.succeeded else { throw RecError.failure(what, result.reason) }
        return result
    }

    /// `.git` of a non-bare repository made by `git init` here.
    public var gitDirectory: String { directory + "/.git" }
    public var isRepository: Bool { FileSystem.exists(gitDirectory) }
    /// `git annex init` makes `.git/annex`.
    public var isAnnex: Bool { FileSystem.exists(gitDirectory + "/annex") }
}

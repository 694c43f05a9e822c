import RecSystem

/// git and git-annex, run in one repository through `ChildProcess` (never a shell string).
package struct Git: Sendable {
    package var directory: String
    /// The index git reads and writes (GIT_INDEX_FILE) instead of its own: sync stages a
    /// snapshot of the store in one of its own (`SyncRun.snapshot`).
    package var indexFile: String?
    /// Further `NAME=value` settings for git and what it runs (the merge drivers of a merge
    /// sync makes without `git merge`: `SyncReceive`).
    package var environment: [String] = []

    package init(directory: String, indexFile: String? = nil, environment: [String] = []) {
        self.directory = directory
        self.indexFile = indexFile
        self.environment = environment
    }

    /// `git -C <directory>`, through env(1) when the index is another one or more is set.
    func command(_ arguments: [String]) -> [String] {
        let settings = (indexFile.map { ["GIT_INDEX_FILE=" + $0] } ?? []) + environment
        return (settings.isEmpty ? [] : ["env"] + settings) + ["git", "-C", directory] + arguments
    }

    /// Runs `git -C <directory> <arguments>`; a non-zero exit is a one-line failure about `what`.
    package func run(_ arguments: [String], what: String, quiet: Bool = true) throws {
        let status = try ChildProcess.run(command(arguments), quiet: quiet)
        guard status == 0 else {
            throw RecError.failure(what, "git \(arguments.first ?? "") failed (exit status \(status))")
        }
    }

    /// Runs `git -C <directory> <arguments>` and returns what it said; `line` is given each
    /// line of its stdout as it comes (`Captured.run`).
    package func capture(_ arguments: [String], line: ((Substring) -> Void)? = nil) throws -> Captured {
        try Captured.run(command(arguments), line: line)
    }

    /// `capture` that must succeed: a failure is one line, `<what>: <git's reason>`.
    @discardableResult
    package func require(_ arguments: [String], what: String) throws -> Captured {
        let result = try capture(arguments)
        guard result.succeeded else { throw RecError.failure(what, result.reason) }
        return result
    }

    /// `.git` of a non-bare repository made by `git init` here.
    package var gitDirectory: String { directory + "/.git" }
    package var isRepository: Bool { FileSystem.exists(gitDirectory) }
    /// `git annex init` makes `.git/annex`.
    package var isAnnex: Bool { FileSystem.exists(gitDirectory + "/annex") }
}

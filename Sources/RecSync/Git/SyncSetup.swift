import RecStore
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `sync init`: the store directory as a git and git-annex repository. git carries the
/// documents (store.json, transcripts/), git-annex the audio; what is per machine never travels.
package enum SyncSetup {
    /// What must never travel: the view state, derived files, locks, the journal and undo/
    /// (undo is a per-machine history), and the temporary files of atomic writes.
    package static let ignored = """
        # Written by recnotes sync init: what stays on this machine.
        /viewstate.json
        /cache/
        /undo/
        /engines/
        /incoming/
        /journal.jsonl
        *.lock
        .*.tmp-*
        *.broken-*

        """

    /// git-annex takes audio/ (annex.largefiles), git the rest; store.json and transcripts
    /// merge through recnotes (SYNC-INTERFACE.md), your words (`Vocabulary`) line by line.
    package static let attributes = """
        # Written by recnotes sync init.
        * annex.largefiles=nothing
        /audio/** annex.largefiles=anything
        /store.json merge=recnotes
        /transcripts/** merge=recnotes-transcript
        /words.txt merge=union

        """

    /// Makes `location`'s directory a repository, or finishes one made before; returns one
    /// line per thing it did (nothing when all was already done, apart from the driver path).
    package static func initialize(
        _ location: StoreLocation, machine: String?, executable: String = DetachedProcess.currentExecutable
    ) throws -> [String] {
        var said: [String] = []
        let git = Git(directory: location.directory)
        try FileSystem.makeDirectories(location.directory)
        if !git.isRepository {
            try git.run(["init", "-q"], what: "sync init")
            said.append("made \(location.directory) a git repository")
        }
        said += try writeFiles(location).map { "wrote \($0)" }
        let current = machineName(git)
        let name = machine ?? current ?? hostName()
        if current != name {
            try git.run(["config", "recnotes.machine", name], what: "sync init")
            said.append("this machine is '\(name)'")
        }
        try writeDriverConfig(git, executable: executable)
        if !git.isAnnex {
            // The store's commits are recnotes' own, per machine: they need no global identity.
            try git.run(["config", "user.name", "recnotes on \(name)"], what: "sync init")
            try git.run(["config", "user.email", "recnotes@\(name)"], what: "sync init")
            try git.run(["annex", "init", name], what: "sync init")
            said.append("git-annex initialised (audio/ travels through git-annex)")
        }
        return said
    }

    /// .gitignore and .gitattributes as this recnotes writes them, where they differ (a
    /// repository made by an older one is brought up to date by its next sync); the names
    /// of those written.
    package static func writeFiles(_ location: StoreLocation) throws -> [String] {
        var written: [String] = []
        for (name, text) in [(".gitignore", ignored), (".gitattributes", attributes)] {
            let path = location.directory + "/" + name
            let bytes = Array(text.utf8)
            if (try? FileSystem.read(path)) != bytes {
                try FileSystem.writeAtomically(bytes, to: path)
                written.append(name)
            }
        }
        return written
    }

    /// The merge drivers' commands name the running binary; re-written in case it moved.
    /// A plain `git pull` in the store merges (with the same drivers) rather than asking how
    /// to reconcile. Read from .git/config first: a sync with nothing to do starts no
    /// `git config` when they are as they should be.
    package static func writeDriverConfig(_ git: Git, executable: String) throws {
        let settings = [
            ("merge.recnotes.name", "recnotes library merge"),
            ("merge.recnotes.driver", "\(executable) sync merge-driver %O %A %B %P"),
            ("merge.recnotes-transcript.name", "recnotes transcript merge"),
            ("merge.recnotes-transcript.driver", "\(executable) sync merge-driver --transcript %O %A %B %P"),
            ("pull.rebase", "false"),
        ]
        let current = RepositoryConfig(git)
        for (key, value) in settings where current.value(key) != value {
            try git.run(["config", key, value], what: "sync init")
        }
    }

    /// `recnotes.machine` as `git config` stores it, read from .git/config without a process.
    static func machineName(_ git: Git) -> String? {
        RepositoryConfig(git).values("recnotes", "machine").last
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "this machine" }
        return String(cString: buffer)
    }
}

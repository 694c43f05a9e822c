import RecStore
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `sync init`: the store directory as a git and git-annex repository. git carries the
/// documents (store.json, transcripts/), git-annex the audio; what is per machine never travels.
public enum SyncSetup {
    /// What must never travel: the view state, derived files, locks, the journal and undo/
    /// (undo is a per-machine history), and the temporary files of atomic writes.
    public static let ignored = """
        # Written by recnotes sync init: what stays on this machine.
        /viewstate.json
        /cache/
        /undo/
        /journal.jsonl
        *.lock
        .*.tmp-*
        *.broken-*

        """

    /// git-annex takes audio/ (annex.largefiles), git the rest; store.json and transcripts
    /// merge through recnotes (SYNC-INTERFACE.md).
    public static let attributes = """
        # Written by recnotes sync init.
        * annex.largefiles=nothing
        /audio/** annex.largefiles=anything
        /store.json merge=recnotes
        /transcripts/** merge=recnotes-transcript

        """

    /// Makes `location`'s directory a repository, or finishes one made before; returns one
    /// line per thing it did (nothing when all was already done, apart from the driver path).
    public static func initialize(
        _ location: StoreLocation, machine: String?, executable: String = DetachedProcess.currentExecutable
    ) throws -> [String] {
        var said: [String] = []
        let git = Git(directory: location.directory)
        try FileSystem.makeDirectories(location.directory)
        if !git.isRepository {
            try git.run(["init", "-q"], what: "sync init")
            said.append("made \(location.directory) a git repository")
        }
        for (name, text) in [(".gitignore", ignored), (".gitattributes", attributes)] {
            let path = location.directory + "/" + name
            let bytes = Array(text.utf8)
            if (try? FileSystem.read(path)) != bytes {
                try FileSystem.writeAtomically(bytes, to: path)
                said.append("wrote \(name)")
            }
        }
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

    /// The merge drivers' commands name the running binary; re-written in case it moved.
    /// A plain `git pull` in the store merges (with the same drivers) rather than asking how
    /// to reconcile. Read from .git/config first: a sync with nothing to do starts no
    /// `git config` when they are as they should be.
    public static func writeDriverConfig(_ git: Git, executable: String) throws {
        let settings = [
            ("merge.recnotes.name", "recnotes library merge"),
            ("merge.recnotes.driver", "\(executable) sync merge-driver %O %A %B %P"),
            ("merge.recnotes-transcript.name", "recnotes transcript merge"),
            ("merge.recnotes-transcript.driver", "\(executable) sync merge-driver --transcript %O %A %B %P"),
            ("pull.rebase", "false"),
        ]
        let current = localConfig(git)
        for (key, value) in settings where current[key] != value {
            try git.run(["config", key, value], what: "sync init")
        }
    }

    /// `recnotes.machine` as `git config` stores it, read from .git/config without a process.
    static func machineName(_ git: Git) -> String? { localConfig(git)["recnotes.machine"] }

    /// The repository's own settings as `git config` writes them (`[section "sub"]` and
    /// `key = value` lines), by `section.sub.key`, section and key in lower case. Only for
    /// checking recnotes' own settings: a value git would have written quoted or continued
    /// reads as something else, and is then simply written again.
    static func localConfig(_ git: Git) -> [String: String] {
        guard let bytes = try? FileSystem.read(git.gitDirectory + "/config") else { return [:] }
        var settings: [String: String] = [:]
        var section = ""
        for raw in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let line = raw.trimmingCharacters(in: " \t")
            if line.hasPrefix("["), line.hasSuffix("]") {
                let header = line.dropFirst().dropLast()
                if let quote = header.firstIndex(of: "\"") {
                    let name = header[..<quote].trimmingCharacters(in: " \t").lowercased()
                    section = name + "." + header[header.index(after: quote)...].trimmingCharacters(in: "\"")
                } else {
                    section = header.lowercased()
                }
            } else if !section.isEmpty, !line.hasPrefix("#"), !line.hasPrefix(";") {
                let parts = line.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let key = String(parts[0]).trimmingCharacters(in: " \t").lowercased()
                settings[section + "." + key] = String(parts[1]).trimmingCharacters(in: " \t\"")
            }
        }
        return settings
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "this machine" }
        return String(cString: buffer)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String { Substring(self).trimmingCharacters(in: set) }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

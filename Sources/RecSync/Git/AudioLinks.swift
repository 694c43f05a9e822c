import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The `audio/<file>` links git carries for git-annex, kept in step with the recordings
/// store.json holds.
///
/// git merges store.json with recnotes' rules, but the links as plain files: one side's
/// deletion (`rm --permanent`, `trash empty`) against the other side's edit keeps the
/// recording by the merge rules and deletes its link by git's. The content is still known to
/// git-annex; only the link needs to come back, from whichever commit last had it.
package enum AudioLinks {
    /// One tree entry, as `ls-tree` lists it and `update-index --cacheinfo` takes it.
    struct Entry: Equatable {
        var mode: String
        var object: String
        var path: String
    }

    /// `tree` with the link of every recording its store.json holds (in the library or the
    /// trash) whose link the merge removed, taken back from `sources` (the merged commits,
    /// then their base). The tree itself when nothing is missing: only links that the merge
    /// deleted are looked at, so a merge that removes no link costs one `diff-tree`.
    static func restored(_ git: Git, tree: String, sources: [String]) throws -> String {
        var deleted = Set<String>()
        for source in sources {
            let diff = try git.require(
                [
                    "diff-tree", "-r", "-z", "--name-only", "--diff-filter=D", "--no-renames", source, tree, "--",
                    "audio",
                ],
                what: "sync")
            deleted.formUnion(diff.output.split(separator: "\0").map(String.init))
        }
        guard !deleted.isEmpty else { return tree }
        let kept = try recordedFiles(git, tree: tree)
        let missing = deleted.filter { kept.contains(FileSystem.baseName(of: $0)) }
        guard !missing.isEmpty else { return tree }
        var entries: [Entry] = []
        var found = Set<String>()
        for source in sources {
            for entry in try listed(git, commit: source, paths: missing.subtracting(found).sorted()) {
                entries.append(entry)
                found.insert(entry.path)
            }
        }
        guard !entries.isEmpty else { return tree }
        // A scratch index: the tree, with the links added, written back as a tree.
        let indexFile = git.gitDirectory + "/recnotes/links-index"
        try? FileSystem.remove(indexFile)
        defer { try? FileSystem.remove(indexFile) }
        let scratch = Git(directory: git.directory, indexFile: indexFile)
        try scratch.require(["read-tree", tree], what: "sync")
        try add(entries, to: scratch, what: "sync")
        return try scratch.require(["write-tree"], what: "sync").output.trimmed
    }

    /// The audio files named by the recordings in `tree`'s store.json, library and trash.
    static func recordedFiles(_ git: Git, tree: String) throws -> Set<String> {
        let shown = try git.capture(["cat-file", "blob", "\(tree):store.json"])
        guard shown.succeeded else { return [] }
        let bytes = Array(shown.output.utf8)
        guard let document = try? bytes.withUnsafeBufferPointer({ try DocumentCodec.decode($0, strict: false).0 })
        else { return [] }
        return recordedFiles(document)
    }

    /// The audio files named by the store.json at `path`; nil when it is missing or does not
    /// decode (a sync or repair then leaves the links as they are).
    static func recordedFiles(inStoreFile path: String) throws -> Set<String>? {
        guard let bytes = try FileSystem.read(path),
            let document = try? bytes.withUnsafeBufferPointer({ try DocumentCodec.decode($0, strict: false).0 })
        else { return nil }
        return recordedFiles(document)
    }

    static func recordedFiles(_ document: Document) -> Set<String> {
        var files = Set(document.items.values.compactMap(\.recording?.file))
        for entry in document.trash { files.formUnion(entry.audioFiles) }
        return files
    }

    /// The entries of `paths` in `commit`'s tree (those it has).
    static func listed(_ git: Git, commit: String, paths: [String]) throws -> [Entry] {
        guard !paths.isEmpty else { return [] }
        var entries: [Entry] = []
        for batch in SyncReceive.batches(paths) {
            let listing = try git.require(
                ["--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--"] + batch, what: "sync")
            for record in listing.output.split(separator: "\0") {
                // `<mode> <type> <object>\t<path>`
                guard let tab = record.firstIndex(of: "\t") else { continue }
                let fields = record[..<tab].split(separator: " ")
                guard fields.count == 3, fields[1] == "blob" else { continue }
                entries.append(
                    Entry(
                        mode: String(fields[0]), object: String(fields[2]),
                        path: String(record[record.index(after: tab)...])))
            }
        }
        return entries
    }

    /// Puts `entries` in `git`'s index as they are (no file is read).
    static func add(_ entries: [Entry], to git: Git, what: String) throws {
        for start in stride(from: 0, to: entries.count, by: 500) {
            let batch = entries[start..<min(start + 500, entries.count)]
            try git.require(
                ["update-index", "--add"] + batch.flatMap { ["--cacheinfo", "\($0.mode),\($0.object),\($0.path)"] },
                what: what)
        }
    }

    /// A link `restoreMissing` put back, and where git-annex says the content is.
    package struct Restored: Equatable, Sendable {
        package var file: String
        package var copies: [String]
    }

    /// What `fsck --repair` restores: each recording of the store (in the library or the
    /// trash) whose audio file is not in the work tree at all gets its link back from the
    /// newest commit that had it, and git's index takes it, so that the next sync commits
    /// it. The content may be here or on another machine (`get` brings it).
    package static func restoreMissing(_ location: StoreLocation) throws -> [Restored] {
        let git = Git(directory: location.directory)
        guard git.isAnnex, let recorded = try recordedFiles(inStoreFile: location.storeFile) else { return [] }
        let missing = recorded.filter { file in
            var info = stat()
            return lstat(location.audioPath(file), &info) != 0
        }.sorted()
        guard !missing.isEmpty else { return [] }
        // A sync would rewrite git's index under this: none runs meanwhile.
        guard let lock = try RepositoryLock.attempt(gitDirectory: git.gitDirectory) else {
            throw RecError.failure(
                "fsck", "a sync of this store is running; repair the audio links when it has finished")
        }
        defer { withExtendedLifetime(lock) {} }
        var entries: [Entry] = []
        for file in missing {
            let path = "audio/" + file
            // The newest commit on any branch that added or changed the link.
            let found = try git.capture(["log", "--all", "-n", "1", "--format=%H", "--diff-filter=AM", "--", path])
            guard found.succeeded, let commit = found.lines.first, !commit.isEmpty else { continue }
            entries += try listed(git, commit: commit, paths: [path]).filter { $0.mode == "120000" }
        }
        var restored: [Restored] = []
        for entry in entries {
            let target = try git.require(["cat-file", "blob", entry.object], what: "fsck").output
            let path = location.directory + "/" + entry.path
            try FileSystem.makeDirectories(FileSystem.parentDirectory(of: path))
            guard symlink(target, path) == 0 else {
                throw RecError.failure("fsck", "\(path): cannot make the link: \(Errno.current)")
            }
            restored.append(Restored(file: FileSystem.baseName(of: entry.path), copies: []))
        }
        guard !entries.isEmpty else { return [] }
        try add(entries, to: git, what: "fsck")
        let copies = (try? Annex.copies(location, files: restored.map(\.file))) ?? [:]
        return restored.map { Restored(file: $0.file, copies: copies[$0.file] ?? []) }
    }
}

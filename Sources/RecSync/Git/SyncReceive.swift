import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// What a sync receives, put in place with the store lock held only for a few renames.
///
/// `prepare` runs without the store lock and touches neither the work tree nor git's index:
/// the remotes' branches are merged with `git merge-tree --write-tree` (which runs recnotes'
/// merge drivers, as `git merge` would) and `commit-tree`, or fast-forwarded; the files that
/// change are written by `checkout-index` into `recnotes/incoming/`, and the index that goes
/// with them is made in `recnotes/merge-index` (`read-tree -m`, which keeps the stat data of
/// what does not change). It also checks that the work tree still holds what the merge started
/// from (or already what it ends with, after a killed sync), and notes each file's state.
///
/// `install` runs under the store lock: each file that changes is still in the state noted
/// (else a command changed it meanwhile: nothing is done, and sync starts again from a new
/// snapshot, so the change is merged and never lost), then renames, in an order that a kill
/// between any two steps leaves a store every command opens and a repository the next sync
/// completes: new and changed files, store.json, the removals, git's index, HEAD (moved only
/// from the commit the merge started from), and the conflicts report.
enum SyncReceive {
    /// A file a merge replaces or removes, and what was there when it was prepared.
    struct Change {
        var path: String
        /// The prepared file in `recnotes/incoming/`; nil when the merge removes the path.
        var incoming: String?
        var found: FileState?
    }

    /// Enough of lstat(2) to tell that a file was not replaced or written since: every
    /// recnotes write is a rename (a new inode), and any write changes ctime.
    struct FileState: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var mode: UInt32
        var changed: Int
        var changedNanoseconds: Int

        static func of(_ path: String) -> FileState? {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            return FileState(
                device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                mode: UInt32(info.st_mode), changed: info.st_ctim.tv_sec, changedNanoseconds: info.st_ctim.tv_nsec)
        }
    }

    struct Prepared {
        /// The commit the merge started from (this machine's, with what changed here).
        var head: String?
        var result: String
        var changes: [Change]
    }

    enum Outcome {
        /// Everything the remotes bring is in HEAD already.
        case nothing
        case prepared(Prepared)
        /// A file the merge replaces was changed here after the snapshot: take a new one.
        case changedHere
    }

    /// git's empty tree, the "before" of a first commit.
    static let emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

    static func incomingDirectory(_ git: Git) -> String { git.gitDirectory + "/recnotes/incoming" }
    static func mergeIndex(_ git: Git) -> String { git.gitDirectory + "/recnotes/merge-index" }
    /// Where the merge drivers append what they resolved (`sync merge-driver`)...
    static func pendingReport(_ git: Git) -> String { git.gitDirectory + "/recnotes/merge-report.jsonl" }
    /// ...and where that goes once HEAD holds the merge, for `SyncRun.takeConflicts`.
    static func installedReport(_ git: Git) -> String { git.gitDirectory + "/recnotes/merge-conflicts.jsonl" }

    /// Merges `tips` into `head` without the store lock. `storeLink` is the snapshot's link to
    /// store.json (`SyncRun.snapshot`), whose content is `head`'s store.json.
    static func prepare(
        _ git: Git, head: String?, tips: [(remote: String, tip: String)], storeLink: String?
    ) throws -> Outcome {
        discard(git)
        var ours = head
        for (remote, tip) in tips {
            guard let current = ours else {
                ours = tip
                continue
            }
            if try isAncestor(git, tip, of: current) { continue }
            if try isAncestor(git, current, of: tip) {
                ours = tip  // a fast-forward
                continue
            }
            ours = try merge(git, ours: current, theirs: tip, remote: remote)
        }
        guard let result = ours, result != head else { return .nothing }

        // What changes between the two commits: path and whether the result has it.
        let diff = try git.require(
            ["diff-tree", "-r", "-z", "--no-renames", head ?? emptyTree, result], what: "sync"
        ).output.split(separator: "\0", omittingEmptySubsequences: false)
        var paths: [(path: String, before: Bool, after: Bool)] = []
        var index = 0
        while index + 1 < diff.count {
            let fields = diff[index].split(separator: " ")
            if fields.count >= 5 {
                paths.append((String(diff[index + 1]), fields[0] != ":000000", fields[1] != "000000"))
            }
            index += 2
        }
        // No path at all when the result has this machine's tree (what came in was here
        // already, or lost every conflict): HEAD moves all the same, or the push is refused.

        // The index that goes with the result: git's (which is `head`'s), moved on to the
        // result; what does not change keeps its stat data, so git need not read it again.
        let indexFile = mergeIndex(git)
        try? FileSystem.remove(indexFile + ".lock")
        if let bytes = try FileSystem.read(git.gitDirectory + "/index") {
            try FileSystem.writeAtomically(bytes, to: indexFile, durable: false)
        } else {
            try? FileSystem.remove(indexFile)
        }
        let merged = Git(directory: git.directory, indexFile: indexFile)
        // -i: the work tree is not looked at (it is not what this index describes yet).
        try merged.require(["read-tree"] + (head.map { ["-m", "-i", $0] } ?? []) + [result], what: "sync")

        // The files as a checkout writes them (attributes, filters, symbolic links), beside
        // the store and on its file system, so that installing them is a rename.
        let incoming = incomingDirectory(git)
        try FileSystem.makeDirectories(incoming)
        let written = paths.filter(\.after).map(\.path)
        for batch in batches(written) {
            try merged.require(
                ["--literal-pathspecs", "checkout-index", "-f", "--prefix=\(incoming)/", "--"] + batch, what: "sync")
        }
        // What renames over store.json is on the disk first, as every command's write is.
        if written.contains("store.json") { try FileSystem.syncFile(incoming + "/store.json") }
        for path in written where path.contains("/") {
            try FileSystem.makeDirectories(git.directory + "/" + FileSystem.parentDirectory(of: path))
        }

        // The state of each file now, before it is checked: a change after this is caught
        // under the lock, a change before it by the checks.
        var changes = paths.map { entry in
            Change(
                path: entry.path, incoming: entry.after ? incoming + "/" + entry.path : nil,
                found: FileState.of(git.directory + "/" + entry.path))
        }
        // Each file must be what the merge started from, or what it ends with (a killed
        // sync may have put some in place); anything else is a change here, for the next
        // snapshot. store.json is the snapshot's own inode (content compared, it is 10 MB).
        let asBefore = try unchanged(git, paths.filter { $0.before && $0.path != "store.json" }.map(\.path))
        var suspect: [Change] = []
        for change in changes {
            let entry = paths.first { $0.path == change.path }!
            if change.path == "store.json" {
                let link = storeLink.flatMap(FileState.of)
                if entry.before ? (link != nil && change.found?.inode == link?.inode) : change.found == nil {
                    continue
                }
            } else if entry.before ? asBefore.contains(change.path) : change.found == nil {
                continue
            }
            suspect.append(change)
        }
        if !suspect.isEmpty {
            let asAfter = try unchanged(merged, suspect.filter { $0.incoming != nil }.map(\.path))
            let changedHere = suspect.contains {
                $0.incoming == nil ? $0.found != nil : !asAfter.contains($0.path)
            }
            if changedHere {
                discard(git)
                return .changedHere
            }
        }
        changes.sort { order($0) < order($1) }
        return .prepared(Prepared(head: head, result: result, changes: changes))
    }

    /// The order of `install`: new and changed files, store.json, then what is removed (so
    /// that store.json never names a file that is not there yet, or no longer).
    static func order(_ change: Change) -> Int {
        change.incoming == nil ? 2 : change.path == "store.json" ? 1 : 0
    }

    /// Puts a prepared merge in place; call with the store lock held. False, with nothing
    /// changed, when a file it replaces is not as it was when prepared.
    static func install(_ prepared: Prepared, _ git: Git) throws -> Bool {
        for change in prepared.changes where FileState.of(git.directory + "/" + change.path) != change.found {
            return false
        }
        for change in prepared.changes {
            let target = git.directory + "/" + change.path
            if let incoming = change.incoming {
                guard rename(incoming, target) == 0 else {
                    throw RecError.failure("sync", "\(target): cannot replace: \(Errno.current)")
                }
            } else {
                try FileSystem.remove(target)
            }
        }
        guard rename(mergeIndex(git), git.gitDirectory + "/index") == 0 else {
            throw RecError.failure("sync", "\(git.gitDirectory)/index: cannot replace: \(Errno.current)")
        }
        // Moved only from the commit the merge started from: a git the user ran meanwhile
        // is not overwritten (what was put in place is then committed by the next sync).
        try git.require(
            ["update-ref", "-m", "recnotes sync: merge", "HEAD", prepared.result, prepared.head ?? ""], what: "sync")
        if FileSystem.exists(pendingReport(git)) {
            _ = rename(pendingReport(git), installedReport(git))
        }
        return true
    }

    /// Removes what a prepared merge left (the files not installed, its index and report).
    static func discard(_ git: Git) {
        removeTree(incomingDirectory(git))
        try? FileSystem.remove(mergeIndex(git))
        try? FileSystem.remove(pendingReport(git))
    }

    /// One merge of two commits, without the work tree: `git merge-tree` (and the drivers it
    /// runs) makes the tree, `commit-tree` the commit. A driver's refusal (a newer store
    /// version, garbage) is one line naming the remote.
    static func merge(_ git: Git, ours: String, theirs: String, remote: String) throws -> String {
        // The drivers find the two commits as under `git merge` (`TranscriptMerge.mergeIndex`).
        var merging = git
        merging.environment = ["GITHEAD_\(theirs)=\(remote)", "\(TranscriptMerge.oursCommitVariable)=\(ours)"]
        let merged = try merging.capture([
            "merge-tree", "--write-tree", "--allow-unrelated-histories", "--no-messages", ours, theirs,
        ])
        let tree = merged.output.split(separator: "\n").first.map(String.init) ?? ""
        guard merged.succeeded, tree.count >= 40 else {
            let said = merged.errors.split(separator: "\n").last { $0.hasPrefix("recnotes: ") }
            let reason = said.map { String($0.dropFirst("recnotes: ".count)) } ?? merged.reason
            throw RecError.failure("sync", "\(remote): cannot merge: \(reason); nothing was changed here")
        }
        // A recording the merge kept whose link one side deleted gets its link back.
        let linked = try AudioLinks.restored(git, tree: tree, sources: [ours, theirs])
        return try git.require(
            ["commit-tree", linked, "-p", ours, "-p", theirs, "-m", "recnotes sync: merge \(remote)"], what: "sync"
        ).output.trimmed
    }

    /// Of `paths`, those whose file is what `git`'s index holds (`diff-files`: stat data,
    /// and the content where that cannot tell).
    static func unchanged(_ git: Git, _ paths: [String]) throws -> Set<String> {
        var differing = Set<String>()
        for batch in batches(paths) {
            let listed = try git.require(
                ["--literal-pathspecs", "diff-files", "--name-only", "-z", "--"] + batch, what: "sync")
            differing.formUnion(listed.output.split(separator: "\0").map(String.init))
        }
        return Set(paths).subtracting(differing)
    }

    static func isAncestor(_ git: Git, _ commit: String, of other: String) throws -> Bool {
        try git.capture(["merge-base", "--is-ancestor", commit, other]).succeeded
    }

    /// Batches that keep each command line well under ARG_MAX.
    static func batches(_ paths: [String]) -> [[String]] {
        stride(from: 0, to: paths.count, by: 500).map { Array(paths[$0..<min($0 + 500, paths.count)]) }
    }

    /// `rm -rf` of a directory recnotes made (no symbolic link is followed).
    static func removeTree(_ path: String) {
        for name in FileSystem.entries(of: path) {
            let child = path + "/" + name
            var info = stat()
            guard lstat(child, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR { removeTree(child) } else { unlink(child) }
        }
        rmdir(path)
    }

    /// For tests: with `RECNOTES_SYNC_PAUSE` naming a file, the first prepared merge makes
    /// it and waits (up to a minute) for it to go before taking the lock to install, so a
    /// test can change the store in between; with `RECNOTES_SYNC_PAUSE_EVERY=1` too, every
    /// merge prepared without the store lock held does.
    static func pauseForTests() {
        guard !pausedOnce || Environment.value("RECNOTES_SYNC_PAUSE_EVERY") == "1" else { return }
        if pause(named: "RECNOTES_SYNC_PAUSE") { pausedOnce = true }
    }

    /// Makes the file the variable `name` names, and waits (up to a minute) for it to go;
    /// false when the variable is not set.
    static func pause(named name: String) -> Bool {
        guard let path = Environment.value(name), !path.isEmpty else { return false }
        guard (try? FileSystem.writeAtomically([], to: path, durable: false)) != nil else { return true }
        let deadline = MonotonicClock.now() + 60
        while FileSystem.exists(path) && MonotonicClock.now() < deadline { usleep(10_000) }
        return true
    }

    nonisolated(unsafe) static var pausedOnce = false
}

import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `recnotes sync [REMOTE…]`: commit here, fetch, merge (recnotes' merge drivers, through
/// `git merge-tree`: `SyncReceive`), push, then move audio both ways with git-annex.
///
/// What it keeps true:
/// - the store lock is held only while what changed here is taken for the commit (`snapshot`)
///   and while a merge made outside the work tree is renamed into place (`SyncReceive.install`),
///   never while the network is used or a merge is made, so other commands never wait on a
///   remote, and a change a command makes meanwhile is merged, never overwritten;
/// - two syncs of one store never interleave: the second refuses in one line
///   (`RepositoryLock`); a hub on this machine is locked the same way, waited for;
/// - a sync killed at any moment leaves what the next one repairs and completes: the lock
///   files of a killed git, here or in a hub on this machine (`RepositoryLock`), a merge
///   left half done, a store.json git was writing;
/// - audio of a recording still being made never travels: only files of recordings that
///   store.json holds are given to git-annex, and a recording enters store.json when it stops.
package enum SyncRun {
    package typealias Conflict = ReportedConflict

    package struct Transfers: Equatable, Sendable {
        package var count = 0
        package var bytes: Int64 = 0
        package var failed = 0
        /// Why files failed, in git-annex's words, each reason once.
        package var reasons: [String] = []
    }

    /// A remote this sync could not fetch from or push to, and why: the others are synced
    /// all the same, and the next sync tries it again.
    package struct Unreached: Equatable, Sendable {
        package var remote: String
        package var reason: String
    }

    package struct Report: Sendable {
        /// The remotes synced with (those reached).
        package var remotes: [String] = []
        package var unreached: [Unreached] = []
        package var committed = false
        package var received = 0
        package var sent = 0
        package var audioIn = Transfers()
        package var audioOut = Transfers()
        package var conflicts: [Conflict] = []
        /// How long the store lock was held, in milliseconds (bench/sync.sh reads it).
        package var lockMilliseconds = 0.0
        package var content = true

        package var changedAnything: Bool {
            received > 0 || sent > 0 || audioIn.count > 0 || audioOut.count > 0 || !conflicts.isEmpty
        }

        /// What the history entry says: `sync with hub: 2 in, 1 out, audio 3 in, 1 conflict`.
        package var change: String {
            var parts = ["\(received) in", "\(sent) out"]
            if audioIn.count > 0 { parts.append("audio \(audioIn.count) in") }
            if audioOut.count > 0 { parts.append("audio \(audioOut.count) out") }
            if !conflicts.isEmpty {
                parts.append("\(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s")")
            }
            return "sync with \(remotes.joined(separator: ", ")): " + parts.joined(separator: ", ")
        }
    }

    /// How many times a sync makes its merge without the store lock while a command changed
    /// a file it replaces (`SyncReceive`); the last attempt holds the lock from the snapshot to
    /// the install, so that a library that keeps changing is still merged: what it changes
    /// meanwhile waits a moment, and the next sync takes it.
    static let maximumAttempts = 3

    /// The journal's summary of a sync entry, which `undo` refuses to take back.
    package static let journalSummary = "recnotes sync"

    package static func run(
        _ location: StoreLocation, remotes requested: [String], content: Bool,
        executable: String = DetachedProcess.currentExecutable, observer: TransferObserver? = nil
    ) throws -> Report {
        let git = try SyncRemotes.requireSetUp(location, command: "sync")
        let what = "sync"
        let known = try SyncRemotes.list(git)
        for name in requested where !known.contains(where: { $0.name == name }) {
            throw RecError.failure(what, "no remote named '\(name)' (see 'recnotes sync remote list')")
        }
        let requestedOrAll = requested.isEmpty ? known.map(\.name) : requested
        guard !requestedOrAll.isEmpty else {
            throw RecError.failure(what, "no remote to sync with; add one with 'recnotes sync remote add NAME URL'")
        }
        // Two syncs of one store never interleave: the second refuses at once. What a killed
        // git left here (its lock files) goes as the lock is taken.
        guard let repositoryLock = try RepositoryLock.attempt(gitDirectory: git.gitDirectory) else {
            throw RecError.failure(what, "another sync of this store is running; try again when it has finished")
        }
        // A hub on this machine is locked too, waiting for another machine's sync to finish
        // with it, in one order (by path) so that two syncs never wait on each other.
        let hubLocks = requestedOrAll.compactMap { remote in
            known.first { $0.name == remote }.flatMap(localGitDirectory)
        }
        .sorted().compactMap(RepositoryLock.waiting(gitDirectory:))
        defer { withExtendedLifetime((repositoryLock, hubLocks)) {} }

        var report = Report()
        report.content = content
        try recover(git, location: location)
        try SyncSetup.writeDriverConfig(git, executable: executable)
        _ = try SyncSetup.writeFiles(location)
        let branch = try currentBranch(git)

        // A remote that cannot be reached (a USB disk unplugged, a host down) is named in the
        // report; the sync goes on with the others, and commits here whatever happens.
        var remotes: [String] = []
        for remote in requestedOrAll {
            let fetched = try git.capture(["fetch", "-q", remote])
            if fetched.succeeded {
                remotes.append(remote)
            } else {
                let url = known.first { $0.name == remote }?.url ?? ""
                report.unreached.append(Unreached(remote: remote, reason: "cannot reach \(url): \(fetched.reason)"))
            }
        }
        report.remotes = remotes
        // Before anything here changes: a store.json this recnotes cannot read would arrive
        // by a fast-forward, which runs no merge driver to refuse it.
        let refs = try Refs.read(git, branch: branch)
        try refuseNewerStore(git, remotes: remotes, branch: branch, refs: refs)

        // New audio is hashed into the annex before the lock: a saved recording's file never
        // changes, so this needs no lock, and it is the long part of a first sync.
        try annexNewAudio(git, location: location)

        var theirTips: [String] = []
        var unmerged: [(remote: String, tip: String)] = []
        for (remote, ref) in tipRefs(remotes: remotes, branch: branch) {
            guard let tip = refs[ref] else { continue }
            if remote != peerPush { theirTips.append(tip) }
            // Merged into HEAD now, merged into HEAD after this machine's commit too.
            if try !isMerged(git, tip, head: refs["HEAD"]) { unmerged.append((remote, tip)) }
        }
        // The store lock is held twice, briefly: while what changed here is taken into
        // git's object store (`snapshot`; the commit is built from it after the lock is let
        // go), and, when the remotes bring something, while the merge, made meanwhile outside
        // the work tree (`SyncReceive.prepare`), is put in place (`SyncReceive.install`). A
        // file a command changed in between is never overwritten: the sync starts again from
        // a new snapshot, and the last time holds the lock from the snapshot to the install.
        var before: String?
        var lockSeconds = 0.0
        var finished = false
        for attempt in 1...maximumAttempts where !finished {
            // The last attempt holds the store lock throughout; its steps then do not take it
            // again.
            let holdsLock = attempt == maximumAttempts
            let (start, heldBefore) = (MonotonicClock.now(), lockSeconds)
            finished = try FileLock.withLock(location.storeLockFile, if: holdsLock) {
                try receive(
                    git, location: location, unmerged: unmerged, lockHeld: holdsLock, report: &report,
                    before: &before, lockSeconds: &lockSeconds)
            }
            if holdsLock { lockSeconds = heldBefore + MonotonicClock.now() - start }
        }
        guard finished else {
            // Only a file changed behind the lock (by hand, or a git the user ran) gets here.
            throw RecError.failure(
                what,
                "a file of the store changed while the merge was installed; what came in is not merged yet: sync again")
        }
        report.lockMilliseconds = lockSeconds * 1000
        report.conflicts = takeConflicts(SyncReceive.installedReport(git))
        let after = try revision(git, "HEAD")
        if before != after { report.received = changedItems(git, from: before, to: after).count }
        var sent = Set<ItemID>()
        for tip in theirTips where tip != after { sent.formUnion(changedItems(git, from: tip, to: after)) }
        if theirTips.isEmpty, after != nil { sent.formUnion(changedItems(git, from: nil, to: after)) }
        report.sent = sent.count

        // The remotes' git-annex branches, merged into ours before ours is pushed.
        // Skipped when every one of them is ours already (a sync with nothing to do): it is
        // a git-annex process, and the longest step of such a sync.
        let annexBranches =
            remotes.flatMap { ["refs/remotes/\($0)/git-annex", "refs/remotes/\($0)/synced/git-annex"] }
            + ["refs/heads/synced/git-annex"]
        if annexBranches.contains(where: { refs[$0].map { $0 != refs["refs/heads/git-annex"] } ?? false }) {
            try git.require(["annex", "merge", "-q"], what: what)
        }
        let pushed = try push(git, remotes: &remotes, branch: branch, known: known, report: &report)
        // In the history as soon as it is pushed, so that a sync killed while audio moves
        // still says what it sent; said again below once the audio has moved.
        let journal = Journal(location: location)
        let entry = report.changedAnything ? journal.recordSync(summary: journalSummary, change: report.change) : nil
        // For tests: a kill from here on leaves the push in the history.
        _ = SyncReceive.pause(named: "RECNOTES_SYNC_PAUSE_PUSHED")
        if content {
            // A remote whose transfers all succeeded when this library and its location log
            // were as they are now has nothing to move: git-annex is not asked again.
            let settled = TransfersSettled(git)
            var state = "\(pushed["HEAD"] ?? "-") \(pushed["refs/heads/git-annex"] ?? "-")"
            var completed: [String] = []
            let settledNow = settled.remotes(at: state)
            // What `drop` took away stays away until `get` asks for it.
            let dropped = try DroppedHere.exclusions(git)
            for remote in remotes {
                // Audio that came from a remote before this one may have to go to this one.
                let movedBefore = report.audioIn.count + report.audioOut.count > 0
                if !movedBefore && settledNow.contains(remote) { continue }
                let got = try transfer(
                    git, ["get", "--from", remote] + dropped,
                    plan: ["--not", "--in", "here", "--in", remote] + dropped,
                    progress: TransferProgress(direction: .receiving, remote: remote), observer: observer)
                // What the location log says the remote has is not sent again (copy --to
                // would check it, and report it as copied).
                let copied = try transfer(
                    git, ["copy", "--to", remote, "--not", "--in", remote],
                    plan: ["--in", "here", "--not", "--in", remote],
                    progress: TransferProgress(direction: .sending, remote: remote), observer: observer)
                report.audioIn.add(got)
                report.audioOut.add(copied)
                if got.failed + copied.failed == 0 { completed.append(remote) }
            }
            // Where the audio now is (git-annex's location log) travels too.
            if report.audioIn.count + report.audioOut.count > 0 {
                let moved = try push(git, remotes: &remotes, branch: branch, known: known, report: &report)
                state = "\(moved["HEAD"] ?? "-") \(moved["refs/heads/git-annex"] ?? "-")"
            }
            settled.record(completed + settled.remotes(at: state).filter { !completed.contains($0) }, at: state)
        }
        if let entry, report.audioIn.count + report.audioOut.count > 0 {
            journal.amendSync(entry, change: report.change)
        } else if entry == nil, report.changedAnything {
            journal.recordSync(summary: journalSummary, change: report.change)
        }
        return report
    }

    /// One attempt at taking what changed here and merging what came in: true when it is
    /// done, false when a command changed a file the merge replaces before it was installed.
    static func receive(
        _ git: Git, location: StoreLocation, unmerged: [(remote: String, tip: String)], lockHeld: Bool,
        report: inout Report, before: inout String?, lockSeconds: inout Double
    ) throws -> Bool {
        var start = MonotonicClock.now()
        let staged = try FileLock.withLock(location.storeLockFile, if: !lockHeld) { try snapshot(git) }
        lockSeconds += MonotonicClock.now() - start
        // The link stays until the merge is installed: it is how `install` knows store.json
        // is still the one committed.
        defer { if let link = staged.storeFile { try? FileSystem.remove(link) } }
        if try commit(staged, git, location: location) { report.committed = true }
        before = try revision(git, "HEAD")
        guard !unmerged.isEmpty else { return true }
        let outcome = try SyncReceive.prepare(git, head: before, tips: unmerged, storeLink: staged.storeFile)
        switch outcome {
        case .nothing:
            return true
        case .changedHere:
            return false
        case .prepared(let prepared):
            if !lockHeld { SyncReceive.pauseForTests() }
            start = MonotonicClock.now()
            let installed = try FileLock.withLock(location.storeLockFile, if: !lockHeld) {
                try SyncReceive.install(prepared, git)
            }
            lockSeconds += MonotonicClock.now() - start
            SyncReceive.discard(git)
            return installed
        }
    }

    /// What a killed sync can leave, repaired (its git's lock files went when the
    /// `RepositoryLock` was taken): a merge left half done by a `git merge` (the user's, or an
    /// older recnotes'), a store.json cut short. A merge sync prepared and did not install
    /// is thrown away by the next `SyncReceive.prepare`.
    static func recover(_ git: Git, location: StoreLocation) throws {
        // Only a killed git leaves a merge or a torn store.json, and no git runs here now:
        // checked without the store lock (a command's write is a rename: the file read is
        // whole, old or new), which is taken only to repair.
        let mergeLeft = FileSystem.exists(git.gitDirectory + "/MERGE_HEAD")
        if mergeLeft || !storeFileIsValid(location) {
            try repair(git, location: location)
        }
    }

    static func repair(_ git: Git, location: StoreLocation) throws {
        try FileLock.withLock(location.storeLockFile) {
            if FileSystem.exists(git.gitDirectory + "/MERGE_HEAD") {
                _ = try git.capture(["merge", "--abort"])
            }
            try restoreStoreFile(git, location)
        }
    }

    static func storeFileIsValid(_ location: StoreLocation) -> Bool {
        guard let bytes = try? FileSystem.read(location.storeFile) else { return false }
        return (try? bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0) }) != nil
    }

    /// git writes a merged or checked-out file in place (unlink, create, write): a kill in the
    /// middle leaves store.json missing or torn. The last commit has the whole one (what was
    /// here was committed before the merge), written back atomically. Call with the store lock.
    /// Returns whether it wrote.
    @discardableResult
    static func restoreStoreFile(_ git: Git, _ location: StoreLocation) throws -> Bool {
        guard !storeFileIsValid(location) else { return false }
        let committed = try git.capture(["show", "HEAD:store.json"])
        guard committed.succeeded else { return false }
        try FileSystem.writeAtomically(Array(committed.output.utf8), to: location.storeFile)
        return true
    }

    /// Whether store.json is there and ends as a whole document does (`}` and white space):
    /// its last bytes only, not a decoding.
    static func storeFileLooksWhole(_ location: StoreLocation) -> Bool {
        FileSystem.withOpened(location.storeFile, O_RDONLY) { fd -> Bool in
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_size > 0 else { return false }
            var tail = [UInt8](repeating: 0, count: 64)
            let start = max(0, Int(info.st_size) - tail.count)
            let n = System.retrying { pread(fd, &tail, tail.count, off_t(start)) }
            guard n > 0 else { return false }
            let last = tail[0..<n].last { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
            return last == UInt8(ascii: "}")
        } ?? false
    }

    /// For every command, before it opens the store: a store.json that a killed sync's git
    /// left missing or torn is restored from the last commit, so that a kill -9 at any moment
    /// of a sync leaves a store every command opens. Nothing happens outside a sync
    /// repository, or while a sync runs (its git may be writing the file right now).
    package static func restoreAfterKilledSync(_ location: StoreLocation) {
        let gitDirectory = location.directory + "/.git"
        // Cheap first (every command passes here): git's torn write is a file cut short.
        guard FileSystem.exists(gitDirectory + "/recnotes"), !storeFileLooksWhole(location),
            let syncLock = try? FileLock(attempting: gitDirectory + "/recnotes/sync.lock")
        else { return }
        defer { withExtendedLifetime(syncLock) {} }
        _ = try? FileLock.withLock(location.storeLockFile) {
            try restoreStoreFile(Git(directory: location.directory), location)
        }
    }

    /// The git directory of a remote that is a directory on this machine; nil for ssh.
    static func localGitDirectory(_ remote: SyncRemotes.Remote) -> String? {
        guard case .path(let path) = SyncRemotes.kind(of: remote.url), FileSystem.exists(path) else { return nil }
        return FileSystem.exists(path + "/.git") ? path + "/.git" : path
    }

    /// Every ref of the repository and what it points at, read by one `for-each-ref`
    /// (a sync compares a dozen of them); `HEAD` is the current branch's.
    struct Refs {
        var objects: [String: String] = [:]
        var branch: String

        static func read(_ git: Git, branch: String) throws -> Refs {
            var refs = Refs(branch: branch)
            let listed = try git.require(["for-each-ref", "--format=%(objectname) %(refname)"], what: "sync")
            for line in listed.lines {
                guard let space = line.firstIndex(of: " ") else { continue }
                refs.objects[String(line[line.index(after: space)...])] = String(line[..<space])
            }
            return refs
        }

        subscript(_ ref: String) -> String? { objects[ref == "HEAD" ? "refs/heads/" + branch : ref] }
    }

    static func revision(_ git: Git, _ ref: String) throws -> String? {
        let result = try git.capture(["rev-parse", "-q", "--verify", ref + "^{commit}"])
        return result.succeeded ? result.output.trimmed : nil
    }

    /// Recordings' audio files not yet in the annex: regular files (an annexed one is a
    /// symlink) named by a recording store.json holds, in the items or the trash.
    static func annexNewAudio(_ git: Git, location: StoreLocation) throws {
        var candidates: [String] = []
        for name in FileSystem.entries(of: location.audioDirectory) where !name.hasPrefix(".") {
            var info = stat()
            if lstat(location.audioPath(name), &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                candidates.append(name)
            }
        }
        guard !candidates.isEmpty else { return }
        guard let saved = try AudioLinks.recordedFiles(inStoreFile: location.storeFile) else { return }
        for batch in SyncReceive.batches(candidates.filter(saved.contains).map { "audio/" + $0 }) {
            try git.require(["annex", "add", "--quiet", "--"] + batch, what: "sync")
        }
    }

    /// What `snapshot` took, for `commit`: a copy of git's index with what changed here
    /// staged, and store.json as it was.
    struct Staged {
        /// The repository, with the copy of git's index (`recnotes/sync-index`).
        var git: Git
        /// A hard link to store.json (a copy where the file system has none); nil without one.
        var storeFile: String?
    }

    /// Takes what changed here, for `commit`: called with the store lock held, so that
    /// store.json, transcripts/ and the audio removed agree with one another. store.json
    /// (10 MB at 10,000 items: its blob takes git a few hundred ms to hash, filter and
    /// compress) is only linked: every command replaces it by a rename, so the link keeps
    /// this version. The rest is small or cheap: `git add` stages it in a copy of git's index.
    static func snapshot(_ git: Git) throws -> Staged {
        let index = git.gitDirectory + "/recnotes/sync-index"
        // A git killed while writing it leaves its lock file; nothing else writes this index.
        try? FileSystem.remove(index + ".lock")
        if let bytes = try FileSystem.read(git.gitDirectory + "/index") {
            try FileSystem.writeAtomically(bytes, to: index, durable: false)
        } else {
            try? FileSystem.remove(index)  // no commit yet: the first starts from nothing
        }
        let staging = Git(directory: git.directory, indexFile: index)
        var storeFile: String?
        let store = git.directory + "/store.json"
        if FileSystem.exists(store) {
            let linked = git.gitDirectory + "/recnotes/sync-store.json"
            try? FileSystem.remove(linked)
            if link(store, linked) != 0 {
                guard let bytes = try FileSystem.read(store) else { throw RecError.failure("sync", "\(store): gone") }
                try FileSystem.writeAtomically(bytes, to: linked, durable: false)
            }
            storeFile = linked
        }
        // Deleted or changed audio, the other documents and transcripts; never a new audio
        // file (annexNewAudio chose those and staged them in git's index, copied above).
        let paths = [".gitignore", ".gitattributes", "transcripts", Vocabulary.fileName].filter {
            FileSystem.exists(git.directory + "/" + $0)
        }
        if !paths.isEmpty { try staging.require(["add", "-A", "--"] + paths, what: "sync") }
        if FileSystem.exists(git.directory + "/audio") {
            try staging.require(["add", "-u", "--", "audio"], what: "sync")
            try stageUntrackedLinks(staging, storeFile: storeFile)
        }
        return Staged(git: staging, storeFile: storeFile)
    }

    /// Stages the annexed links (symlinks) in audio/ that git does not track and store.json
    /// names. A sync killed between putting a merge's new links in place and renaming its
    /// index leaves such a link: `add -u` passes over it, as `annexNewAudio` does (it takes
    /// regular files), and a later merge that differs from the killed one would never bring
    /// it into a commit, so every other machine would lose the recording's audio.
    static func stageUntrackedLinks(_ staging: Git, storeFile: String?) throws {
        let untracked = try staging.require(
            ["ls-files", "-z", "--others", "--exclude-standard", "--", "audio"], what: "sync"
        ).output.split(separator: "\0").map(String.init)
        let links = untracked.filter { path in
            var info = stat()
            return lstat(staging.directory + "/" + path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
        }
        guard !links.isEmpty, let storeFile, let named = try AudioLinks.recordedFiles(inStoreFile: storeFile) else {
            return
        }
        for batch in SyncReceive.batches(links.filter { named.contains(FileSystem.baseName(of: $0)) }) {
            try staging.require(["add", "--"] + batch, what: "sync")
        }
    }

    /// Commits what `snapshot` took; false when nothing had changed. Needs no store lock:
    /// only git objects, HEAD and git's index are written, which no other recnotes command
    /// touches, and a second sync cannot run (`RepositoryLock`). A change a command makes to
    /// the store after the snapshot stays in the work tree: store.json's index entry is
    /// staged without the file's times (`--cacheinfo`), so git compares its content, and a
    /// transcript is newer than the index says. The next sync's snapshot takes it, and a
    /// merge in this one commits it first (`run`).
    static func commit(_ staged: Staged, _ git: Git, location: StoreLocation) throws -> Bool {
        if let storeFile = staged.storeFile {
            let blob = try storeBlob(git, storeFile)
            try staged.git.require(
                ["update-index", "--add", "--cacheinfo", "100644,\(blob),store.json"], what: "sync")
        }
        let tree = try staged.git.require(["write-tree"], what: "sync").output.trimmed
        let head = try revision(git, "HEAD")
        var committed = false
        let changed =
            try head.map { try git.require(["rev-parse", "\($0)^{tree}"], what: "sync").output.trimmed != tree }
            // No commit yet: one when anything is staged.
            ?? !staged.git.require(["ls-files"], what: "sync").output.isEmpty
        if changed {
            let message = commitMessage(machine: SyncSetup.machineName(git) ?? "this machine", location: location)
            let parents = head.map { ["-p", $0] } ?? []
            let commit = try git.require(["commit-tree", tree] + parents + ["-m", message], what: "sync")
                .output.trimmed
            // Moved only from where it was when read (no commit yet: from nowhere).
            try git.require(
                ["update-ref", "-m", "commit: " + message, "HEAD", commit, head ?? ""], what: "sync")
            committed = true
        }
        // git's index becomes the snapshot's, which matches HEAD now (git status and the merge
        // read it); a rename, so a kill leaves one whole index or the other.
        guard let index = staged.git.indexFile, FileSystem.exists(index) else { return committed }
        guard rename(index, git.gitDirectory + "/index") == 0 else {
            throw RecError.failure("sync", "\(git.gitDirectory)/index: cannot replace: \(Errno.current)")
        }
        return committed
    }

    /// What the commit of this machine's changes says, so that `git log` in the store reads
    /// as history does: `laptop: tags on /three: +work; rename /Work/one → /Work/uno (and 3
    /// more)`, from the journal's entries since the last sync.
    static func commitMessage(machine: String, location: StoreLocation) -> String {
        let entries = Journal(location: location).entries()
        let since = entries.lastIndex { $0.isSync }.map { entries.index(after: $0) } ?? entries.startIndex
        let changes = entries[since...].map { $0.change ?? $0.summary }
        guard !changes.isEmpty else { return "\(machine): changes made here" }
        let shown = changes.prefix(2).joined(separator: "; ")
        return changes.count > 2 ? "\(machine): \(shown) (and \(changes.count - 2) more)" : "\(machine): \(shown)"
    }

    /// The branch HEAD names, read from .git/HEAD (as git writes it: `ref: refs/heads/NAME`)
    /// without a process; git is asked only when it is written otherwise.
    static func currentBranch(_ git: Git) throws -> String {
        if let bytes = try? FileSystem.read(git.gitDirectory + "/HEAD") {
            let text = String(decoding: bytes, as: UTF8.self).trimmed
            if text.hasPrefix("ref: refs/heads/") { return String(text.dropFirst("ref: refs/heads/".count)) }
        }
        return try git.require(["symbolic-ref", "--short", "HEAD"], what: "sync").output.trimmed
    }

    /// The blob of store.json as `snapshot` linked it. Hashed (with attributes and filters as
    /// `git add store.json` applies them: 10 MB at 10,000 items, and git-annex's filter) only
    /// when the file is not the one hashed last time: every command replaces store.json by a
    /// rename, so the same inode, size and modification time is the same content.
    static func storeBlob(_ git: Git, _ storeFile: String) throws -> String {
        let remembered = git.gitDirectory + "/recnotes/store-blob"
        // The modification time, not the change time, which the snapshot's link moves.
        var info = stat()
        let identity =
            stat(storeFile, &info) == 0
            ? "\(info.st_dev) \(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec) \(info.st_mtim.tv_nsec)" : nil
        if let identity, let bytes = try? FileSystem.read(remembered) {
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            if lines.count == 2, lines[0] == identity, lines[1].count >= 40 { return String(lines[1]) }
        }
        let blob = try git.require(["hash-object", "-w", "--path=store.json", storeFile], what: "sync").output.trimmed
        if let identity {
            try? FileSystem.writeAtomically(Array("\(identity)\n\(blob)\n".utf8), to: remembered, durable: false)
        }
        return blob
    }

    /// Whether `tip` is in HEAD already.
    static func isMerged(_ git: Git, _ tip: String, head: String?) throws -> Bool {
        guard let head else { return false }
        if tip == head { return true }
        return try git.capture(["merge-base", "--is-ancestor", tip, head]).succeeded
    }

    /// Refuses, in one line and with nothing changed here, a remote branch whose store.json
    /// was written by a newer recnotes: merged (or fast-forwarded) it would leave a store this
    /// recnotes cannot open.
    static func refuseNewerStore(_ git: Git, remotes: [String], branch: String, refs: Refs) throws {
        let head = refs["HEAD"]
        for (remote, ref) in tipRefs(remotes: remotes, branch: branch) {
            // One merged already (the remote's other branch went on past it) brings nothing;
            // with nothing new, the tip is HEAD itself (no merge-base to run).
            guard let tip = refs[ref], tip != head, try !isMerged(git, tip, head: head) else { continue }
            let shown = try git.capture(["show", "\(ref):store.json"])
            guard shown.succeeded else { continue }
            let bytes = Array(shown.output.utf8)
            guard let version = bytes.withUnsafeBufferPointer(DocumentCodec.declaredVersion),
                version > Document.currentVersion
            else { continue }
            throw RecError.failure(
                "sync",
                "\(remote): its store.json is version \(version), newer than this recnotes understands (\(Document.currentVersion)); upgrade recnotes on this machine, then sync again; nothing was changed here"
            )
        }
    }

    /// What a push from a machine that has this store as its remote is called: its
    /// `synced/` branch here (a store with a work tree takes no push to its checked-out branch).
    static let peerPush = "a machine that pushed here"

    /// The branches that bring what other machines did: each remote's branch and its
    /// `synced/` branch, and this store's own `synced/` branch, where such a machine pushes.
    static func tipRefs(remotes: [String], branch: String) -> [(remote: String, ref: String)] {
        remotes.flatMap { remote in
            [("refs/remotes/\(remote)/\(branch)"), ("refs/remotes/\(remote)/synced/\(branch)")].map { (remote, $0) }
        } + [(peerPush, "refs/heads/synced/\(branch)")]
    }

    /// Which remotes' transfers all succeeded, and at which state of this library (HEAD and
    /// the git-annex branch, after the transfers): `.git/recnotes/transfers-settled`, per
    /// machine. Any change to the library or to where audio is (here or on a remote, whose
    /// location log a fetch brings) is a new state, at which every remote is asked again.
    struct TransfersSettled {
        let path: String

        init(_ git: Git) { path = git.gitDirectory + "/recnotes/transfers-settled" }

        func remotes(at state: String) -> [String] {
            guard let bytes = try? FileSystem.read(path) else { return [] }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
            guard lines.first == state else { return [] }
            return Array(lines.dropFirst())
        }

        func record(_ remotes: [String], at state: String) {
            try? FileSystem.writeAtomically(
                Array(([state] + remotes).map { $0 + "\n" }.joined().utf8), to: path, durable: false)
        }
    }

    /// Pushes this branch and the git-annex branch to each remote whose copy is behind.
    /// The `synced/` branches are what git-annex sync pushes too: a remote with a work tree
    /// refuses a push to its checked-out branch, and merges `synced/` at its next sync.
    /// A remote that refuses the push or cannot be reached is taken out of `remotes` and
    /// named in the report. Returns this repository's refs as they were pushed.
    @discardableResult
    static func push(
        _ git: Git, remotes: inout [String], branch: String, known: [SyncRemotes.Remote], report: inout Report
    ) throws -> Refs {
        let refs = try Refs.read(git, branch: branch)
        let head = refs["HEAD"]
        let annex = refs["refs/heads/git-annex"]
        for remote in remotes {
            var refspecs: [String] = []
            var direct: [String] = []
            if let head {
                if refs["refs/remotes/\(remote)/synced/\(branch)"] != head {
                    refspecs.append("HEAD:refs/heads/synced/\(branch)")
                }
                if refs["refs/remotes/\(remote)/\(branch)"] != head {
                    direct.append("HEAD:refs/heads/\(branch)")
                }
            }
            if let annex {
                if refs["refs/remotes/\(remote)/synced/git-annex"] != annex {
                    refspecs.append("git-annex:refs/heads/synced/git-annex")
                }
                if refs["refs/remotes/\(remote)/git-annex"] != annex {
                    direct.append("git-annex:refs/heads/git-annex")
                }
            }
            if !refspecs.isEmpty {
                let pushed = try git.capture(["push", "-q", remote] + refspecs)
                guard pushed.succeeded else {
                    let url = known.first { $0.name == remote }?.url ?? ""
                    report.unreached.append(
                        Unreached(remote: remote, reason: "cannot push to \(url): \(pushed.reason)"))
                    continue
                }
            }
            // Refused by a remote with a work tree, or when another machine got there first:
            // the synced/ branches carry the change either way.
            if !direct.isEmpty { _ = try git.capture(["push", "-q", remote] + direct) }
        }
        let refused = Set(report.unreached.map(\.remote))
        remotes.removeAll { refused.contains($0) }
        report.remotes = remotes
        return refs
    }

    /// Runs a git-annex transfer (`AnnexTransfer`) and counts what moved.
    static func transfer(
        _ git: Git, _ command: [String], plan: [String], progress: TransferProgress, observer: TransferObserver?
    ) throws -> Transfers {
        let tally = try AnnexTransfer.run(
            git, command, plan: plan, what: "sync", progress: progress, observer: observer)
        return Transfers(count: tally.count, bytes: tally.bytes, failed: tally.failed.count, reasons: tally.reasons)
    }

    /// The conflicts the merge driver reported, read and then removed.
    static func takeConflicts(_ path: String) -> [Conflict] {
        guard let bytes = try? FileSystem.read(path) else { return [] }
        try? FileSystem.remove(path)
        return MergeReportCodec.decode(bytes)
    }

    /// Items added, changed or removed between two commits: in store.json's library or
    /// trash (an entry added or gone, `trash empty` included, counts for its items), or in
    /// their transcripts.
    static func changedItems(_ git: Git, from old: String?, to new: String?) -> Set<ItemID> {
        func items(_ rev: String?) -> (library: [ItemID: [UInt8]], trash: [String: [ItemID]]) {
            guard let rev, let shown = try? git.capture(["show", "\(rev):store.json"]), shown.succeeded else {
                return ([:], [:])
            }
            let bytes = Array(shown.output.utf8)
            return bytes.withUnsafeBufferPointer { buffer in
                guard let decoded = try? DocumentCodec.decodeVersioned(buffer, strict: false) else { return ([:], [:]) }
                var library: [ItemID: [UInt8]] = [:]
                for (id, range) in decoded.itemRanges { library[id] = Array(buffer[range]) }
                var trash: [String: [ItemID]] = [:]
                for entry in decoded.document.trash { trash["\(entry.id) \(entry.removed)"] = entry.items.map(\.id) }
                return (library, trash)
            }
        }
        let a = items(old)
        let b = items(new)
        var changed = Set<ItemID>()
        for (id, bytes) in b.library where a.library[id] != bytes && id != .root { changed.insert(id) }
        for id in a.library.keys where b.library[id] == nil && id != .root { changed.insert(id) }
        for (key, ids) in a.trash where b.trash[key] == nil { changed.formUnion(ids) }
        for (key, ids) in b.trash where a.trash[key] == nil { changed.formUnion(ids) }
        // transcripts/<uuid>.json and its index <uuid>.txt.
        let listed = try? git.capture(
            [
                "diff-tree", "-r", "-z", "--name-only", "--no-renames", old ?? SyncReceive.emptyTree,
                new ?? SyncReceive.emptyTree, "--", "transcripts",
            ])
        for path in listed?.output.split(separator: "\0") ?? [] {
            let name = FileSystem.baseName(of: String(path))
            if let id = ItemID(String(name.prefix { $0 != "." })) { changed.insert(id) }
        }
        return changed
    }
}

extension SyncRun.Transfers {
    mutating func add(_ other: SyncRun.Transfers) {
        count += other.count
        bytes += other.bytes
        failed += other.failed
        reasons += other.reasons.filter { !reasons.contains($0) }
    }
}

extension String {
    var trimmed: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}

extension SyncRun.Report {
    /// The summary `recnotes sync` prints: one line of counts, then each conflict named.
    package var lines: [String] {
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        let with = remotes.isEmpty ? "no remote reached" : "sync with \(remotes.joined(separator: ", "))"
        var head = "\(with): \(plural(received, "item")) received, \(sent) sent"
        if content {
            head +=
                "; audio \(audioIn.count) received (\(Format.size(audioIn.bytes))), \(audioOut.count) sent (\(Format.size(audioOut.bytes)))"
        } else {
            head += "; audio not moved (--no-content)"
        }
        var lines = [head]
        let failed = audioIn.failed + audioOut.failed
        if failed > 0 {
            // git-annex's first why (a full disk: how much more space it needs), else where to look.
            let reasons = audioIn.reasons + audioOut.reasons.filter { !audioIn.reasons.contains($0) }
            let why = reasons.first.map {
                ": " + $0 + (reasons.count > 1 ? " (and \(reasons.count - 1) other reasons)" : "")
            }
            lines.append("audio: \(plural(failed, "file")) could not be moved\(why ?? "; see 'git annex whereis'")")
        }
        for unreached in unreached {
            lines.append("not synced with \(unreached.remote): \(unreached.reason); the next sync tries again")
        }
        for c in conflicts {
            var line = "conflict (\(c.kind)) \(c.path)"
            if !c.kept.isEmpty { line += ": kept \(c.kept)" }
            if !c.other.isEmpty { line += ", other \(c.other)" }
            lines.append(line)
        }
        return lines
    }

    /// The one line a sync that could not reach a remote ends with (exit status 75), after
    /// its summary; nil when it reached them all.
    package var unreachedError: RecError? {
        guard !unreached.isEmpty else { return nil }
        let named = unreached.map { "\($0.remote) (\($0.reason))" }.joined(separator: "; ")
        let rest = remotes.isEmpty ? "no remote was synced" : "synced with \(remotes.joined(separator: ", "))"
        return RecError(.tryAgain, "sync", "not reached: \(named); \(rest); sync again later")
    }

    package var json: String {
        var w = JSONWriter()
        w.beginObject()
        w.field("remotes", remotes)
        w.field("unreached", unreached) { w, u in
            w.beginObject()
            w.field("remote", u.remote)
            w.field("reason", u.reason)
            w.endObject()
        }
        w.field("committed", committed)
        w.field("received", received)
        w.field("sent", sent)
        w.field("content", content)
        for (key, t): (StaticString, SyncRun.Transfers) in [("audioReceived", audioIn), ("audioSent", audioOut)] {
            w.key(key)
            w.beginObject()
            w.field("count", t.count)
            w.field("bytes", t.bytes)
            w.field("failed", t.failed)
            w.endObject()
        }
        w.field("conflicts", conflicts) { w, c in MergeReportCodec.write(c, to: &w) }
        w.field("lockMilliseconds", lockMilliseconds)
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

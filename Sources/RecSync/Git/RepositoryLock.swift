import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The lock recnotes' git work on one repository runs under: a sync, `get`, `drop`, adding
/// or removing a remote — and, for a hub that is a directory on this machine, a sync's push
/// and audio copies into it. It is `recnotes/sync.lock` in the repository's git directory.
///
/// flock(2) is let go by the kernel when its holder dies, kill -9 included; git's own lock
/// files (`index.lock`, `refs/…/main.lock`, …) stay behind when a git is killed, and every
/// later git then stops at "remove the file manually to continue". So whoever holds this
/// lock removes them: no other recnotes git can be running in that repository, and a git
/// lock file found then was left by a git that was killed.
package final class RepositoryLock {
    private let lock: FileLock
    /// The stale git lock files taken away when the lock was taken (relative paths).
    package private(set) var cleared: [String] = []

    private init(lock: FileLock) { self.lock = lock }

    /// Takes the lock without waiting: nil when another recnotes is at work in the repository.
    package static func attempt(gitDirectory: String) throws -> RepositoryLock? {
        try FileSystem.makeDirectories(gitDirectory + "/recnotes")
        guard let lock = try FileLock(attempting: gitDirectory + "/recnotes/sync.lock") else { return nil }
        let held = RepositoryLock(lock: lock)
        held.cleared = clearStaleGitLocks(gitDirectory)
        return held
    }

    /// Takes the lock, waiting for another recnotes to finish with the repository (a hub that
    /// two machines sync with one after the other). nil when the lock file cannot be made there
    /// (a hub on a read-only mount: nothing is written there either).
    package static func waiting(gitDirectory: String) -> RepositoryLock? {
        guard (try? FileSystem.makeDirectories(gitDirectory + "/recnotes")) != nil,
            let lock = try? FileLock(path: gitDirectory + "/recnotes/sync.lock")
        else { return nil }
        let held = RepositoryLock(lock: lock)
        held.cleared = clearStaleGitLocks(gitDirectory)
        return held
    }

    /// Takes the lock for a command that refuses to wait: one line when a sync is at work.
    package static func require(_ git: Git, what: String) throws -> RepositoryLock {
        guard let held = try attempt(gitDirectory: git.gitDirectory) else {
            throw RecError.failure(what, "a sync of this store is running; try again when it has finished")
        }
        return held
    }

    /// The lock files git leaves when killed: `*.lock` in the git directory itself (index,
    /// HEAD, ORIG_HEAD, packed-refs, config, shallow), under `refs/` at any depth, and
    /// git-annex's index of its branch. Returns what was removed, relative to `gitDirectory`.
    static func clearStaleGitLocks(_ gitDirectory: String) -> [String] {
        var stale = FileSystem.entries(of: gitDirectory).filter { $0.hasSuffix(".lock") }
        stale += lockFiles(under: "refs", in: gitDirectory)
        if FileSystem.exists(gitDirectory + "/annex/index.lock") { stale.append("annex/index.lock") }
        return stale.filter { (try? FileSystem.remove(gitDirectory + "/" + $0)) != nil }
    }

    private static func lockFiles(under relative: String, in root: String) -> [String] {
        var found: [String] = []
        for name in FileSystem.entries(of: root + "/" + relative) {
            let path = relative + "/" + name
            var info = stat()
            guard lstat(root + "/" + path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                found += lockFiles(under: path, in: root)
            } else if name.hasSuffix(".lock") {
                found.append(path)
            }
        }
        return found
    }
}

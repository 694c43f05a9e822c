#if canImport(Glibc)
    import Glibc
#endif

/// `FileSystem.writeAtomically` in the steps a caller takes one by one, to do its own work
/// while the disk waits: `write`, then `replace`, then `finish`, in order on one thread.
/// The two fsyncs run on a thread of their own, started by one step and waited for by the
/// next, so that what the caller does in between costs no time beside them:
/// - after `write`, while the data is fsynced: work that names the new file (`info`) but
///   writes nothing (what its caches will hold);
/// - after `replace`, while the directory is fsynced: work that needs the new file there
///   (its caches written, so that a reader meanwhile still finds the old file's valid) or
///   the old one gone (its pages freed), but not the rename durable;
/// - after `finish`: what needs the rename durable (the journal).
///
/// A write given up before `replace` (an error, or the last reference going) leaves the
/// old file as it was and its temporary file removed.
package final class AtomicWrite {
    package let path: String
    private let temporary: String
    private let durable: Bool
    private let replacing: Bool
    private let stamping: Bool
    private let followingWriteback: Bool
    /// The temporary file, open until `replace` closes it (and checks that close).
    private var fd: Int32
    private var syncing: JoinableThread?
    private var syncFailure: Errno?
    private var replaced = false

    /// The file as written (`fstat` before the rename, so that an edit made in place after it
    /// is never taken for it), once `write` has returned.
    package private(set) var info = stat()
    /// Whether its modification time was stamped (`FileSystem.stampModified`), with `stamping`.
    package private(set) var stamped = false

    /// Opens the temporary file beside `path`. Options as `FileSystem.writeAtomically`'s.
    package init(
        to path: String, durable: Bool = true, replacing: Bool = true, stamping: Bool = false,
        followingWriteback: Bool = false
    ) throws {
        self.path = path
        let temporary = "\(FileSystem.parentDirectory(of: path))/.\(FileSystem.baseName(of: path)).tmp-\(getpid())"
        self.temporary = temporary
        self.durable = durable
        self.replacing = replacing
        self.stamping = stamping
        self.followingWriteback = followingWriteback
        fd = System.retrying { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw RecError.failure(path, "cannot write: \(Errno.current)") }
    }

    deinit {
        syncing?.join()
        if fd >= 0 { close(fd) }
        if !replaced { unlink(temporary) }
    }

    /// The content, written by `body` into the temporary file's descriptor; then its time is
    /// stamped, it is taken (`info`), and its data starts for the disk (a durable write).
    package func write(_ body: (Int32) throws -> Void) throws {
        precondition(fd >= 0 && !replaced, "an atomic write was written after it was replaced")
        do {
            let follower = durable && followingWriteback ? FileSystem.WritebackFollower(fd) : nil
            defer { follower?.finish() }
            try body(fd)
        }
        if stamping { stamped = FileSystem.stampModified(fd) }
        // An fsync changes neither the size nor the time: the file is known before it.
        guard fstat(fd, &info) == 0 else { throw RecError.failure(path, "cannot write: \(Errno.current)") }
        if durable {
            let fd = fd
            startSyncing { fsync(fd) == 0 ? nil : Errno.current }
        }
    }

    /// Waits for the data to be on the disk, and puts the file in place of the old one (or
    /// where none is, without `replacing`); then the directory starts for the disk.
    package func replace() throws {
        waitForSync()
        if let syncFailure { throw RecError.failure(path, "cannot write: \(syncFailure)") }
        let closed = close(fd)
        fd = -1
        guard closed == 0 else { throw RecError.failure(path, "cannot write: \(Errno.current)") }
        if replacing {
            guard rename(temporary, path) == 0 else { throw RecError.failure(path, "cannot replace: \(Errno.current)") }
        } else {
            try FileSystem.place(temporary, at: path)
        }
        replaced = true
        if durable {
            let directory = FileSystem.parentDirectory(of: path)
            startSyncing {
                FileSystem.syncDirectory(directory)
                return nil
            }
        }
    }

    /// Waits for the directory to be on the disk: the new file is there after a crash.
    package func finish() { waitForSync() }

    /// `sync` on a thread of its own; here, when no thread can be started.
    private func startSyncing(_ sync: @escaping () -> Errno?) {
        let thread = try? JoinableThread { [self] in syncFailure = sync() }
        if let thread { syncing = thread } else { syncFailure = sync() }
    }

    private func waitForSync() {
        syncing?.join()
        syncing = nil
    }
}

import CRecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The few file operations the stores need, on raw file descriptors so that every failure
/// carries its errno and nothing is buffered behind our back.
package enum FileSystem {
    /// The whole file, or nil if it does not exist.
    package static func read(_ path: String) throws -> [UInt8]? {
        try read(path) { open(path, O_RDONLY | O_CLOEXEC) }
    }

    /// `read(_:)` of `name` in the directory open as `directory`: a lookup of one name
    /// instead of a whole path, for reading many files of one directory.
    package static func read(_ name: String, relativeTo directory: Int32) throws -> [UInt8]? {
        try read(name) { openat(directory, name, O_RDONLY | O_CLOEXEC) }
    }

    private static func read(_ path: String, opening: () -> Int32) throws -> [UInt8]? {
        let fd = System.retrying(opening)
        if fd < 0 {
            let error = Errno.current
            if error == .noSuchFile { return nil }
            throw RecError.failure(path, "\(error)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw RecError.failure(path, "\(Errno.current)") }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw RecError.failure(path, "is a directory") }
        // Room for the whole file and one byte more (a file that grew since fstat fills
        // it and reads on), filled by read(2) rather than zeroed first: a store is megabytes.
        let expected = max(Int(info.st_size), 0) + 1
        var filled = 0
        var failure: Errno?
        var buffer = [UInt8](unsafeUninitializedCapacity: expected) { raw, count in
            while filled < expected {
                let n = System.retrying { Glibc.read(fd, raw.baseAddress! + filled, expected - filled) }
                if n < 0 { failure = Errno.current }
                if n <= 0 { break }
                filled += n
            }
            count = filled
        }
        if let failure { throw RecError.failure(path, "\(failure)") }
        // The spare byte was filled too: the file grew since fstat. Read on to its end.
        var full = filled == expected
        while full {
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            full = false
            while !full {
                let n = buffer.withUnsafeMutableBytes { raw in
                    System.retrying { Glibc.read(fd, raw.baseAddress! + filled, raw.count - filled) }
                }
                if n < 0 { throw RecError.failure(path, "\(Errno.current)") }
                if n == 0 { break }
                filled += n
                full = filled == buffer.count
            }
        }
        buffer.removeSubrange(filled...)
        return buffer
    }

    /// Replaces `path` so that a crash at any instant leaves either the old or the new
    /// content: write a temporary file beside it, fsync, rename over, fsync the directory.
    /// On any failure the temporary file is removed and the old file is untouched.
    /// Without `durable` the two fsyncs are skipped: still atomic for any process that
    /// reads it, but a power cut may take the change back (fine for disposable state).
    /// Without `replacing`, a file already at `path` is an error and is left alone.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, durable: Bool = true, replacing: Bool = true)
        throws
    {
        _ = try writeAtomically(to: path, durable: durable, replacing: replacing) {
            try writeAll($0, bytes, path: path)
        }
    }

    /// `writeAtomically`, the temporary file's content written by `write` into its
    /// descriptor. With `stamping`, its modification time is then stamped (`stampModified`).
    /// Returns the file as written (`fstat` before the rename, so that an edit made in place
    /// after it is never taken for it) and whether the stamp held.
    ///
    /// With `followingWriteback` (a large file), its pages start for the disk while it is
    /// still being written (`WritebackFollower`), so that the fsync waits for little more
    /// than the last of them.
    ///
    /// A caller with work of its own to do while the disk waits takes these steps itself
    /// (`AtomicWrite`).
    package static func writeAtomically(
        to path: String, durable: Bool = true, replacing: Bool = true, stamping: Bool = false,
        followingWriteback: Bool = false, _ write: (Int32) throws -> Void
    ) throws -> (info: stat, stamped: Bool) {
        let file = try AtomicWrite(
            to: path, durable: durable, replacing: replacing, stamping: stamping,
            followingWriteback: followingWriteback)
        try file.write(write)
        try file.replace()
        file.finish()
        return (file.info, file.stamped)
    }

    /// Asks the kernel every 0.1 ms, on another thread, to start writing a file's dirty pages
    /// to the disk while it is still being written (sync_file_range with
    /// SYNC_FILE_RANGE_WRITE, which does not wait): the disk then works while the rest is
    /// copied, and the fsync after it waits for little more than the last pages. Measured
    /// (bench/RESULTS.md) on a copy and fsync of store.json: 8 % less time at 10 MB,
    /// 20 % at 36 MB. Without a thread, the fsync does it all, as before.
    final class WritebackFollower {
        private let finished = AtomicFlag()
        private var thread: JoinableThread?

        init(_ fd: Int32) {
            let finished = finished
            thread = try? JoinableThread {
                var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
                while !finished.isSet {
                    startWriteback(fd)
                    nanosleep(&pause, nil)
                }
            }
        }

        /// Returns once the thread no longer uses the descriptor.
        func finish() {
            finished.set()
            thread?.join()
        }
    }

    /// Sets the modification time of the file open as `fd` to an odd nanosecond just
    /// before the kernel's coarse clock, which is what it stamps a write with (or later: a
    /// fine-grained time is never earlier). Every later write to the file, by any program,
    /// then leaves a later time, so that the file's identity (inode, size, time) changes
    /// with its bytes even within one clock tick, as long as the clock is not set back.
    /// False when the file system did not keep the time to the nanosecond (a coarser one
    /// would round it to a time a later write could have as well): then it proves nothing.
    package static func stampModified(_ fd: Int32) -> Bool {
        var now = timespec()
        guard clock_gettime(CLOCK_REALTIME_COARSE, &now) == 0 else { return false }
        var seconds = now.tv_sec
        var nanoseconds = now.tv_nsec - 1
        if nanoseconds % 2 == 0 { nanoseconds -= 1 }
        if nanoseconds < 0 {
            nanoseconds += 1_000_000_000
            seconds -= 1
        }
        // UTIME_OMIT ((1 << 30) - 2, linux/stat.h): the access time is left as it is.
        let times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
        var info = stat()
        guard futimens(fd, times) == 0, fstat(fd, &info) == 0 else { return false }
        return info.st_mtim.tv_sec == seconds && info.st_mtim.tv_nsec == nanoseconds
    }

    /// Writes `count` bytes of the file open as `source`, from `offset`, where `destination`
    /// is written, copied by the kernel (copy_file_range(2): no user buffer, and a file
    /// system may share the blocks); read and written through a buffer where the kernel
    /// cannot (another file system, an old kernel, a file system without it). `path` names
    /// the file written, for the error.
    package static func copyRange(from source: Int32, at offset: Int, count: Int, to destination: Int32, path: String)
        throws
    {
        var position = Int64(offset)
        var left = count
        var kernel = true
        while left > 0, kernel {
            let n = System.retrying { csystem_copy_file_range(source, &position, destination, left) }
            if n > 0 {
                left -= n
            } else if n == 0 {
                throw RecError.failure(path, "cannot write: the file copied from ended early")
            } else if [EXDEV, ENOSYS, EOPNOTSUPP, EINVAL].contains(errno) {
                kernel = false
            } else {
                throw RecError.failure(path, "cannot write: \(Errno.current)")
            }
        }
        guard left > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: min(left, 1 << 20))
        while left > 0 {
            let n = buffer.withUnsafeMutableBytes { raw in
                System.retrying { pread(source, raw.baseAddress!, min(left, raw.count), off_t(position)) }
            }
            guard n > 0 else {
                throw RecError.failure(
                    path, n == 0 ? "cannot write: the file copied from ended early" : "cannot write: \(Errno.current)")
            }
            try buffer.withUnsafeBytes {
                try writeAll(destination, UnsafeRawBufferPointer(rebasing: $0[0..<n]), path: path)
            }
            position += Int64(n)
            left -= n
        }
    }

    /// Renames `temporary` to `path` unless something is there already, which is the
    /// error `exists` says: a hard link cannot replace, so no other writer slips in between
    /// the check and the rename. A file system without hard links (FAT) is checked first.
    package static func place(_ temporary: String, at path: String) throws {
        if link(temporary, path) == 0 {
            unlink(temporary)
            return
        }
        let reason = Errno.current
        if reason.rawValue == EEXIST || exists(path) { throw alreadyExists(path) }
        guard [EPERM, EOPNOTSUPP, EMLINK, EXDEV].contains(reason.rawValue) else {
            throw RecError.failure(path, "cannot create: \(reason)")
        }
        guard rename(temporary, path) == 0 else { throw RecError.failure(path, "cannot create: \(Errno.current)") }
    }

    /// Opens `path` (close-on-exec always, EINTR retried), runs `body` with the descriptor,
    /// and closes it however `body` ends: the one way the layers above this one open a file
    /// for the length of a call. nil when it cannot be opened, with `errno` saying why.
    package static func withOpened<T>(
        _ path: String, _ flags: Int32, mode: mode_t = 0o644, _ body: (Int32) throws -> T
    ) rethrows -> T? {
        let fd = System.retrying { open(path, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try body(fd)
    }

    /// `withOpened`, throwing what `failure` makes of why the file cannot be opened (the C
    /// library's words for `errno`).
    package static func withOpened<T>(
        _ path: String, _ flags: Int32, mode: mode_t = 0o644, failure: (String) -> Error,
        _ body: (Int32) throws -> T
    ) throws -> T {
        guard let result = try withOpened(path, flags, mode: mode, body) else { throw failure(systemReason(errno)) }
        return result
    }

    /// Puts a finished file, written beside `path` by a writer of its own (libsndfile, a
    /// copy), in place as `writeAtomically` does with bytes: its data to the disk, the rename
    /// (or `place`, without `replacing`), then the directory. On failure `temporary` is left
    /// for the caller, which made it, to remove.
    package static func publish(_ temporary: String, as path: String, replacing: Bool = true) throws {
        try syncFile(temporary, named: path, failing: "cannot write")
        if replacing {
            guard rename(temporary, path) == 0 else { throw RecError.failure(path, "cannot write: \(Errno.current)") }
        } else {
            try place(temporary, at: path)
        }
        syncDirectory(parentDirectory(of: path))
    }

    /// What refusing to replace a file says; `--force` replaces it.
    package static func alreadyExists(_ path: String) -> RecError {
        RecError.failure(path, "already exists; --force replaces it")
    }

    /// `bytes` added at the end of `path` (created if missing) in one write with O_APPEND,
    /// as the logs beside the store take a record (the journal, the caches' logs): a
    /// concurrent appender's record never lands inside this one. False when it was not
    /// written whole; what was written of it stays, for the log's reader to refuse.
    @discardableResult
    package static func append(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = System.retrying { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return (try? writeAll(fd, bytes, path: path)) != nil
    }

    /// All of `bytes`, or an error naming `path`.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        do throws(Errno) {
            try System.writeAll(fd, bytes)
        } catch {
            throw RecError.failure(path, "cannot write: \(error)")
        }
    }

    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        do throws(Errno) {
            try System.writeAll(fd, bytes)
        } catch {
            throw RecError.failure(path, "cannot write: \(error)")
        }
    }

    /// Starts writing `fd`'s dirty pages to the disk without waiting for them
    /// (sync_file_range with SYNC_FILE_RANGE_WRITE), so that a later fsync has little left.
    package static func startWriteback(_ fd: Int32) {
        _ = csystem_start_writeback(fd)
    }

    /// Pushes a finished file's data to the disk (libsndfile closes without syncing). A
    /// failure names `name` (the file a temporary one becomes), saying `failing`.
    package static func syncFile(_ path: String, named name: String? = nil, failing: String = "cannot sync") throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RecError.failure(name ?? path, "\(failing): \(Errno.current)") }
        let synced = fsync(fd)
        let reason = Errno.current
        close(fd)
        guard synced == 0 else { throw RecError.failure(name ?? path, "\(failing): \(reason)") }
    }

    package static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Creates the directory and its parents, like `mkdir -p`.
    package static func makeDirectories(_ path: String) throws {
        // Most calls find it there (every command opens the store's directory two or three
        // times): one stat, not a mkdir for each component from the root.
        var existing = stat()
        if stat(path, &existing) == 0, (existing.st_mode & S_IFMT) == S_IFDIR { return }
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw RecError.failure(path, "cannot create directory: \(Errno.current)")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw RecError.failure(path, "not a directory")
        }
    }

    /// The names in `directory` other than `.` and `..`, sorted; none if it cannot be read.
    package static func entries(of directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            // Read in place, up to its NUL: a dirent is only as long as its name (d_reclen),
            // so copying the whole 256-byte d_name reads past the end of the last one in
            // the buffer (AddressSanitizer caught it).
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    package static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// `size(_:)` of `name` in the directory open as `directory` (a lookup of one name, not
    /// a whole path, for many files of one directory); nil too when `directory` is not open.
    package static func size(_ name: String, relativeTo directory: Int32) -> Int64? {
        var info = stat()
        guard directory >= 0, fstatat(directory, name, &info, 0) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Bytes this process may still write on the file system that holds `path` (statvfs's
    /// `f_bavail`, or for root, who may use the blocks reserved for it, `f_bfree`), or nil
    /// when it cannot be asked.
    package static func availableBytes(_ path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(geteuid() == 0 ? info.f_bfree : info.f_bavail) * Int64(info.f_frsize)
    }

    /// Sets `bytes` of disk aside as a new file at `path` (`posix_fallocate`), so that a
    /// write that must not fail for lack of room later gets it by removing the file.
    /// False, and no file, when the room is not there.
    package static func reserve(_ path: String, bytes: Int64) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        let failed = posix_fallocate(fd, 0, off_t(bytes))
        close(fd)
        if failed != 0 { unlink(path) }
        return failed == 0
    }

    package static func remove(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT {
            throw RecError.failure(path, "cannot remove: \(Errno.current)")
        }
    }

    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    package static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

/// An exclusive advisory lock on a file (`flock`), held for one read-modify-write.
/// The kernel drops it if the process dies, so a killed command never wedges the store.
package final class FileLock {
    private let fd: Int32

    /// Without waiting: nil at once when another process holds the lock (a second sync
    /// refuses rather than queueing behind a long transfer).
    package init?(attempting path: String) throws {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecError.failure(path, "cannot open lock file: \(Errno.current)") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            return nil
        }
    }

    package init(path: String) throws {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecError.failure(path, "cannot open lock file: \(Errno.current)") }
        if System.retrying({ flock(fd, LOCK_EX) }) != 0 {
            let reason = Errno.current
            close(fd)
            throw RecError.failure(path, "cannot lock: \(reason)")
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// Runs `body` with the lock held.
    package static func withLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let lock = try FileLock(path: path)
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    /// `withLock` when `taking`; `body` alone when the caller holds the lock already (flock
    /// taken twice through two descriptors by one process waits for itself).
    package static func withLock<T>(_ path: String, if taking: Bool, _ body: () throws -> T) throws -> T {
        taking ? try withLock(path, body) : try body()
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Tells when `viewstate.json` has been replaced, through inotify.
///
/// The directory is watched, not the file: every write is an atomic rename, so the file's
/// inode changes each time and a watch on it would see one change and then nothing. A
/// rename shows as IN_MOVED_TO of `viewstate.json`; IN_CLOSE_WRITE covers a plain write
/// (a hand edit). A pipe lets another thread wake a waiter, or stop it.
///
/// Without inotify (out of instances or watches) it still works, by looking: every wait
/// ends within `pollInterval` and reports a change, so the waiter reads the file again.
public final class ViewStateWatcher: Sendable {
    public enum Wake: Equatable, Sendable {
        case changed, woken, timedOut, stopped
    }

    /// -1 when inotify is not available.
    private let inotify: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let fileName: String
    private let stopping = AtomicFlag()

    /// How often a watcher without inotify looks at the file.
    static let pollInterval: Int32 = 100

    /// `inotify: false` makes a watcher that looks instead (as one does when the system
    /// has no inotify to give).
    public init(location: StoreLocation, inotify useInotify: Bool = true) throws {
        fileName = FileSystem.baseName(of: location.viewStateFile)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw RecError.failure(location.directory, "cannot watch: \(systemReason(errno))") }
        inotify = useInotify ? Self.watchDirectory(location.directory) : -1
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    /// An inotify descriptor watching `directory`, or -1.
    private static func watchDirectory(_ directory: String) -> Int32 {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return -1 }
        guard inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    deinit {
        if inotify >= 0 { close(inotify) }
        close(wakeRead)
        close(wakeWrite)
    }

    /// Makes the current or next `wait` return `.woken`. Safe from any thread, including an
    /// audio thread: one non-blocking write.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Makes every later `wait` return `.stopped`.
    public func stop() {
        stopping.set()
        wake()
    }

    /// Blocks until the view state is replaced, `wake` is called, or `milliseconds` pass.
    public func wait(milliseconds: Int32) -> Wake {
        if stopping.isSet { return .stopped }
        var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        let looking = inotify < 0
        let ready = poll(&fds, 2, looking && (milliseconds < 0 || milliseconds > Self.pollInterval) ? Self.pollInterval : milliseconds)
        if stopping.isSet { return .stopped }
        guard ready > 0 else { return looking ? .changed : .timedOut }
        var result = Wake.timedOut
        if fds[1].revents != 0 {
            var sink = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &sink, sink.count) > 0 {}
            result = .woken
        }
        if fds[0].revents != 0, drainEvents() { result = .changed }
        return result
    }

    /// Reads every queued inotify event; true if one was about the view-state file.
    private func drainEvents() -> Bool {
        let size = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        var matched = false
        while true {
            let n = read(inotify, buffer, size)
            if n <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let event = (buffer + offset).assumingMemoryBound(to: inotify_event.self)
                let length = Int(event.pointee.len)
                if event.pointee.mask & UInt32(IN_Q_OVERFLOW) != 0 { matched = true }
                if length > 0 {
                    let name = (buffer + offset + MemoryLayout<inotify_event>.size).assumingMemoryBound(to: CChar.self)
                    if String(cString: name) == fileName { matched = true }
                }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
        return matched
    }
}

/// A flag set once, read from any thread.
final class AtomicFlag: Sendable {
    private let counter = AtomicCounter()
    func set() { counter.increment() }
    var isSet: Bool { counter.load() > 0 }
}

import RecSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Tells when `viewstate.json` has been replaced, through inotify or the wake signal.
///
/// With inotify, the directory is watched, not the file: every write is an atomic rename,
/// so the file's inode changes each time and a watch on it would see one change and then
/// nothing. A rename shows as IN_MOVED_TO of `viewstate.json`; IN_CLOSE_WRITE covers a
/// plain write (a hand edit). A pipe lets another thread wake a waiter, or stop it.
///
/// A running job's follower listens for `WakeSignal` instead, which every remote command
/// sends after queueing: it costs nothing to tear down, where an inotify instance's exit
/// waits for a kernel grace period. Without either (no inotify to give, the signal not
/// blocked) it still works, by looking: every wait ends within `pollInterval` and reports
/// a change, so the waiter reads the file again.
package final class ViewStateWatcher: Sendable {
    package enum Wake: Equatable, Sendable {
        case changed, woken, timedOut, stopped
    }

    /// What tells of a change.
    package enum Source: Sendable {
        /// inotify on the store directory: any writer, hand edits included.
        case inotify
        /// `WakeSignal`, sent by remote commands to the job's pid; inotify where the signal
        /// is not blocked in this thread.
        case wakeSignal
        /// Nothing: look every `pollInterval`.
        case looking
    }

    private enum Descriptor: Sendable {
        case inotify(Int32)
        case signal(Int32)
        case none

        var fd: Int32 {
            switch self {
            case .inotify(let fd), .signal(let fd): return fd
            case .none: return -1
            }
        }
    }

    private let changes: Descriptor
    private let wakePipe: WakePipe
    private let fileName: String
    private let stopping = AtomicFlag()

    /// How often a watcher without inotify looks at the file.
    static let pollInterval: Int32 = 100

    package init(location: StoreLocation, source: Source = .inotify) throws {
        fileName = FileSystem.baseName(of: location.viewStateFile)
        do { wakePipe = try WakePipe() } catch {
            throw RecError.failure(location.directory, "cannot watch: \(systemReason(errno))")
        }
        switch source {
        case .wakeSignal:
            if let fd = WakeSignal.descriptor() {
                changes = .signal(fd)
            } else {
                changes = Self.watchDirectory(location.directory)
            }
        case .inotify: changes = Self.watchDirectory(location.directory)
        case .looking: changes = .none
        }
    }

    /// An inotify descriptor watching `directory`, or none.
    private static func watchDirectory(_ directory: String) -> Descriptor {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return .none }
        guard inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0 else {
            close(fd)
            return .none
        }
        return .inotify(fd)
    }

    deinit {
        if changes.fd >= 0 { close(changes.fd) }
    }

    /// Makes the current or next `wait` return `.woken`. Safe from any thread, including an
    /// audio thread: one non-blocking write.
    package func wake() { wakePipe.wake() }

    /// Makes every later `wait` return `.stopped`.
    package func stop() {
        stopping.set()
        wake()
    }

    /// Blocks until the view state is replaced, `wake` is called, or `milliseconds` pass.
    package func wait(milliseconds: Int32) -> Wake {
        if stopping.isSet { return .stopped }
        var fds = [
            pollfd(fd: changes.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        let looking = changes.fd < 0
        let ready = poll(
            &fds, 2,
            looking && (milliseconds < 0 || milliseconds > Self.pollInterval) ? Self.pollInterval : milliseconds)
        if stopping.isSet { return .stopped }
        guard ready > 0 else { return looking ? .changed : .timedOut }
        var result = Wake.timedOut
        if fds[1].revents != 0 {
            wakePipe.drain()
            result = .woken
        }
        if fds[0].revents != 0, drainChanges() { result = .changed }
        return result
    }

    /// Takes what the change descriptor has; true if it tells of a change.
    private func drainChanges() -> Bool {
        switch changes {
        case .inotify(let fd): return drainEvents(fd)
        case .signal(let fd): return WakeSignal.drain(fd)
        case .none: return false
        }
    }

    /// Reads every queued inotify event; true if one was about the view-state file.
    private func drainEvents(_ inotify: Int32) -> Bool {
        let names = DirectoryWatch.drain(inotify)
        return names.contains(fileName) || names.contains(DirectoryWatch.overflowName)
    }
}

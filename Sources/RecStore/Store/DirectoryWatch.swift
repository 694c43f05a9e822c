#if canImport(Glibc)
    import Glibc
#endif

/// inotify on a store directory: which of its files were replaced or written. The directory
/// is watched, not the files: every write is an atomic rename, so a file's inode changes
/// each time and a watch on it would see one change and then nothing. A rename shows as
/// IN_MOVED_TO; IN_CLOSE_WRITE covers a plain write (a hand edit).
package final class DirectoryWatch {
    /// Non-blocking; readable when something changed. Poll it with others.
    package let descriptor: Int32

    /// nil when inotify cannot be had (no instances left, an unwatchable file system).
    package init?(_ directory: String) {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        guard inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Takes every queued event; the names of the files they were about. An overflowed queue
    /// (events were lost) reports `overflowName`, to mean "anything may have changed".
    package func drain() -> Set<String> { Self.drain(descriptor) }

    package static let overflowName = ""

    static func drain(_ inotify: Int32) -> Set<String> {
        let size = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        var names = Set<String>()
        while true {
            let n = read(inotify, buffer, size)
            if n <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let event = (buffer + offset).assumingMemoryBound(to: inotify_event.self)
                let length = Int(event.pointee.len)
                if event.pointee.mask & UInt32(IN_Q_OVERFLOW) != 0 { names.insert(overflowName) }
                if length > 0 {
                    let name = (buffer + offset + MemoryLayout<inotify_event>.size).assumingMemoryBound(to: CChar.self)
                    names.insert(String(cString: name))
                }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
        return names
    }
}

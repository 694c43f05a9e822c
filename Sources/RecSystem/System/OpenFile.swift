#if canImport(Glibc)
    import Glibc
#endif

/// A file kept open past the call that opened it: a folder whose files are looked up by
/// name, a mapped file, an upload being written, a file being served, a trace log. Opened as
/// `FileSystem.withOpened` opens (close-on-exec always, EINTR retried), and closed when the
/// last reference to it goes (one that must close sooner drops its reference).
///
/// The descriptor is lent for the length of a call (`withDescriptor`), never handed out:
/// Swift may release an object right after the last read of one of its properties, so a
/// descriptor read out of it could be closed before the system call that uses it.
package final class OpenFile: Sendable {
    private let descriptor: Int32

    /// nil when `path` cannot be opened, with `errno` saying why.
    package init?(_ path: String, _ flags: Int32, mode: mode_t = 0o644) {
        descriptor = System.retrying { open(path, flags | O_CLOEXEC, mode) }
        guard descriptor >= 0 else { return nil }
    }

    /// `init?`, throwing what `failure` makes of why the file cannot be opened (the C
    /// library's words for `errno`).
    package static func opening(_ path: String, _ flags: Int32, mode: mode_t = 0o644, failure: (String) -> Error)
        throws -> OpenFile
    {
        guard let file = OpenFile(path, flags, mode: mode) else { throw failure(systemReason(errno)) }
        return file
    }

    deinit { close(descriptor) }

    /// Runs `body` with the descriptor, kept open until `body` returns.
    package func withDescriptor<T, Failure: Error>(_ body: (Int32) throws(Failure) -> T) throws(Failure) -> T {
        defer { withExtendedLifetime(self) {} }
        return try body(descriptor)
    }
}

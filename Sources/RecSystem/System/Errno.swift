#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call's error number, as a value: it can be thrown, compared and kept,
/// and it reads the way the C library words it (`strerror`).
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`, read at once (before anything else can change it).
    package static var current: Errno { Errno(errno) }

    package var description: String { String(cString: strerror(rawValue)) }

    package static let interrupted = Errno(EINTR)
    package static let noSuchFile = Errno(ENOENT)
    package static let ioError = Errno(EIO)
}

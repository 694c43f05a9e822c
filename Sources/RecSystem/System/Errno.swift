#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call's error number, as a value: it can be thrown, compared and kept,
/// and it reads the way the C library words it (`strerror`).
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`, read at once (before anything else can change it).
    public static var current: Errno { Errno(errno) }

    public var description: String { String(cString: strerror(rawValue)) }

    public static let interrupted = Errno(EINTR)
    public static let noSuchFile = Errno(ENOENT)
    public static let ioError = Errno(EIO)
}

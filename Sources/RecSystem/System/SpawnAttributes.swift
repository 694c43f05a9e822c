#if canImport(Glibc)
    import Glibc
#endif

/// The `posix_spawnattr_t` every child recnotes starts gets: no blocked signals, and the
/// signals this process handles itself (SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT) back to
/// their defaults, so that a child is stopped the way any program is. `flags` adds, for
/// example, a session or process group of its own.
package func withSpawnAttributes<T>(flags: Int32, processGroup: Bool = false, _ body: (inout posix_spawnattr_t) -> T)
    -> T
{
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    if processGroup { posix_spawnattr_setpgroup(&attributes, 0) }
    posix_spawnattr_setflags(&attributes, Int16(flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return body(&attributes)
}

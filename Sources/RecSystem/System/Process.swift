#if canImport(Glibc)
    import Glibc
#endif

/// Whether a process with this pid is running. One we may not signal still runs; a zombie
/// (killed, not yet reaped by its parent) does not.
public func processIsAlive(_ pid: Int32) -> Bool {
    guard pid > 0 else { return false }
    guard kill(pid, 0) == 0 || errno == EPERM else { return false }
    // /proc/PID/stat reads "PID (command) STATE ...": the state follows the last ')'.
    guard let stat = try? FileSystem.read("/proc/\(pid)/stat"),
        let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count
    else { return true }
    let state = stat[close + 2]
    return state != UInt8(ascii: "Z") && state != UInt8(ascii: "X")
}

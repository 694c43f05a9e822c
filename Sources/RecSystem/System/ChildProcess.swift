#if canImport(Glibc)
    import Glibc
#endif

/// A program run in the foreground, on this process's terminal and standard streams, as an
/// editor is: recnotes waits for it and gets its exit status.
package enum ChildProcess {
    /// Runs `arguments[0]` (looked up in PATH) and waits. Returns its exit status, or
    /// 128 + the signal that ended it. Throws when it cannot be started.
    /// With `quiet`, its standard output goes to /dev/null (a tool's chatter, such as
    /// `git annex init`'s "ok"); its errors still reach the user.
    package static func run(_ arguments: [String], quiet: Bool = false) throws -> Int32 {
        var launch = ProcessLaunch(arguments)
        if quiet { launch.output = .null }
        let pid: pid_t
        do throws(Errno) { pid = try launch.start() } catch {
            throw RecError.failure(arguments[0], "cannot start: \(error)")
        }
        return WaitStatus.wait(for: pid)?.shellStatus ?? ExitStatus.failure
    }
}

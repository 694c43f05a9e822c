#if canImport(Glibc)
    import Glibc
#endif

/// A child process that outlives the shell that started it: its own session (no terminal,
/// so no SIGHUP or Ctrl-C from that shell), stdin from /dev/null, stdout and stderr to a
/// file the caller opened, and one extra descriptor for reporting back to the parent.
package struct DetachedProcess: Sendable {
    package let pid: pid_t

    /// Starts `executable` with `arguments`. `output` becomes its descriptors 1 and 2,
    /// `report` its descriptor `reportDescriptor`. Signals this process blocks or handles
    /// are back to their defaults in the child. Throws the spawn's errno.
    package static func spawn(
        executable: String, arguments: [String], output: Int32,
        report: Int32, reportDescriptor: Int32
    ) throws(Errno) -> DetachedProcess {
        var launch = ProcessLaunch([executable] + arguments, executable: executable)
        launch.input = .null
        launch.output = .descriptor(output)
        launch.errors = .descriptor(output)
        launch.extraDescriptors = [(child: reportDescriptor, parent: report)]
        launch.ownSession = true
        launch.closeInherited = true
        return DetachedProcess(pid: try launch.start())
    }

    /// Kills it and reaps it.
    package func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        _ = WaitStatus.wait(for: pid)
    }

    /// Waits for it to end: its exit status, or `ExitStatus.failure` if a signal ended it.
    package func exitStatus() -> Int32 {
        WaitStatus.wait(for: pid)?.code ?? ExitStatus.failure
    }

    /// This program's own executable, as the kernel knows it.
    package static var currentExecutable: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(cBuffer: buffer)
    }

    /// Everything readable from `fd` until its writers close it, or nil if `seconds` pass first.
    package static func readToEnd(_ fd: Int32, within seconds: Double) -> [UInt8]? {
        var received: [UInt8] = []
        let deadline = MonotonicClock.now() + seconds
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline - MonotonicClock.now()
            if left <= 0 { return nil }
            var fds = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, Int32(left * 1000) + 1)
            if ready <= 0 { continue }  // EINTR or a spurious wake: the deadline decides
            let n = System.retrying { read(fd, &buffer, buffer.count) }
            if n <= 0 { return received }
            received += buffer[0..<n]
        }
    }
}

import Foundation
import RecCore
import RecSystem
import Testing

/// `recnotes serve --listen 127.0.0.1:0` on a sandbox's store, as a user starts it: the URL
/// it printed, and its stop by SIGTERM to its pid.
final class ServeProcess {
    let pid: pid_t
    /// What it printed first: `http://127.0.0.1:PORT/`.
    let url: String
    /// The port in `url`.
    var port: Int { Int(url.split(separator: ":").last?.filter(\.isNumber) ?? "") ?? 0 }
    let errorFile: String
    private let output: Int32
    private var reaped = false

    /// `arguments` after serve's own; `environment` added to the test's; `descriptors`: the
    /// server's descriptor limit (soft and hard, as `ulimit -n` sets it).
    init(
        _ sandbox: Sandbox, arguments: [String] = [], environment: [String: String] = [:], descriptors: Int? = nil
    ) throws {
        // Started with posix_spawn (ProcessLaunch), not Foundation's Process: the server closes
        // what it inherited, and Foundation's Process watches its children through a socket it
        // hands down, so it would wait on the server before it saw a client end.
        let out = try System.closeOnExecPipe()
        errorFile = sandbox.root + "/serve.err"
        let errors = open(errorFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        var command = [Sandbox.binary, "--store", sandbox.store, "serve", "--listen", "127.0.0.1:0"] + arguments
        if !environment.isEmpty {
            command =
                ["/usr/bin/env"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + command
        }
        if let descriptors {
            // The shell becomes the server (exec): the pid is the server's.
            command = ["/bin/sh", "-c", "ulimit -n \(descriptors) && exec \"$@\"", "sh"] + command
        }
        var launch = ProcessLaunch(command, executable: command[0])
        launch.input = .null
        launch.output = .descriptor(out.write)
        launch.errors = .descriptor(errors)
        pid = try launch.start()
        close(out.write)
        close(errors)
        output = out.read
        do {
            url = try ServeTests.firstLine(FileHandle(fileDescriptor: out.read), timeout: 60)
        } catch {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            close(output)
            throw error
        }
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(output)
    }

    /// SIGTERM, then its wait status once it ended, nil when it was still running `timeout`
    /// seconds later (it is then killed).
    func stop(timeout: Double = 30) -> Int32? {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                reaped = true
                return status
            }
            usleep(10000)
        }
        return nil
    }

    /// The next line it printed after the URL.
    func nextLine(timeout: Double = 10) throws -> String {
        try ServeTests.firstLine(FileHandle(fileDescriptor: output), timeout: timeout)
    }

    /// What it wrote on stderr.
    var stderr: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }
}

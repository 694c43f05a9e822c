import Foundation
import RecCore
import Testing

/// `recnotes serve` as a user runs it: the CLI becomes `recnotes-serve` from its own directory.
@Suite struct ServeTests {
    /// `recnotes-serve` beside `recnotes`.
    static var server: String {
        URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path + "/recnotes-serve"
    }

    /// Started on a port the kernel picks, it prints its URL; /api/ls there is `ls --json`;
    /// SIGTERM to the pid the shell started stops it with status 0.
    @Test func servesLsAndStopsOnSIGTERM() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "-p", "/Talks/Deep", "/Ideas")
        let expected = try sandbox.succeed("ls", "/", "--json").stdout

        // Started with posix_spawn (ProcessLaunch), not Foundation's Process: the server closes
        // what it inherited, and Foundation's Process watches its children through a socket it
        // hands down, so it would wait on the server before it saw curl end.
        let out = try System.closeOnExecPipe()
        let errorFile = sandbox.root + "/serve.err"
        let errors = open(errorFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        var launch = ProcessLaunch(
            [Sandbox.binary, "--store", sandbox.store, "serve", "--listen", "127.0.0.1:0"], executable: Sandbox.binary)
        launch.input = .null
        launch.output = .descriptor(out.write)
        launch.errors = .descriptor(errors)
        let pid = try launch.start()
        close(out.write)
        close(errors)
        defer { close(out.read) }
        var stopped = false
        defer { if !stopped { kill(pid, SIGKILL) } }

        let line = try Self.firstLine(FileHandle(fileDescriptor: out.read), timeout: 60)
        #expect(line.hasPrefix("http://127.0.0.1:") && line.hasSuffix("/"), "\(line)")
        #expect(!line.contains(":0/") && !line.contains("token"), "\(line)")

        let curl = try Sandbox.execute(
            "/usr/bin/curl", ["-sS", "--fail", "--max-time", "30", line + "api/ls?path=/"],
            environment: sandbox.baseEnvironment)
        #expect(curl.status == 0, "\(curl)")
        #expect(curl.stdout == expected)

        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(30)
        var reaped = false
        while !reaped && Date() < deadline {
            reaped = waitpid(pid, &status, WNOHANG) == pid
            if !reaped { usleep(10000) }
        }
        stopped = reaped
        #expect(reaped, "still running 30 s after SIGTERM")
        #expect(status & 0x7f == 0, "ended by signal \(status & 0x7f)")
        #expect((status >> 8) & 0xff == 0, "exit status \((status >> 8) & 0xff)")
        let stderr = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        #expect(stderr.isEmpty, "\(stderr)")
    }

    /// Without `recnotes-serve` beside it or in libexec: one line naming both, status 1.
    @Test func aMissingServerIsOneLine() throws {
        let sandbox = try Sandbox()
        let alone = sandbox.root + "/bin"
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Sandbox.binary, toPath: alone + "/recnotes")
        let run = try Sandbox.execute(
            alone + "/recnotes", ["--store", sandbox.store, "serve"], environment: sandbox.baseEnvironment)
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "recnotes: serve: cannot run \(alone)/recnotes-serve: No such file or directory (nor \(sandbox.root)/libexec/recnotes/recnotes-serve)\n",
            "\(run)")
        #expect(run.stdout.isEmpty)
    }

    /// The .deb's layout: recnotes in usr/bin, the server in usr/libexec/recnotes. The server
    /// is found there: the bad --listen is its own usage error (64), not "cannot run".
    @Test func theServerIsFoundInLibexec() throws {
        let sandbox = try Sandbox()
        let bin = sandbox.root + "/usr/bin"
        let libexec = sandbox.root + "/usr/libexec/recnotes"
        for directory in [bin, libexec] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: Sandbox.binary, toPath: bin + "/recnotes")
        try FileManager.default.copyItem(atPath: Self.server, toPath: libexec + "/recnotes-serve")
        let run = try Sandbox.execute(
            bin + "/recnotes", ["--store", sandbox.store, "serve", "--listen", "127.0.0.1:99999"],
            environment: sandbox.baseEnvironment)
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.hasPrefix("recnotes: --listen: '99999' is not a port"), "\(run)")
    }

    /// A bad --listen is a usage error, said before anything listens.
    @Test func aBadListenIsAUsageError() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.run("serve", "--listen", "127.0.0.1:99999")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.hasPrefix("recnotes: --listen: '99999' is not a port"), "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    /// The CLI links no HTTP server (NIO, Hummingbird): its start-up and size stay the CLI's.
    /// The server's binary does, which shows that the check can see them.
    @Test func theCLIDoesNotLinkTheServer() throws {
        let cli = try Data(contentsOf: URL(fileURLWithPath: Sandbox.binary))
        let server = try Data(contentsOf: URL(fileURLWithPath: Self.server))
        for module in ["7NIOCore", "11Hummingbird", "8NIOPosix"] {
            #expect(server.range(of: Data(module.utf8)) != nil, "\(module) not in recnotes-serve")
            #expect(cli.range(of: Data(module.utf8)) == nil, "\(module) in recnotes")
        }
    }

    /// The first line of a child's output, read as it comes (the server keeps running).
    static func firstLine(_ handle: FileHandle, timeout: Double) throws -> String {
        var bytes: [UInt8] = []
        let descriptor = handle.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(descriptor, &byte, 1) == 1 else { break }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        throw RecError.failure("recnotes serve", "printed no line: \(String(decoding: bytes, as: UTF8.self))")
    }
}

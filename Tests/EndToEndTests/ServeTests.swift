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

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Sandbox.binary)
        process.arguments = ["--store", sandbox.store, "serve", "--listen", "127.0.0.1:0"]
        process.environment = sandbox.baseEnvironment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        let line = try Self.firstLine(out.fileHandleForReading, timeout: 60)
        #expect(line.hasPrefix("http://127.0.0.1:") && line.hasSuffix("/"), "\(line)")
        #expect(!line.contains(":0/") && !line.contains("token"), "\(line)")

        let curl = try Sandbox.execute(
            "/usr/bin/curl", ["-sS", "--fail", "--max-time", "30", line + "api/ls?path=/"],
            environment: sandbox.baseEnvironment)
        #expect(curl.status == 0, "\(curl)")
        #expect(curl.stdout == expected)

        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(10000) }
        #expect(!process.isRunning, "still running 30 s after SIGTERM")
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.isEmpty, "\(stderr)")
    }

    /// Without `recnotes-serve` beside it: one line, status 1.
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
                == "recnotes: serve: cannot run \(alone)/recnotes-serve: No such file or directory (it is installed beside recnotes)\n",
            "\(run)")
        #expect(run.stdout.isEmpty)
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

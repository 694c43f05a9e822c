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

        let server = try ServeProcess(sandbox)
        let line = server.url
        #expect(line.hasPrefix("http://127.0.0.1:") && line.hasSuffix("/"), "\(line)")
        #expect(!line.contains(":0/") && !line.contains("token"), "\(line)")

        let curl = try Sandbox.execute(
            "/usr/bin/curl", ["-sS", "--fail", "--max-time", "30", line + "api/ls?path=/"],
            environment: sandbox.baseEnvironment)
        #expect(curl.status == 0, "\(curl)")
        #expect(curl.stdout == expected)

        let status = server.stop()
        #expect(status != nil, "still running 30 s after SIGTERM")
        if let status {
            #expect(status & 0x7f == 0, "ended by signal \(status & 0x7f)")
            #expect((status >> 8) & 0xff == 0, "exit status \((status >> 8) & 0xff)")
        }
        #expect(server.stderr.isEmpty, "\(server.stderr)")
    }

    /// /api/events streams a change made by another process to each open stream (two here,
    /// sharing the server's one watch), and SIGTERM ends the open streams: the server exits
    /// promptly with status 0 and each client sees its stream end.
    @Test func liveEventsStreamAChangeAndEndOnSIGTERM() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Ideas")
        let server = try ServeProcess(sandbox)
        // curl in the background, its output in a file: -N so each event arrives as sent.
        let files = [sandbox.root + "/events1.txt", sandbox.root + "/events2.txt"]
        var curls: [pid_t] = []
        defer {
            for curl in curls {
                kill(curl, SIGKILL)
                var ignored: Int32 = 0
                waitpid(curl, &ignored, WNOHANG)
            }
        }
        for file in files {
            var launch = ProcessLaunch([
                "/usr/bin/curl", "-sS", "-N", "--max-time", "60", "-o", file, server.url + "api/events",
            ])
            launch.input = .null
            launch.errors = .null
            curls.append(try launch.start())
        }
        func streamed(_ file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
        func waitFor(_ text: String, seconds: Double) {
            let deadline = Date().addingTimeInterval(seconds)
            while !files.allSatisfy({ streamed($0).contains(text) }) && Date() < deadline { usleep(20000) }
        }
        waitFor(": watching", seconds: 30)
        for file in files { #expect(streamed(file).contains(": watching"), "did not open: \(streamed(file))") }

        try sandbox.succeed("mkdir", "/Fresh")
        waitFor("event: store", seconds: 10)
        for file in files {
            #expect(
                streamed(file).components(separatedBy: "event: store\ndata: store.json\n\n").count == 2,
                "\(streamed(file))")
        }

        let stopping = Date()
        let status = server.stop(timeout: 10)
        #expect(status != nil, "still running 10 s after SIGTERM with a stream open")
        #expect(status.map { $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } == true, "\(String(describing: status))")
        #expect(Date().timeIntervalSince(stopping) < 5, "the open stream held up the exit")
        let ended = Date().addingTimeInterval(10)
        var running = curls
        while !running.isEmpty && Date() < ended {
            running.removeAll { curl in
                var curlStatus: Int32 = 0
                return waitpid(curl, &curlStatus, WNOHANG) == curl
            }
            if !running.isEmpty { usleep(10000) }
        }
        #expect(running.isEmpty, "a client's stream was not closed")
        curls = running
    }

    /// A built program at another path, as a hard link: a copy would be open for writing while
    /// the other tests start programs, and a child forked meanwhile holds that descriptor until
    /// it execs, so running the copy could fail with ETXTBSY ("Text file busy"). A link writes
    /// nothing; the copy is only for a build directory on another file system.
    static func place(_ program: String, at path: String) throws {
        if link(program, path) != 0 { try FileManager.default.copyItem(atPath: program, toPath: path) }
    }

    /// Without `recnotes-serve` beside it or in libexec: one line naming both, status 1.
    @Test func aMissingServerIsOneLine() throws {
        let sandbox = try Sandbox()
        let alone = sandbox.root + "/bin"
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        try Self.place(Sandbox.binary, at: alone + "/recnotes")
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
        try Self.place(Sandbox.binary, at: bin + "/recnotes")
        try Self.place(Self.server, at: libexec + "/recnotes-serve")
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

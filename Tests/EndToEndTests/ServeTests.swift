import Foundation
import RecCore
import RecSystem
import RecTestSupport
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

    /// Every request's Host must name the server: another name (DNS rebinding) is 403 with
    /// the JSON error on every route, the page's and the reads' as much as the writes', and
    /// said once on stderr however often it comes; a `--host` name is answered.
    @Test func aRequestForAnotherHostIsRefusedEverywhere() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Work")
        let uuid = try sandbox.addWAVRecording("memo", in: "/Work", frames: 4800).description
        let server = try ServeProcess(sandbox, arguments: ["--host", "Notes.LAN"])
        let routes = [
            "", "r/\(uuid)", "api/ls", "api/info?path=/Work/memo", "api/find?text=x", "api/tree", "api/events",
            "api/session", "audio/\(uuid)", "page/page.js", "nowhere",
        ]
        for host in ["evil.example:\(server.port)", "evil.example", "127.0.0.1.evil.example:\(server.port)"] {
            for route in routes {
                let curl = try Self.curl(server.url + route, ["-H", "Host: \(host)"])
                #expect(curl.status == "403", "\(host) \(route): \(curl.status)")
                #expect(curl.body.contains("\"error\": \"this server answers to its address"), "\(route): \(curl.body)")
            }
        }
        let post = try Self.curl(
            server.url + "api/tag?path=/Work/memo&add=x", ["-X", "POST", "-H", "Host: evil.example"])
        #expect(post.status == "403")
        for host in ["127.0.0.1:\(server.port)", "localhost:\(server.port)", "notes.lan:\(server.port)", "NOTES.lan"] {
            let curl = try Self.curl(server.url + "api/info?path=/Work/memo", ["-H", "Host: \(host)"])
            #expect(curl.status == "200", "\(host): \(curl.status) \(curl.body)")
        }
        #expect(try Self.curl(server.url + "api/ls", ["-H", "Host:"]).status == "403", "no Host at all")
        #expect(server.stop() != nil)
        let lines = server.stderr.split(separator: "\n")
        #expect(lines.count == 4, "\(server.stderr)")
        #expect(lines.filter { $0.contains("'evil.example:\(server.port)'") }.count == 1, "\(server.stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("recnotes: serve: refused requests for Host '") }, "\(server.stderr)")
    }

    /// An upload needs room for its audio once: a WAV body stored as WAV is the recording
    /// itself, renamed into place, on a disk with room for one copy and not two. One that
    /// does not fit is 507 with the JSON error, and leaves store.json and audio/ as they were.
    @Test(.enabled(if: DiskFullTests.canMountTmpfs, "needs to mount a tmpfs (root)"))
    func anUploadIsWrittenOnceAndAFullDiskIs507() throws {
        let sandbox = try Sandbox()
        // 600 KB of audio on a 1,000 KB disk: the body spooled and then encoded again would
        // need 1,200 KB.
        let upload = sandbox.root + "/memo.wav"
        try sandbox.write(upload, wavBytes(frames: 300_000))
        try DiskFullTests.onTmpfs(at: sandbox.store, kilobytes: 1000) {
            try sandbox.succeed("mkdir", "/Phone")
            let server = try ServeProcess(sandbox)
            let session = try Self.curl(server.url + "api/session")
            let token = try #require(
                (try JSONSerialization.jsonObject(with: Data(session.body.utf8)) as? [String: Any])?["writeToken"]
                    as? String)
            func post(_ name: String) throws -> (status: String, body: String) {
                try Self.curl(
                    server.url + "api/upload?path=/Phone&name=\(name)&format=wav",
                    ["-X", "POST", "-H", "X-Recnotes-Token: \(token)", "--data-binary", "@" + upload])
            }
            let first = try post("memo")
            #expect(first.status == "200", "\(first.body)")
            let info = try sandbox.succeed("info", "/Phone/memo", "--json").stdout
            let item = try #require(try JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: Any])
            #expect(item["frames"] as? Int == 300_000, "\(info)")
            #expect(item["format"] as? String == "wav", "\(info)")

            let store = sandbox.storeBytes
            let audio = try FileManager.default.contentsOfDirectory(atPath: sandbox.store + "/audio").sorted()
            let second = try post("again")
            #expect(second.status == "507", "\(second.status) \(second.body)")
            #expect(
                second.body.contains("\"error\": \"upload: ") && second.body.contains("No space left"),
                "\(second.body)")
            #expect(sandbox.storeBytes == store)
            #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.store + "/audio").sorted() == audio)
            #expect(server.stop() != nil)
        }
    }

    /// A port another server holds: one line naming the address, exit status 1.
    @Test func aPortInUseIsOneLine() throws {
        let sandbox = try Sandbox()
        let first = try ServeProcess(sandbox)
        let run = try sandbox.run("serve", "--listen", "127.0.0.1:\(first.port)")
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr == "recnotes: serve: 127.0.0.1:\(first.port): address already in use\n", "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(first.stop() != nil)
    }

    /// No request ends the server: seeded random and malformed requests (methods, paths,
    /// queries, Range and Host headers, lengths, bodies, versions) to every route, a recording
    /// with an empty file among them; the server answers a plain request after each batch,
    /// and is still running at the end, to stop on SIGTERM with status 0.
    @Test func malformedRequestsNeverEndTheServer() throws {
        let seed = SeededRandom.seed(0x5EED_2026)
        print("malformedRequestsNeverEndTheServer: seed \(seed) (RECNOTES_TEST_SEED replays it)")
        var random = SeededRandom(seed: seed)
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Work")
        let empty = try sandbox.addRecording("empty", in: "/Work", duration: 1, format: .wav, audioBytes: 0).description
        let full = try sandbox.addWAVRecording("memo", in: "/Work", frames: 48000).description
        let server = try ServeProcess(sandbox)
        let port = server.port
        let paths = [
            "/", "/r/\(full)", "/r/", "/page/page.js", "/page/nope", "/api/ls", "/api/info", "/api/tree", "/api/marks",
            "/api/find", "/api/transcript", "/api/events", "/api/session", "/api/mark", "/api/tag", "/api/note",
            "/api/upload", "/api/get", "/api/", "/audio/\(empty)", "/audio/\(full)", "/audio/", "/favicon.ico", "*",
            "//", "/%", "/%zz", "/..%2f..%2fstore.json", "/api/ls/../../x", "/r/\(full)/x",
        ]
        let methods = [
            "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "BREW", "get", "", "G\u{1}T",
            String(repeating: "A", count: 300),
        ]
        let queries = [
            "", "?", "?path=/", "?path=/Work/memo", "?path=@\(full.prefix(4))", "?path=%", "?path=%ff%fe",
            "?sort=colour",
            "?a=b&&&=", "?token=x", "?path=/Work/memo&at=0.5&label=x", "?add=x&remove=y", "?filename=a.wav",
            "?" + String(repeating: "x=1&", count: 2000), "?path=" + String(repeating: "/a", count: 3000),
        ]
        let ranges = [
            "bytes=0-", "bytes=-0", "bytes=5-1", "bytes=-", "bytes=0-0,1-1", "bytes=99999999999999999999-",
            "bytes=-99999999999999999999", "bytes= 0-", "bytes=0-99999999999999999999", "bytes=1-0", "items=1-2",
            "bytes=\u{7f}", "bytes=-1", "bytes=0-0",
        ]
        let hosts = ["127.0.0.1:\(port)", "localhost", "evil.example", "", "[::1", "127.0.0.1:99999", "[::1]:1"]
        let versions = ["HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/9.9", "HTTP/", "junk", ""]
        func pick<T>(_ list: [T]) -> T { list[Int.random(in: 0..<list.count, using: &random)] }
        func junk(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }

        // First each route plainly, GET and HEAD, without a Range (the empty file's whole answer).
        var requests: [[UInt8]] = []
        for path in paths {
            for method in ["GET", "HEAD"] {
                requests.append(Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
            }
        }
        for _ in 0..<400 {
            var head = "\(pick(methods)) \(pick(paths))\(pick(queries)) \(pick(versions))\r\n"
            if Bool.random(using: &random) { head += "Host: \(pick(hosts))\r\n" }
            if Bool.random(using: &random) { head += "Range: \(pick(ranges))\r\n" }
            let body = Int.random(in: 0..<4, using: &random) == 0 ? [] : junk(Int.random(in: 0..<3000, using: &random))
            switch Int.random(in: 0..<6, using: &random) {
            case 0: head += "Content-Length: \(body.count)\r\n"
            case 1: head += "Content-Length: \(Int.random(in: -5..<100_000, using: &random))\r\n"
            case 2: head += "Content-Length: x\r\nContent-Length: 1\r\n"
            case 3: head += "Transfer-Encoding: chunked\r\n"
            default: break
            }
            if Bool.random(using: &random) { head += "Origin: http://\(pick(hosts))\r\nX-Recnotes-Token: nope\r\n" }
            if Int.random(in: 0..<5, using: &random) == 0 { head += "\(pick(methods)): \(pick(queries))\r\n" }
            var bytes = Array(head.utf8)
            if Int.random(in: 0..<6, using: &random) == 0 { bytes += junk(Int.random(in: 1..<200, using: &random)) }
            bytes += Array("\r\n".utf8) + body
            requests.append(bytes)
        }
        for (index, request) in requests.enumerated() {
            RawConnection.exchange(port: port, request)
            if index % 20 == 19 || index == requests.count - 1 {
                let curl = try Self.curl(server.url + "api/ls?path=/Work")
                #expect(curl.status == "200", "after request \(index): \(curl.status)")
                if curl.status != "200" { break }
            }
        }
        let status = server.stop()
        #expect(status.map { $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } == true, "\(String(describing: status))")
    }

    /// A connection that has not sent its whole header within the idle timeout (1 s here, by
    /// the environment), or sits idle after an answer, is closed; and with the server's
    /// descriptors few (96) and far more connections holding a header half sent, a normal
    /// request is still answered: each new connection closes the one that waited longest.
    @Test func slowClientsAreClosedAndStarveNoOne() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Work")
        let server = try ServeProcess(sandbox, environment: ["RECNOTES_SERVE_IDLE_TIMEOUT": "1"])
        let slow = try #require(RawConnection(port: server.port))
        slow.send(Array("GET /api/ls HTTP/1.1\r\nHo".utf8))
        #expect(slow.waitForClose(seconds: 30), "a half-sent header kept its connection")
        let idle = try #require(RawConnection(port: server.port))
        idle.send(Array("GET /api/ls HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect(idle.waitForClose(seconds: 30), "an idle keep-alive stayed open")
        #expect(String(decoding: idle.received, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        #expect(server.stop() != nil)

        let crowded = try ServeProcess(sandbox, descriptors: 96)
        var attackers: [RawConnection] = []
        for _ in 0..<200 {
            guard let connection = RawConnection(port: crowded.port) else { continue }
            connection.send(Array("G".utf8))
            attackers.append(connection)
        }
        for _ in 0..<5 {
            let curl = try Self.curl(crowded.url + "api/ls?path=/Work", ["--max-time", "20"])
            #expect(curl.status == "200", "\(curl.status) \(curl.body)")
        }
        attackers.removeAll()
        let status = crowded.stop()
        #expect(status.map { $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } == true, "\(String(describing: status))")
    }

    /// curl's status code and body for `url`.
    static func curl(_ url: String, _ options: [String] = []) throws -> (status: String, body: String) {
        let run = try Sandbox.execute(
            "/usr/bin/curl", ["-sS", "--max-time", "30", "-o", "-", "-w", "\n%{http_code}"] + options + [url],
            environment: ["PATH": "/usr/bin:/bin"])
        var lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = lines.popLast().map(String.init) ?? ""
        return (status, lines.joined(separator: "\n"))
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

/// A TCP connection to the server on the loopback, for what curl will not send: malformed
/// requests, a header a byte at a time.
final class RawConnection {
    let descriptor: Int32
    private(set) var received: [UInt8] = []

    init?(port: Int) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    /// Sends what it can (the server may close first: EPIPE is not an error here).
    func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Reads until the server closes, true then; false when it had not `seconds` later.
    func waitForClose(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return true }
            received += buffer[..<count]
        }
        return false
    }

    /// `request` sent, the sending side shut, the answer read until the server closes (or a
    /// second later: a stream does not end).
    static func exchange(port: Int, _ request: [UInt8]) {
        guard let connection = RawConnection(port: port) else { return }
        connection.send(request)
        shutdown(connection.descriptor, Int32(SHUT_WR))
        _ = connection.waitForClose(seconds: 1)
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import RecSystem
import Testing

/// `POST /api/mark|tag|note`: the CLI's transactions (seen by the CLI, history and undo), and
/// who may write: the token header from /api/session, this server's own origin, no
/// `--read-only`. A refused or failed write changes no file.
@Suite struct WriteRouteTests {
    static let talk = "/Talks/budget%20talk"

    @Test func writesAreTheCLIsChanges() async throws {
        let fixture = try LibraryFixture()
        let access = Access(host: "127.0.0.1", port: 0, token: nil)
        let header: HTTPFields = [Server.writeTokenField: access.writeToken]
        try await fixture.app(access: access).test(.router) { client in
            let session = try await client.execute(uri: "/api/session", method: .get) { response in
                #expect(response.status == .ok)
                return try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            }
            #expect(session?["writeToken"] as? String == access.writeToken)
            #expect(session?["readOnly"] as? Bool == false)

            try await client.execute(
                uri: "/api/tag?path=\(Self.talk)&add=urgent&remove=q3", method: .post, headers: header
            ) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let items = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                #expect(items?.map { $0["path"] as? String } == ["/Talks/budget talk"])
                #expect(items?.first?["tags"] as? [String] == ["urgent", "work"])
            }
            try await client.execute(
                uri: "/api/mark?path=\(Self.talk)&at=0.25&label=from+the+page", method: .post, headers: header
            ) { #expect($0.status == .ok, "\(String(buffer: $0.body))") }
            try await client.execute(
                uri: "/api/note?path=\(Self.talk)", method: .post, headers: header,
                body: ByteBuffer(string: "written on a phone, ü\nsecond line")
            ) { #expect($0.status == .ok, "\(String(buffer: $0.body))") }
        }
        let info = try JSONSerialization.jsonObject(
            with: try fixture.succeed("info", "/Talks/budget talk", "--json").stdout)
        let item = try #require(info as? [String: Any])
        #expect(item["tags"] as? [String] == ["urgent", "work"])
        #expect(
            String(decoding: try fixture.succeed("note", "/Talks/budget talk").stdout, as: UTF8.self)
                == "written on a phone, ü\nsecond line\n")
        let marks = try JSONSerialization.jsonObject(
            with: try fixture.succeed("marks", "/Talks/budget talk", "--json").stdout)
        let found = (marks as? [[String: Any]])?.first { $0["label"] as? String == "from the page" }
        #expect(found?["frame"] as? Int == LibraryFixture.rate / 4)
        // In the journal as the CLI's own changes, and undone by `undo` like them.
        let history = String(decoding: try fixture.succeed("history").stdout, as: UTF8.self)
        #expect(history.contains("tags on /Talks/budget talk"), "\(history)")
        // Each entry names the request that made it, as a command's entry names its command line.
        let entries = try JSONSerialization.jsonObject(with: try fixture.succeed("history", "--json").stdout)
        let summaries = try #require(entries as? [[String: Any]]).compactMap { $0["summary"] as? String }
        #expect(
            summaries.contains("recnotes serve: POST /api/tag path=/Talks/budget talk add=urgent remove=q3"),
            "\(summaries)")
        #expect(summaries.contains("recnotes serve: POST /api/note path=/Talks/budget talk"), "\(summaries)")
        try fixture.succeed("undo")
        #expect(
            String(decoding: try fixture.succeed("note", "/Talks/budget talk").stdout, as: UTF8.self)
                == "the quarterly budget, first draft\n")
    }

    @Test func refusedWritesChangeNothing() async throws {
        let fixture = try LibraryFixture()
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.store + "/store.json"))
        let access = Access(host: "127.0.0.1", port: 0, token: nil)
        let good: HTTPFields = [Server.writeTokenField: access.writeToken]
        let wrong = String(access.writeToken.dropLast()) + (access.writeToken.hasSuffix("0") ? "1" : "0")
        let uri = "/api/tag?path=\(Self.talk)&add=forged"
        try await fixture.app(access: access).test(.router) { client in
            let refused: [(HTTPFields, String)] = [
                ([:], "a write needs the X-Recnotes-Token header"),
                ([Server.writeTokenField: wrong], "a write needs the X-Recnotes-Token header"),
                (
                    [Server.writeTokenField: access.writeToken, .origin: "http://evil.example"],
                    "a write from another site"
                ),
            ]
            for (headers, message) in refused {
                try await client.execute(uri: uri, method: .post, headers: headers) { response in
                    #expect(response.status == .forbidden, "\(headers)")
                    #expect(String(buffer: response.body).contains(message), "\(String(buffer: response.body))")
                }
            }
            // A GET never writes, whatever it is sent to.
            try await client.execute(uri: uri, method: .get, headers: good) { #expect($0.status == .notFound) }
            let failing: [(String, HTTPResponse.Status, String)] = [
                ("/api/rm?path=/Talks", .notFound, "no such write route"),
                ("/api/tag?path=/nowhere&add=x", .notFound, "/nowhere: "),
                ("/api/tag?path=\(Self.talk)&colour=red", .badRequest, "colour: tag has no such parameter"),
                ("/api/tag?path=\(Self.talk)", .badRequest, "tag: needs add=TAG or remove=TAG"),
                ("/api/tag?path=\(Self.talk)&add=", .badRequest, "a tag cannot be empty"),
                ("/api/mark?path=\(Self.talk)", .badRequest, "at: "),
                ("/api/mark?path=\(Self.talk)&at=9:00", .badRequest, "is outside the recording"),
                ("/api/mark?path=/Talks&at=1", .badRequest, "is a folder"),
            ]
            for (uri, status, message) in failing {
                try await client.execute(uri: uri, method: .post, headers: good) { response in
                    #expect(response.status == status, "\(uri): \(String(buffer: response.body))")
                    #expect(String(buffer: response.body).contains(message), "\(uri): \(String(buffer: response.body))")
                }
            }
            try await client.execute(
                uri: "/api/note?path=\(Self.talk)", method: .post, headers: good,
                body: ByteBuffer(bytes: [0x66, 0xFF, 0x66])
            ) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("not valid UTF-8"))
            }
        }
        try await fixture.app(readOnly: true).test(.router) { client in
            let token = try await client.execute(uri: "/api/session", method: .get) { response in
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(object?["readOnly"] as? Bool == true)
                return object?["writeToken"] as? String ?? ""
            }
            try await client.execute(uri: uri, method: .post, headers: [Server.writeTokenField: token]) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("read-only"))
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.store + "/store.json")) == before)
    }

    /// An upload is `import` of the body: all or nothing, with no temporary file left either way.
    @Test func anUploadBecomesARecording() async throws {
        let fixture = try LibraryFixture()
        let wav = try Data(contentsOf: URL(fileURLWithPath: try fixture.audioPath("/Talks/budget talk")))
        let access = Access(host: "127.0.0.1", port: 0, token: nil)
        let good: HTTPFields = [Server.writeTokenField: access.writeToken]
        let audio = fixture.store + "/audio"
        @Sendable func leftovers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: audio)) ?? []).filter { $0.hasPrefix(".") }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.store + "/store.json"))
        try await fixture.app(access: access).test(.router) { client in
            let refused: [(String, HTTPFields, [UInt8], HTTPResponse.Status, String)] = [
                ("/api/upload?filename=x.wav", [:], Array(wav), .forbidden, "X-Recnotes-Token"),
                ("/api/upload?filename=x.wav", good, Array("not audio at all".utf8), .badRequest, "upload: "),
                ("/api/upload?filename=x.wav", good, [], .badRequest, "the body is empty"),
                ("/api/upload", good, Array(wav), .badRequest, "needs name=NAME or filename=FILE"),
                ("/api/upload?path=/Talks&name=budget+talk", good, Array(wav), .badRequest, "already exists"),
                ("/api/upload?path=/nowhere&name=x", good, Array(wav), .notFound, "/nowhere"),
                ("/api/upload?name=x&format=aiff", good, Array(wav), .badRequest, "format: 'aiff'"),
            ]
            for (uri, headers, body, status, message) in refused {
                try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(bytes: body)) {
                    response in
                    #expect(response.status == status, "\(uri): \(String(buffer: response.body))")
                    #expect(String(buffer: response.body).contains(message), "\(uri): \(String(buffer: response.body))")
                }
                let left = leftovers()
                #expect(left.isEmpty, "\(uri) left \(left)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.store + "/store.json")) == before)
            try await client.execute(
                uri: "/api/upload?path=/Talks&filename=phone%20memo.wav&format=FLAC", method: .post, headers: good,
                body: ByteBuffer(bytes: wav)
            ) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let items = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                #expect(items?.map { $0["path"] as? String } == ["/Talks/phone memo"])
            }
        }
        #expect(leftovers().isEmpty)
        let info = try JSONSerialization.jsonObject(
            with: try fixture.succeed("info", "/Talks/phone memo", "--json").stdout)
        let item = try #require(info as? [String: Any])
        #expect(item["format"] as? String == "flac")
        #expect(item["duration"] as? Double == 2.0)
        let history = String(decoding: try fixture.succeed("history").stdout, as: UTF8.self)
        #expect(history.contains("phone memo"), "\(history)")
    }

    /// A page of another name that resolves here (DNS rebinding) would share the server's origin:
    /// the server answers its session and writes only to its address or localhost.
    @Test func onlyDirectHostsAreAnswered() throws {
        for host in ["127.0.0.1:8930", "127.0.0.1", "localhost:8930", "[::1]:8930", "192.168.1.20:8930"] {
            #expect(Access.isDirectHost(host), "\(host)")
        }
        for host in ["evil.example:8930", "evil.example", "127.0.0.1.evil.example", "[::1", "localhost.evil:80", ""] {
            #expect(!Access.isDirectHost(host), "\(host)")
        }
        // `--host` names too, in any case, with or without a port; no other.
        let access = try Access.make(listen: nil, tokenFile: nil, names: ["Notes.LAN", "proxy.example.org"])
        for host in ["notes.lan", "NOTES.lan:8930", "proxy.example.org:443", "127.0.0.1:8930", "localhost"] {
            #expect(access.answers(toHost: host), "\(host)")
        }
        for host in ["evil.example", "notes.lan.evil", "notes.lan:x", "proxy.example.org:99999", "lan", ""] {
            #expect(!access.answers(toHost: host), "\(host)")
        }
        for bad in ["notes.lan:80", "", "a b", "évil"] {
            #expect(throws: RecError.self, "\(bad)") { try Access.make(listen: nil, tokenFile: nil, names: [bad]) }
        }
    }
}

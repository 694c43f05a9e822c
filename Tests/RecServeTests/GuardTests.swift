import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import RecStore
import RecSystem
import Testing

/// What the server refuses and how: every refusal is one JSON line with its status (an
/// unknown page a small HTML page), HEAD answers as GET without a body, bodies have limits,
/// and a client that keeps offering wrong tokens is held off. (The Host check, slow clients
/// and malformed requests need a real socket: EndToEndTests/ServeTests.)
@Suite struct GuardTests {
    @Test func headAnswersAsGetWithoutABody() async throws {
        let fixture = try LibraryFixture()
        let uuid = try fixture.uuid("/Talks/budget talk")
        try await fixture.app().test(.router) { client in
            for uri in ["/", "/r/" + uuid, "/api/ls", "/api/info?path=/Talks", "/audio/" + uuid, "/page/page.js"] {
                let get = try await client.execute(uri: uri, method: .get) { response in
                    (response.status, response.headers[.contentType], response.body.readableBytes)
                }
                #expect(get.0 == .ok && get.2 > 0, "GET \(uri)")
                try await client.execute(uri: uri, method: .head) { response in
                    #expect(response.status == get.0, "HEAD \(uri)")
                    #expect(response.headers[.contentType] == get.1, "HEAD \(uri)")
                    #expect(response.headers[.contentLength] == "\(get.2)", "HEAD \(uri)")
                    #expect(response.body.readableBytes == 0, "HEAD \(uri)")
                }
            }
        }
    }

    /// An unknown route under /api/ or /audio/ is the JSON error; any other a small page for
    /// the person who typed it; the favicon a browser asks for is 204.
    @Test func unknownRoutesAndTheFavicon() async throws {
        let fixture = try LibraryFixture()
        try await fixture.app().test(.router) { client in
            for (uri, method) in [
                ("/api/ls/more", HTTPRequest.Method.get), ("/api/", .get), ("/audio/", .get), ("/api/ls", .delete),
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .notFound, "\(method) \(uri)")
                    #expect(response.headers[.contentType] == "application/json; charset=utf-8", "\(uri)")
                    let object =
                        try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                    #expect(
                        object?["error"]?.hasSuffix(": no such route") == true,
                        "\(uri): \(String(buffer: response.body))")
                }
            }
            for uri in ["/nowhere", "/r/", "/index.html"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8", "\(uri)")
                    #expect(String(buffer: response.body).contains("<h1>Not found</h1>"), "\(uri)")
                }
                try await client.execute(uri: uri, method: .head) { response in
                    #expect(response.status == .notFound && response.body.readableBytes == 0, "HEAD \(uri)")
                }
            }
            try await client.execute(uri: "/favicon.ico", method: .get) { response in
                #expect(response.status == .noContent)
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    /// `--max-upload`: a larger upload is 413 with the JSON error, from its Content-Length
    /// before a byte is stored; a note over its limit is 413 with the JSON error too. Nothing is left in audio/ and the store is unchanged.
    @Test func bodiesOverTheirLimitAre413() async throws {
        let fixture = try LibraryFixture()
        let access = Access(host: "127.0.0.1", port: 0, token: nil)
        var limits = Server.Limits()
        limits.maxUpload = 4096
        func token(length: Int? = nil) -> HTTPFields {
            var fields: HTTPFields = [Server.writeTokenField: access.writeToken]
            if let length { fields[.contentLength] = "\(length)" }
            return fields
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.store + "/store.json"))
        let big = ByteBuffer(bytes: [UInt8](repeating: 1, count: 10000))
        let note = ByteBuffer(bytes: [UInt8](repeating: 0x61, count: NoteRules.maxBytes + 4097))
        let cases: [(String, HTTPFields, ByteBuffer, String)] = [
            ("/api/upload?filename=x.wav", token(length: 10000), big, "larger than --max-upload (4096 bytes)"),
            (
                "/api/note?path=/Talks/budget%20talk", token(length: note.readableBytes), note,
                "larger than a note may be (\(NoteRules.maxBytes) bytes)"
            ),
        ]
        try await fixture.app(access: access, limits: limits).test(.router) { client in
            for (uri, headers, body, message) in cases {
                try await client.execute(uri: uri, method: .post, headers: headers, body: body) { response in
                    #expect(response.status == .contentTooLarge, "\(uri) \(headers)")
                    let object =
                        try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                    #expect(object?["error"]?.contains(message) == true, "\(uri): \(String(buffer: response.body))")
                }
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.store + "/audio").filter {
            $0.hasPrefix(".")
        }
        #expect(left.isEmpty, "\(left)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.store + "/store.json")) == before)
        #expect(try Server.Limits.parseSize("2G") == 2 << 30)
        #expect(try Server.Limits.parseSize("500MiB") == 500 << 20)
        #expect(try Server.Limits.parseSize("4096") == 4096)
        for bad in ["", "G", "-1", "0", "1.5x", "9999999T"] {
            #expect(throws: RecError.self, "\(bad)") { try Server.Limits.parseSize(bad) }
        }
        // A full disk, as the system says it, is 507.
        let full = RecError.failure("upload", "cannot store it: \(systemReason(ENOSPC))")
        #expect(LibraryAPI.status(of: full, otherwise: 500) == 507)
        #expect(LibraryAPI.status(of: RecError.failure("upload", "bad"), otherwise: 500) == 500)
    }

    /// Guesses in parallel: of 30 different wrong tokens sent at once from one address, 10 get
    /// 401 and the rest 429, and so does the right token after them; the same wrong token again
    /// and again (a stale cookie) is counted once and holds no one off.
    @Test func manyWrongTokensHoldTheAddressOff() async throws {
        let fixture = try LibraryFixture()
        let token = Access.newToken()
        // A window no run outlasts, however loaded the machine: the test is of the count
        // (the server's own is the minute its refusal names).
        #expect(Server.Limits().tokenFailureWindow == .seconds(60))
        var limits = Server.Limits()
        limits.tokenFailureWindow = .seconds(3600)
        let access = Access(host: "127.0.0.1", port: 0, token: token, readOnly: false)
        try await fixture.app(access: access, limits: limits).test(.router) { client in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for n in 0..<30 {
                    group.addTask {
                        try await client.execute(
                            uri: "/api/ls", method: .get, headers: [.authorization: "Bearer guess\(n)"]
                        ) {
                            $0.status
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count == 10, "\(statuses)")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 20, "\(statuses)")
            try await client.execute(uri: "/api/ls?token=" + token, method: .get) { response in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter] == "3600")
                #expect(response.headers[.setCookie] == nil)
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                #expect(object?["error"]?.hasPrefix("too many wrong tokens") == true)
            }
        }
        try await fixture.app(token: token).test(.router) { client in
            for _ in 0..<15 {
                try await client.execute(uri: "/api/ls", method: .get, headers: [.cookie: "\(Access.cookieName)=stale"])
                {
                    #expect($0.status == .unauthorized)
                }
            }
            try await client.execute(uri: "/api/ls?token=" + token, method: .get) { #expect($0.status == .ok) }
        }
    }
}

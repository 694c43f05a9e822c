import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import RecSystem
import RecTestSupport
import Testing

/// Who may ask: anyone on the loopback; elsewhere only with the token.
@Suite struct AccessTests {
    @Test func theLoopbackNeedsNoTokenAnyOtherAddressDoes() throws {
        for listen in ["127.0.0.1:8930", "127.0.0.5", "localhost:1", "[::1]:9000", ":7000"] {
            #expect(try Access.make(listen: listen, tokenFile: nil).token == nil, "\(listen)")
        }
        for listen in ["0.0.0.0:8930", "192.168.1.20", "[::]:8930", "10.0.0.1:80", "example.org:80"] {
            let access = try Access.make(listen: listen, tokenFile: nil)
            let token = try #require(access.token, "\(listen)")
            #expect(token.utf8.count == 64 && token.utf8.allSatisfy { "0123456789abcdef".utf8.contains($0) })
            #expect(access.url.hasSuffix("/?token=" + token))
        }
        let a = try Access.make(listen: "0.0.0.0:1", tokenFile: nil).token
        let b = try Access.make(listen: "0.0.0.0:1", tokenFile: nil).token
        #expect(a != b)
        #expect(try Access.make(listen: nil, tokenFile: nil).url == "http://127.0.0.1:8930/")
        #expect(try Access.make(listen: "[::1]:9000", tokenFile: nil).url == "http://[::1]:9000/")
    }

    @Test func aTokenFileIsReadAndAskedOnTheLoopbackToo() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/token"
        try Data("  s3cret-token-from-a-file \nsecond line\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try Access.make(listen: "127.0.0.1:1", tokenFile: file).token == "s3cret-token-from-a-file")
        try Data("short\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: RecError.self) { try Access.make(listen: nil, tokenFile: file) }
        #expect(throws: RecError.self) { try Access.make(listen: nil, tokenFile: directory.path + "/none") }
    }

    @Test func listenIsParsedOrRefused() throws {
        #expect(try Access.parseListen("0.0.0.0:80") == ("0.0.0.0", 80))
        #expect(try Access.parseListen("[fe80::1]:81") == ("fe80::1", 81))
        #expect(try Access.parseListen(":82") == ("127.0.0.1", 82))
        #expect(try Access.parseListen("10.1.2.3") == ("10.1.2.3", 8930))
        for bad in ["1.2.3.4:99999", "1.2.3.4:x", "::1:80", "[::1", "[::1]x"] {
            #expect(throws: RecError.self, "\(bad)") { try Access.parseListen(bad) }
        }
    }

    @Test func tokensCompareWhole() {
        #expect(Access.sameToken("abcdef", "abcdef"))
        #expect(!Access.sameToken("abcdeg", "abcdef"))
        #expect(!Access.sameToken("abcde", "abcdef"))
        #expect(!Access.sameToken("abcdefg", "abcdef"))
        #expect(!Access.sameToken("", "abcdef"))
    }

    /// Off the loopback: no token or a wrong one is 401 (after a delay); `?token=` answers and
    /// sets the cookie, which then suffices; so does a Bearer header.
    @Test func theTokenRules() async throws {
        let fixture = try LibraryFixture()
        let token = Access.newToken()
        let ls = try fixture.succeed("ls", "/", "--json").stdout
        try await fixture.app(token: token).test(.router) { client in
            let refused: [(String, HTTPFields)] = [
                ("/api/ls", [:]),
                ("/api/ls?token=" + String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0"), [:]),
                ("/api/ls?token=", [:]),
                ("/api/ls", [.cookie: "\(Access.cookieName)=nope"]),
                ("/api/ls", [.authorization: "Bearer " + token.uppercased()]),
                ("/audio/" + (try fixture.uuid("/Talks/budget talk")), [:]),
            ]
            for (uri, headers) in refused {
                let clock = ContinuousClock()
                let start = clock.now
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status == .unauthorized, "\(uri) \(headers)")
                    #expect(response.headers[.setCookie] == nil)
                    #expect(!String(buffer: response.body).contains(token))
                }
                #expect(clock.now - start >= .milliseconds(250), "\(uri): answered at once")
            }
            let cookie = try await client.execute(uri: "/api/ls?path=/&token=" + token, method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == ls)
                return try #require(response.headers[.setCookie])
            }
            #expect(cookie == "\(Access.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict")
            let value = String(cookie.prefix { $0 != ";" })
            for headers: HTTPFields in [[.cookie: "other=1; " + value], [.authorization: "Bearer " + token]] {
                try await client.execute(uri: "/api/ls?path=/", method: .get, headers: headers) { response in
                    #expect(response.status == .ok, "\(headers)")
                    #expect(Data(buffer: response.body) == ls)
                    #expect(response.headers[.setCookie] == nil)
                }
            }
        }
        // Without a token (the loopback), the same request is answered.
        try await fixture.app().test(.router) { client in
            try await client.execute(uri: "/api/ls?path=/", method: .get) { #expect($0.status == .ok) }
        }
    }
}

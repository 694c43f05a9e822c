import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `/audio/<uuid>`: the file by UUID alone, whole or in byte ranges, and nothing else.
@Suite struct AudioRouteTests {
    @Test func theWholeFileWithItsType() async throws {
        let fixture = try LibraryFixture()
        let cases = [("/Talks/budget talk", "audio/wav"), ("/Talks/Deep dir/ünïcode & more", "audio/flac")]
        try await fixture.app().test(.router) { client in
            for (path, type) in cases {
                let file = try Data(contentsOf: URL(fileURLWithPath: try fixture.audioPath(path)))
                #expect(file.count > 1000)
                try await client.execute(uri: "/audio/" + (try fixture.uuid(path)), method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == type)
                    #expect(response.headers[.acceptRanges] == "bytes")
                    #expect(response.headers[.contentLength] == "\(file.count)")
                    #expect(Data(buffer: response.body) == file)
                }
            }
        }
    }

    /// Each range's bytes are the file's, with Content-Range saying which; past the end is 416.
    @Test func rangesAreByteExact() async throws {
        let fixture = try LibraryFixture()
        let file = try Data(contentsOf: URL(fileURLWithPath: try fixture.audioPath("/Talks/budget talk")))
        let size = file.count
        let uri = "/audio/" + (try fixture.uuid("/Talks/budget talk"))
        // (header, first byte, last byte)
        let parts: [(String, Int, Int)] = [
            ("bytes=0-0", 0, 0),
            ("bytes=0-99", 0, 99),
            ("bytes=1000-65535", 1000, 65535),
            ("bytes=100000-", 100_000, size - 1),
            ("bytes=-500", size - 500, size - 1),
            ("bytes=\(size - 10)-\(size * 2)", size - 10, size - 1),
            ("bytes=-\(size * 3)", 0, size - 1),
            ("bytes=\(size - 1)-", size - 1, size - 1),
        ]
        try await fixture.app().test(.router) { client in
            for (header, first, last) in parts {
                try await client.execute(uri: uri, method: .get, headers: [.range: header]) { response in
                    #expect(response.status == .partialContent, "\(header)")
                    #expect(response.headers[.contentRange] == "bytes \(first)-\(last)/\(size)", "\(header)")
                    #expect(response.headers[.contentLength] == "\(last - first + 1)", "\(header)")
                    #expect(Data(buffer: response.body) == file[first...last], "\(header)")
                }
            }
            for header in ["bytes=\(size)-", "bytes=\(size + 5)-\(size + 10)", "bytes=-0"] {
                try await client.execute(uri: uri, method: .get, headers: [.range: header]) { response in
                    #expect(response.status == .rangeNotSatisfiable, "\(header)")
                    #expect(response.headers[.contentRange] == "bytes */\(size)", "\(header)")
                }
            }
            // Several ranges, or a malformed one: the whole file (RFC 9110 lets a server ignore Range).
            for header in ["bytes=0-1,5-6", "bytes=5-1", "items=0-1", "bytes=x-"] {
                try await client.execute(uri: uri, method: .get, headers: [.range: header]) { response in
                    #expect(response.status == .ok, "\(header)")
                    #expect(Data(buffer: response.body) == file, "\(header)")
                }
            }
        }
    }

    /// No path from the request reaches the file system: anything but a recording's UUID is
    /// 404, and so is a recording whose file is a link leading out of the store.
    @Test func traversalAttemptsAre404() async throws {
        let fixture = try LibraryFixture()
        let uuid = try fixture.uuid("/Talks/budget talk")
        let audioPath = try fixture.audioPath("/Talks/budget talk")
        let fileName = URL(fileURLWithPath: audioPath).lastPathComponent
        let folder = try fixture.uuid("/Talks")
        let attempts = [
            "/audio/..", "/audio/%2e%2e", "/audio/%2e%2e/store.json", "/audio/..%2fstore.json",
            "/audio/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/audio//etc/passwd", "/audio/%2Fetc%2Fpasswd",
            "/audio/" + fileName, "/audio/" + String(uuid.prefix(8)), "/audio/" + folder, "/audio/" + uuid + "/..",
            "/audio/" + uuid + "%00", "/audio/" + uuid.uppercased() + "x", "/audio/../store.json",
            "/audio/00000000-0000-0000-0000-000000000000",
        ]
        try await fixture.app().test(.router) { client in
            for uri in attempts {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                }
            }
            // The recording itself is served: the attempts failed for what they asked.
            try await client.execute(uri: "/audio/" + uuid, method: .get) { #expect($0.status == .ok) }

            // Its file replaced by a link out of the store: not served.
            let outside = fixture.home + "/secret.wav"
            try Data("secret".utf8).write(to: URL(fileURLWithPath: outside))
            let kept = fixture.home + "/kept.wav"
            try FileManager.default.moveItem(atPath: audioPath, toPath: kept)
            try FileManager.default.createSymbolicLink(atPath: audioPath, withDestinationPath: outside)
            try await client.execute(uri: "/audio/" + uuid, method: .get) { #expect($0.status == .notFound) }

            // A link that stays inside the store (as git-annex's do): served.
            try FileManager.default.removeItem(atPath: audioPath)
            let inside = fixture.store + "/.git-annex-like"
            try FileManager.default.moveItem(atPath: kept, toPath: inside)
            try FileManager.default.createSymbolicLink(atPath: audioPath, withDestinationPath: inside)
            let file = try Data(contentsOf: URL(fileURLWithPath: inside))
            try await client.execute(uri: "/audio/" + uuid, method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == file)
            }
        }
    }

    /// The server keeps a recording's file open across requests (`AudioFiles`); a file
    /// replaced under the same name while it runs is served anew, with its own size, and in
    /// place of the old one, however many requests the old one had before.
    @Test func aReplacedFileIsServedAnew() async throws {
        let fixture = try LibraryFixture()
        let audioPath = try fixture.audioPath("/Talks/budget talk")
        let old = try Data(contentsOf: URL(fileURLWithPath: audioPath))
        let uri = "/audio/" + (try fixture.uuid("/Talks/budget talk"))
        try await fixture.app().test(.router) { client in
            for _ in 0..<3 {
                try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=100-199"]) { response in
                    #expect(response.status == .partialContent)
                    #expect(Data(buffer: response.body) == old[100...199])
                }
            }
            // Replaced as every write of the store replaces a file: new bytes renamed over it.
            let new = Data((0..<(old.count / 2)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            try new.write(to: URL(fileURLWithPath: audioPath + ".new"))
            #expect(rename(audioPath + ".new", audioPath) == 0)
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=100-199"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 100-199/\(new.count)")
                #expect(Data(buffer: response.body) == new[100...199])
            }
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == new)
            }
        }
    }

    /// A recording removed while the server runs (to the trash, its file still in audio/) is
    /// 404 from the next request on, and served again once `undo` brings it back; one moved
    /// to another folder keeps its UUID and is served.
    @Test func aTrashedRecordingIs404() async throws {
        let fixture = try LibraryFixture()
        let file = try Data(contentsOf: URL(fileURLWithPath: try fixture.audioPath("/Talks/budget talk")))
        let uri = "/audio/" + (try fixture.uuid("/Talks/budget talk"))
        try await fixture.app().test(.router) { client in
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=0-99"]) { response in
                #expect(response.status == .partialContent)
                #expect(Data(buffer: response.body) == file[0...99])
            }
            try fixture.succeed("rm", "/Talks/budget talk")
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=0-99"]) { response in
                #expect(response.status == .notFound)
            }
            try fixture.succeed("undo")
            try fixture.succeed("mv", "/Talks/budget talk", "/Talks/Deep dir/")
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == file)
            }
        }
    }

    /// A recording whose file is empty: its whole answer is 200 with no bytes, a range of it
    /// is 416, and the server goes on.
    @Test func anEmptyFileIsAnEmptyAnswer() async throws {
        let fixture = try LibraryFixture()
        let uuid = try fixture.uuid("/Talks/budget talk")
        #expect(truncate(try fixture.audioPath("/Talks/budget talk"), 0) == 0)
        try await fixture.app().test(.router) { client in
            for method in [HTTPRequest.Method.get, .head] {
                try await client.execute(uri: "/audio/" + uuid, method: method) { response in
                    #expect(response.status == .ok, "\(method)")
                    #expect(response.headers[.contentLength] == "0", "\(method)")
                    #expect(response.body.readableBytes == 0)
                }
            }
            for header in ["bytes=0-", "bytes=-5", "bytes=0-0"] {
                try await client.execute(uri: "/audio/" + uuid, method: .get, headers: [.range: header]) { response in
                    #expect(response.status == .rangeNotSatisfiable, "\(header)")
                    #expect(response.headers[.contentRange] == "bytes */0", "\(header)")
                }
            }
            try await client.execute(uri: "/api/ls", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func rangeHeaderParsing() {
        #expect(ByteRange(header: nil, size: 10) == .whole)
        #expect(ByteRange(header: "bytes=2-4", size: 10) == .part(2...4))
        #expect(ByteRange(header: "bytes = 2-", size: 10) == .whole)
        #expect(ByteRange(header: "bytes=2-", size: 10) == .part(2...9))
        #expect(ByteRange(header: "bytes=-3", size: 10) == .part(7...9))
        #expect(ByteRange(header: "bytes=10-", size: 10) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=99999999999999999999999-", size: 10) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-99999999999999999999999", size: 10) == .part(0...9))
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import RecSystem
import Testing

/// The transcript's routes beyond `/api/transcript`: `topics` and `chapters` answer what the
/// CLI's `--json` prints, and `POST /api/correct` corrects a segment as `transcript --edit`
/// does (marked corrected, undone by `undo`), refusing a stale or bad one with no change;
/// `POST /api/words` adds to your words.
@Suite struct TranscriptRouteTests {
    static let talk = "/Talks/budget%20talk"

    /// The fixture with "budget talk" transcribed (two segments) by an engine script.
    func transcribed() throws -> LibraryFixture {
        let fixture = try LibraryFixture()
        let engine = fixture.home + "/engine"
        let srt =
            "1\\n00:00:00,000 --> 00:00:00,900\\nthe budget for dash wood\\n\\n2\\n00:00:01,000 --> 00:00:01,900\\nthe budget is late\\n"
        try Data("#!/bin/sh\nprintf '\(srt)'\n".utf8).write(to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        try fixture.succeed("transcribe", "/Talks/budget talk", "--engine", engine, "-q")
        return fixture
    }

    func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func topicsAndChaptersAreTheCLIsJSON() async throws {
        let fixture = try transcribed()
        let topics = try fixture.succeed("topics", "/Talks/budget talk", "--json", "--count", "3").stdout
        let chapters = try fixture.succeed("chapters", "/Talks/budget talk", "--json").stdout
        #expect(String(decoding: topics, as: UTF8.self).contains("\"budget\""))
        try await fixture.app().test(.router) { client in
            try await client.execute(uri: "/api/topics?path=\(Self.talk)&count=3", method: .get) {
                #expect($0.status == .ok)
                #expect(Data(buffer: $0.body) == topics, "\(String(buffer: $0.body))")
            }
            try await client.execute(uri: "/api/chapters?path=\(Self.talk)", method: .get) {
                #expect($0.status == .ok)
                #expect(Data(buffer: $0.body) == chapters, "\(String(buffer: $0.body))")
            }
            // A recording without a transcript has none; a folder or a bad count is refused.
            let other = "/Talks/Deep%20dir/%C3%BCn%C3%AFcode%20%26%20more"
            for route in ["topics", "chapters"] {
                try await client.execute(uri: "/api/\(route)?path=\(other)", method: .get) {
                    #expect($0.status == .ok && String(buffer: $0.body) == "[]\n", "\(route)")
                }
                try await client.execute(uri: "/api/\(route)?path=/Talks", method: .get) {
                    #expect($0.status == .badRequest, "\(route)")
                }
            }
            try await client.execute(uri: "/api/topics?path=\(Self.talk)&count=0", method: .get) {
                #expect($0.status == .badRequest)
            }
        }
    }

    @Test func aCorrectionIsTranscriptEditsAndUndoTakesItBack() async throws {
        let fixture = try transcribed()
        let access = Access(host: "127.0.0.1", port: 0, token: nil)
        let header: HTTPFields = [Server.writeTokenField: access.writeToken]
        let before = try object(try fixture.succeed("transcript", "/Talks/budget talk", "--format", "json").stdout)
        let read = "the budget for dash wood"
        try await fixture.app(access: access).test(.router) { client in
            try await client.execute(
                uri: "/api/correct?path=\(Self.talk)&segment=0&version=\(LibraryAPI.noteVersion(read))", method: .post,
                headers: header, body: ByteBuffer(string: "the budget for Dashwood")
            ) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let answer = try object(Data(buffer: response.body))
                #expect(answer["text"] as? String == "the budget for Dashwood")
                #expect(answer["newWords"] as? [String] == ["Dashwood"], "\(answer)")
            }
            // Read before that correction: refused, and nothing changes.
            try await client.execute(
                uri: "/api/correct?path=\(Self.talk)&segment=0&version=\(LibraryAPI.noteVersion(read))", method: .post,
                headers: header, body: ByteBuffer(string: "the budget for Dashwoods")
            ) { #expect($0.status == .conflict, "\(String(buffer: $0.body))") }
            for (query, status) in [
                ("segment=2", HTTPResponse.Status.badRequest), ("segment=x", .badRequest), ("", .badRequest),
            ] {
                try await client.execute(
                    uri: "/api/correct?path=\(Self.talk)&\(query)", method: .post, headers: header,
                    body: ByteBuffer(string: "words")
                ) { #expect($0.status == status, "\(query): \(String(buffer: $0.body))") }
            }
            try await client.execute(uri: "/api/words?add=Dashwood", method: .post, headers: header) { response in
                #expect(response.status == .ok)
                let words = try object(Data(buffer: response.body))["words"]
                #expect(words as? [String] == ["Dashwood"])
            }
        }
        let after = try object(try fixture.succeed("transcript", "/Talks/budget talk", "--format", "json").stdout)
        let segments = try #require(after["segments"] as? [[String: Any]])
        let old = try #require(before["segments"] as? [[String: Any]])
        #expect(segments.map { $0["text"] as? String } == ["the budget for Dashwood", "the budget is late"])
        #expect(segments.map { $0["start"] as? Double } == old.map { $0["start"] as? Double })
        #expect(segments.map { $0["end"] as? Double } == old.map { $0["end"] as? Double })
        #expect(after["corrected"] as? Bool == true)
        #expect(String(decoding: try fixture.succeed("words").stdout, as: UTF8.self) == "Dashwood\n")
        try fixture.succeed("undo")
        let undone = try object(try fixture.succeed("transcript", "/Talks/budget talk", "--format", "json").stdout)
        #expect((undone["segments"] as? [[String: Any]])?.first?["text"] as? String == read)
    }
}

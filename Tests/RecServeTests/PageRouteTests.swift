import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import RecStore
import RecValues
import Testing

/// The page's files as the server sends them: the same bytes as Sources/RecServe/Page/, with
/// their media types; one shell for the library and a recording's URL.
@Suite struct PageRouteTests {
    static let pageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/RecServe/Page")

    @Test func theShellAndItsAssetsAreTheFilesInPage() async throws {
        let fixture = try LibraryFixture()
        let uuid = try fixture.uuid("/Talks/budget talk")
        let cases: [(String, String, String)] = [
            ("/", "index.html", "text/html; charset=utf-8"),
            ("/?path=%2FTalks&sort=date", "index.html", "text/html; charset=utf-8"),
            ("/r/\(uuid)", "index.html", "text/html; charset=utf-8"),
            ("/page/page.js", "page.js", "text/javascript; charset=utf-8"),
            ("/page/page.css", "page.css", "text/css; charset=utf-8"),
        ]
        try await fixture.app().test(.router) { client in
            for (uri, file, type) in cases {
                let expected = try Data(contentsOf: Self.pageDirectory.appendingPathComponent(file))
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentType] == type, "\(uri)")
                    #expect(response.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'") == true)
                    #expect(Data(buffer: response.body) == expected, "\(uri) is not \(file)")
                }
            }
            for uri in ["/page/nothing.js", "/page/..%2Fstore.json", "/r/"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                }
            }
        }
    }

    /// The page asks for nothing from elsewhere: every script, stylesheet and fetch is the
    /// server's own (no CDN), as the Content-Security-Policy also enforces.
    @Test func thePageLoadsNothingFromElsewhere() throws {
        for file in ["index.html", "page.js", "page.css"] {
            let text = try String(contentsOf: Self.pageDirectory.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("http://") && !text.contains("https://"), "\(file) names another origin")
        }
    }

    /// Off the loopback the shell too needs the token: the page is no way around it.
    @Test func theShellNeedsTheToken() async throws {
        let fixture = try LibraryFixture()
        try await fixture.app(token: "s3cret-token").test(.router) { client in
            try await client.execute(uri: "/", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/page/page.js", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/events", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/?token=s3cret-token", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.setCookie]?.hasPrefix("recnotes_token=s3cret-token;") == true)
            }
        }
    }
}

/// `StoreEvents`: one `.store` for a change of store.json by another process, one
/// `.transcript` per transcript written, nothing when nothing changed.
@Suite struct StoreEventsTests {
    @Test func changesByAnotherProcessAreEvents() throws {
        let fixture = try LibraryFixture()
        let events = try #require(StoreEvents(fixture.location))
        #expect(events.poll() == [])
        try fixture.succeed("mkdir", "/Fresh")
        try fixture.succeed("tag", "/Talks/budget talk", "+later")
        #expect(events.poll() == [.store])
        #expect(events.poll() == [])

        let engine = fixture.home + "/engine"
        try Data("#!/bin/sh\necho some words\n".utf8).write(to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        try fixture.succeed("transcribe", "/Talks/budget talk", "--engine", engine)
        let uuid = try fixture.uuid("/Talks/budget talk")
        // transcripts/ was made by this transcription: the transcript it holds is news
        // all the same, then each write's own event from the next one on.
        let first = events.poll()
        #expect(first.contains(.transcript(uuid)), "\(first)")
        try fixture.succeed("transcribe", "/Talks/budget talk", "--engine", engine, "--force")
        let second = events.poll()
        #expect(second.contains(.transcript(uuid)), "\(second)")
        #expect(StoreEvents.Event.transcript(uuid).text == "event: transcript\ndata: \(uuid)\n\n")
        #expect(StoreEvents.Event.store.text == "event: store\ndata: store.json\n\n")
    }

    @Test func aRecordingsLiveWordsAreEventsWithAllItsWordsSoFar() throws {
        let fixture = try LibraryFixture()
        let events = try #require(StoreEvents(fixture.location))
        let files = LiveWordsFiles(location: fixture.location)
        let id = ItemID.random()
        func hear(_ text: String, at start: Double) throws {
            var w = JSONWriter()
            TranscriptCodec.write(.init(start: start, end: start + 1, text: text), to: &w)
            w.raw("\n")
            let handle = try #require(FileHandle(forWritingAtPath: files.words(id)))
            try handle.seekToEnd()
            handle.write(Data(w.bytes))
            try handle.close()
        }
        #expect(events.poll() == [])
        try FileManager.default.createDirectory(atPath: files.directory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: files.words(id), contents: nil))
        try hear("hello there", at: 0.5)
        // cache/live/ was made meanwhile: its words are news all the same.
        #expect(events.poll() == [.words(uuid: "\(id)", text: "hello there")])
        try hear("general budget", at: 2)
        #expect(events.poll() == [.words(uuid: "\(id)", text: "hello there general budget")])
        #expect(events.poll() == [])
        #expect(
            StoreEvents.Event.words(uuid: "\(id)", text: "a \"b\"").text
                == "event: words\ndata: {\"uuid\": \"\(id)\", \"text\": \"a \\\"b\\\"\"}\n\n")
    }
}

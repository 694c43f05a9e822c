import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import Testing

/// Each `/api/` route against the CLI's `--json` on the same store: byte for byte.
@Suite struct APIRouteTests {
    /// (route with its query, the CLI command that must print the same bytes)
    static let pairs: [(String, [String])] = [
        ("/api/ls", ["ls", "/", "--json"]),
        ("/api/ls?path=/Talks", ["ls", "/Talks", "--json"]),
        ("/api/ls?path=Talks/budget+talk", ["ls", "/Talks/budget talk", "--json"]),
        ("/api/ls?path=/Talks&sort=date&reverse=1", ["ls", "/Talks", "--sort", "date", "--reverse", "--json"]),
        ("/api/ls?path=/Talks&sort=size", ["ls", "/Talks", "--sort", "size", "--json"]),
        ("/api/ls?sort=duration&reverse=0", ["ls", "/", "--sort", "duration", "--json"]),
        ("/api/info?path=/Talks/budget%20talk", ["info", "/Talks/budget talk", "--json"]),
        ("/api/info?path=/Talks", ["info", "/Talks", "--json"]),
        ("/api/tree?path=/", ["tree", "/", "--json"]),
        ("/api/tree?path=/Talks/Deep%20dir", ["tree", "/Talks/Deep dir", "--json"]),
        ("/api/marks?path=/Talks/budget%20talk", ["marks", "/Talks/budget talk", "--json"]),
        ("/api/find?path=/&text=budget", ["find", "/", "--text", "budget", "--json"]),
        ("/api/find?text=thought", ["find", "/", "--text", "thought", "--json"]),
        ("/api/find?path=/Talks&tag=work&tag=q3", ["find", "/Talks", "--tag", "work", "--tag", "q3", "--json"]),
        ("/api/find?type=recording", ["find", "/", "--type", "recording", "--json"]),
        ("/api/find?name=%C3%BC*", ["find", "/", "--name", "ü*", "--json"]),
        ("/api/find?iname=BUDGET*&longer=1", ["find", "/", "--iname", "BUDGET*", "--longer", "1", "--json"]),
        ("/api/find?after=2000-01-01&shorter=5m", ["find", "/", "--after", "2000-01-01", "--shorter", "5m", "--json"]),
        // A first visit's token is the token check's, not the route's parameter.
        ("/api/find?text=budget&token=abc", ["find", "/", "--text", "budget", "--json"]),
        ("/api/info?path=/Talks&token=abc", ["info", "/Talks", "--json"]),
    ]

    @Test func eachRouteGivesWhatTheCLIGives() async throws {
        let fixture = try LibraryFixture()
        try await fixture.app().test(.router) { client in
            for (uri, command) in Self.pairs {
                let cli = try fixture.succeed(command)
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                    let body = Data(buffer: response.body)
                    #expect(
                        body == cli.stdout,
                        "\(uri)\nserver: \(String(decoding: body, as: UTF8.self))\ncli: \(String(decoding: cli.stdout, as: UTF8.self))"
                    )
                    #expect(!body.isEmpty)
                }
            }
        }
    }

    /// A missing item is 404, a malformed request 400, each one JSON line naming what and why.
    @Test func errorsAreJSONWithTheirStatus() async throws {
        let fixture = try LibraryFixture()
        let cases: [(String, HTTPResponse.Status, String)] = [
            ("/api/ls?path=/nowhere", .notFound, "/nowhere: "),
            ("/api/info?path=@ffffffff", .notFound, "@ffffffff: "),
            ("/api/find?path=/nowhere&text=x", .notFound, "/nowhere: "),
            ("/api/marks?path=/Talks", .badRequest, "/Talks: is a folder"),
            ("/api/find?type=thing", .badRequest, "type: "),
            ("/api/find?after=someday", .badRequest, "--after someday: not a date"),
            ("/api/find?colour=red", .badRequest, "colour: find has no such parameter"),
            ("/api/ls?path=/Talks&colour=red", .badRequest, "colour: ls has no such parameter"),
            ("/api/info?path=/Talks&depth=2", .badRequest, "depth: info has no such parameter"),
            ("/api/tree?path=/&sort=name", .badRequest, "sort: tree has no such parameter"),
            ("/api/marks?path=/Talks/budget%20talk&x", .badRequest, "x: marks has no such parameter"),
            ("/api/info?path=@1", .badRequest, "@1: "),
            ("/api/rm?path=/Talks", .notFound, "/api/rm: no such route"),
            ("/api/ls?sort=colour", .badRequest, "sort: 'colour' is not one of"),
            ("/api/transcript?path=/Talks", .badRequest, "/Talks: is a folder"),
            ("/api/transcript?path=/Talks/budget%20talk", .notFound, "/Talks/budget talk: has no transcript"),
            ("/api/transcript?path=/nowhere", .notFound, "/nowhere: "),
        ]
        try await fixture.app().test(.router) { client in
            for (uri, status, prefix) in cases {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri)")
                    let object =
                        try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                    let message = try #require(object?["error"], "\(uri)")
                    #expect(message.hasPrefix(prefix), "\(uri): \(message)")
                    #expect(object?.count == 1)
                }
            }
        }
    }

    /// `/api/transcript` is `transcript --format json`: the JSON kept in transcripts/UUID.json.
    @Test func transcriptIsTheCLIsJSON() async throws {
        let fixture = try LibraryFixture()
        let engine = fixture.home + "/engine"
        try Data("#!/bin/sh\nprintf '1\\n00:00:00,000 --> 00:00:01,200\\nsome words\\n'\n".utf8)
            .write(to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        try fixture.succeed("transcribe", "/Talks/budget talk", "--engine", engine)
        let cli = try fixture.succeed("transcript", "/Talks/budget talk", "--format", "json").stdout
        #expect(String(decoding: cli, as: UTF8.self).contains("\"some words\""))
        try await fixture.app().test(.router) { client in
            for uri in ["/api/transcript?path=/Talks/budget%20talk", "/api/transcript?path=Talks/budget+talk"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(Data(buffer: response.body) == cli, "\(uri)")
                }
            }
        }
    }

    /// A recording with a transcript says so in its list entry (`"transcribed": true`, the
    /// page's mark), in `ls --json` and `/api/ls` alike; one without has no such key.
    @Test func aTranscribedRecordingIsMarked() async throws {
        let fixture = try LibraryFixture()
        func entries(_ data: Data) throws -> [String: [String: Any]] {
            let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0) })
        }
        let before = try entries(fixture.succeed("ls", "/Talks", "--json").stdout)
        #expect(before["budget talk"] != nil && before["budget talk"]?["transcribed"] == nil)
        let engine = fixture.home + "/engine"
        try Data("#!/bin/sh\nprintf '1\\n00:00:00,000 --> 00:00:01,200\\nsome words\\n'\n".utf8)
            .write(to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        try fixture.succeed("transcribe", "/Talks/budget talk", "--engine", engine)
        let cli = try fixture.succeed("ls", "/Talks", "--json").stdout
        try await fixture.app().test(.router) { client in
            try await client.execute(uri: "/api/ls?path=/Talks", method: .get) { response in
                #expect(Data(buffer: response.body) == cli)
            }
        }
        let listed = try entries(cli)
        #expect(listed["budget talk"]?["transcribed"] as? Bool == true)
        #expect(listed["Deep dir"]?["transcribed"] == nil)
        let other = try entries(fixture.succeed("ls", "/Talks/Deep dir", "--json").stdout)
        #expect(other["ünïcode & more"]?["transcribed"] == nil)
    }

    /// Each request opens the library again: another process's change is in the next answer.
    @Test func anotherProcessChangeIsSeen() async throws {
        let fixture = try LibraryFixture()
        try await fixture.app().test(.router) { client in
            let before = try await client.execute(uri: "/api/ls?path=/", method: .get) { Data(buffer: $0.body) }
            #expect(!String(decoding: before, as: UTF8.self).contains("Later"))
            try fixture.succeed("mkdir", "/Later")
            let after = try await client.execute(uri: "/api/ls?path=/", method: .get) { Data(buffer: $0.body) }
            #expect(after == (try fixture.succeed("ls", "/", "--json").stdout))
            #expect(String(decoding: after, as: UTF8.self).contains("\"/Later\""))
        }
    }
}

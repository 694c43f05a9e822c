import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import Testing

/// A recording whose audio is not here, as the page finds it: `/audio/<uuid>` says why and
/// where its copies are (409), `/api/info` still has what store.json keeps of it, and
/// `POST /api/get` brings it, as `recnotes get` does; and the routes a page needs when another
/// process changed what it shows (a note changed since it was read, a recording trashed).
@Suite struct AbsentAudioRouteTests {
    static let talk = "/Talks/budget talk"

    func object(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    /// A file lost from audio/ (no link left) and a link whose content is elsewhere (what
    /// `drop` leaves, `ls -l`'s "not here") are both 409, each saying which; neither is
    /// "no recording has this UUID". `info` keeps the stored level and waveform.
    @Test func audioNotHereIs409() async throws {
        let fixture = try LibraryFixture()
        let uuid = try fixture.uuid(Self.talk)
        let audioPath = try fixture.audioPath(Self.talk)
        let stored = try object(ByteBuffer(data: try fixture.succeed("info", Self.talk, "--json").stdout))
        let waveform = try #require(stored["waveform"] as? String)
        let peak = try #require(stored["peakDBFS"] as? Double)
        try FileManager.default.removeItem(atPath: audioPath)
        #expect(String(decoding: try fixture.succeed("ls", "-l", "/Talks").stdout, as: UTF8.self).contains("missing"))
        try await fixture.app().test(.router) { client in
            try await client.execute(uri: "/audio/" + uuid, method: .get) { response in
                #expect(response.status == .conflict, "\(String(buffer: response.body))")
                let body = try object(response.body)
                #expect(body["error"] as? String == "\(Self.talk): its audio file is missing from the store")
                #expect(body["copies"] as? [String] == [])
            }
            try FileManager.default.createSymbolicLink(
                atPath: audioPath, withDestinationPath: fixture.store + "/.git/annex/objects/elsewhere")
            try await client.execute(uri: "/audio/" + uuid, method: .get) { response in
                #expect(response.status == .conflict, "\(String(buffer: response.body))")
                let error = try object(response.body)["error"] as? String
                #expect(error?.hasPrefix("\(Self.talk): the audio is not on this machine") == true, "\(error ?? "")")
            }
            try await client.execute(uri: "/api/info?path=@" + uuid, method: .get) { response in
                let info = try object(response.body)
                #expect(info["size"] is NSNull)
                #expect(info["waveform"] as? String == waveform)
                #expect(info["peakDBFS"] as? Double == peak)
            }
        }
        let info = String(decoding: try fixture.succeed("info", Self.talk).stdout, as: UTF8.self)
        #expect(info.contains("not here") && info.contains("level:") && info.contains(waveform), "\(info)")
    }

    /// In a store that syncs, a dropped recording's 409 names the remote that holds it, and
    /// `POST /api/get` brings it back, so that `/audio/` serves it again.
    @Test func getBringsDroppedAudioBack() async throws {
        let fixture = try LibraryFixture()
        let uuid = try fixture.uuid(Self.talk)
        let audioPath = try fixture.audioPath(Self.talk)
        let file = try Data(contentsOf: URL(fileURLWithPath: audioPath))
        let access = Access(host: "127.0.0.1", port: 0, token: nil)
        let header: HTTPFields = [Server.writeTokenField: access.writeToken]
        try await fixture.app(access: access).test(.router) { client in
            try await client.execute(uri: "/api/get?path=@" + uuid, method: .post, headers: header) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("not set up for sync"))
            }
        }
        try fixture.succeed("sync", "init", "--name", "laptop")
        try fixture.succeed("sync", "remote", "add", "hub", fixture.home + "/hub")
        try fixture.succeed("sync")
        try fixture.succeed("drop", Self.talk)
        #expect(!FileManager.default.fileExists(atPath: audioPath))
        try await fixture.app(access: access).test(.router) { client in
            try await client.execute(uri: "/audio/" + uuid, method: .get) { response in
                #expect(response.status == .conflict, "\(String(buffer: response.body))")
                let body = try object(response.body)
                #expect(body["copies"] as? [String] == ["hub"])
                #expect((body["error"] as? String)?.contains("(it is on hub)") == true, "\(body)")
            }
            try await client.execute(uri: "/api/get?path=@" + uuid, method: .post, headers: header) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let items = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                #expect(items?.first?["size"] as? Int == file.count)
            }
            try await client.execute(uri: "/audio/" + uuid, method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == file)
            }
        }
    }

    /// A note saved with the version it was read at: refused (409, nothing written) once
    /// another process changed it, taken while it is unchanged.
    @Test func aNoteChangedSinceItWasReadIsRefused() async throws {
        let fixture = try LibraryFixture()
        let read = "the quarterly budget, first draft"
        let version = LibraryAPI.noteVersion(read)
        #expect(version.count == 16)
        #expect(LibraryAPI.noteVersion("") == "cbf29ce484222325")
        let access = Access(host: "127.0.0.1", port: 0, token: nil)
        let header: HTTPFields = [Server.writeTokenField: access.writeToken]
        let uri = "/api/note?path=/Talks/budget%20talk&version=\(version)"
        try fixture.succeed("note", Self.talk, "--set", "changed in a shell")
        try await fixture.app(access: access).test(.router) { client in
            try await client.execute(uri: uri, method: .post, headers: header, body: ByteBuffer(string: "mine")) {
                response in
                #expect(response.status == .conflict, "\(String(buffer: response.body))")
                #expect(String(buffer: response.body).contains("changed elsewhere"))
            }
            #expect(
                String(decoding: try fixture.succeed("note", Self.talk).stdout, as: UTF8.self) == "changed in a shell\n"
            )
            let now = LibraryAPI.noteVersion("changed in a shell")
            try await client.execute(
                uri: "/api/note?path=/Talks/budget%20talk&version=\(now)", method: .post, headers: header,
                body: ByteBuffer(string: "mine")
            ) { response in #expect(response.status == .ok, "\(String(buffer: response.body))") }
        }
        #expect(String(decoding: try fixture.succeed("note", Self.talk).stdout, as: UTF8.self) == "mine\n")
    }

    /// `info` of a recording removed to the trash says so, for a page still open on it.
    @Test func aTrashedRecordingsInfoSaysSo() async throws {
        let fixture = try LibraryFixture()
        let uuid = try fixture.uuid(Self.talk)
        try fixture.succeed("rm", Self.talk)
        try await fixture.app().test(.router) { client in
            try await client.execute(uri: "/api/info?path=@" + uuid, method: .get) { response in
                #expect(response.status == .notFound)
                let body = try object(response.body)
                #expect(body["inTrash"] as? Bool == true)
                #expect(body["error"] as? String == "@\(uuid): moved to the trash from \(Self.talk)")
            }
            try await client.execute(uri: "/api/info?path=@ffffffff-ffff-4fff-bfff-ffffffffffff", method: .get) {
                response in
                #expect(response.status == .notFound)
                let body = try object(response.body)
                #expect(body["inTrash"] == nil)
            }
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import RecCore
import RecServe
import RecStore
import RecValues
import Testing

/// `POST /api/recording-…`: a recording made in the page, sent in chunks at byte offsets.
/// What a chunk sent twice, a chunk past the end, a stop before all the audio and a stop asked
/// twice do; markers; Cancel to the trash; undo; and a recording whose page never came back.
@Suite struct PageRecordingRouteTests {
    static let id = "5f0c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b"

    /// `seconds` of a 301 Hz tone at 48 kHz, as the page sends it: 16-bit little-endian. (Half
    /// a second of it sent twice would be out of phase with the rest.)
    static func tone(seconds: Double, from start: Int = 0) -> [UInt8] {
        let frames = Int(seconds * 48_000)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * 2)
        for n in start..<(start + frames) {
            let value = Int16(9000 * sin(2 * Double.pi * 301 * Double(n) / 48_000))
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        return bytes
    }

    static func object(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: buffer))) as? [String: Any] ?? [:]
    }

    @Test func chunksAtOffsetsBecomeOneRecordingWithItsMarkers() async throws {
        let fixture = try LibraryFixture()
        let access = Access(host: "127.0.0.1", port: 0, token: nil)
        let header: HTTPFields = [Server.writeTokenField: access.writeToken]
        let first = Self.tone(seconds: 1)
        let second = Self.tone(seconds: 1, from: 48_000)
        let id = Self.id
        try await fixture.app(access: access).test(.router) { client in
            func post(_ uri: String, _ body: [UInt8] = []) async throws -> (HTTPResponse.Status, [String: Any]) {
                try await client.execute(
                    uri: uri, method: .post, headers: header, body: ByteBuffer(bytes: body)
                ) { ($0.status, Self.object($0.body)) }
            }
            var (status, answer) = try await post("/api/recording-start?id=\(id)&path=/Talks&rate=48000&channels=1")
            #expect(status == .ok, "\(answer)")
            #expect(answer["received"] as? Int == 0)
            #expect((answer["name"] as? String)?.hasPrefix("Recording ") == true, "\(answer)")
            // Started again (its answer lost): the same recording.
            (status, answer) = try await post("/api/recording-start?id=\(id)&path=/Talks&rate=48000&channels=1")
            #expect(status == .ok && answer["received"] as? Int == 0, "\(answer)")
            (status, answer) = try await post("/api/recording-audio?id=\(id)&offset=0", first)
            #expect(status == .ok && answer["received"] as? Int == first.count, "\(answer)")
            // The same chunk again adds nothing.
            (status, answer) = try await post("/api/recording-audio?id=\(id)&offset=0", first)
            #expect(status == .ok && answer["received"] as? Int == first.count, "\(answer)")
            // A chunk past the end would leave a gap: 409, with where to send from.
            (status, answer) = try await post("/api/recording-audio?id=\(id)&offset=\(first.count + 2)", second)
            #expect(status == .conflict && answer["received"] as? Int == first.count, "\(answer)")
            (status, answer) = try await post("/api/recording-mark?id=\(id)&at=0.5&label=first+thought")
            #expect(status == .ok && answer["markers"] as? Int == 1, "\(answer)")
            // A stop before all the audio is here: 409, and nothing is saved.
            (status, answer) = try await post("/api/recording-stop?id=\(id)&frames=96000&name=from+the+phone")
            #expect(status == .conflict && answer["received"] as? Int == first.count, "\(answer)")
            // The second chunk overlapping the first by half a second: only the rest is new.
            let overlap = Array(first[(first.count / 2)...]) + second
            (status, answer) = try await post("/api/recording-audio?id=\(id)&offset=\(first.count / 2)", overlap)
            #expect(status == .ok && answer["received"] as? Int == first.count + second.count, "\(answer)")
            (status, answer) = try await post("/api/recording-mark?id=\(id)&at=1.5")
            (status, answer) = try await post("/api/recording-stop?id=\(id)&frames=96000&name=from+the+phone")
            #expect(status == .ok, "\(answer)")
            // Stopped again (its answer lost): the same item.
            let again = try await client.execute(
                uri: "/api/recording-stop?id=\(id)&frames=96000&name=from+the+phone", method: .post, headers: header
            ) { response in
                (
                    response.status,
                    (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [[String: Any]]
                )
            }
            #expect(again.0 == .ok && again.1?.first?["path"] as? String == "/Talks/from the phone", "\(again)")
            // No longer in progress.
            let gone = try await client.execute(uri: "/api/recording?id=\(id)", method: .get) { $0.status }
            #expect(gone == .notFound)
        }
        let info = try #require(
            try JSONSerialization.jsonObject(with: fixture.succeed("info", "/Talks/from the phone", "--json").stdout)
                as? [String: Any])
        #expect(info["uuid"] as? String == id)
        #expect(info["format"] as? String == "opus", "\(info)")
        #expect(abs((info["duration"] as? Double ?? 0) - 2) < 0.001, "\(info)")
        // Its audio is the samples sent, in order: the tone goes on across the chunks' seam.
        let wav = fixture.home + "/out.wav"
        try fixture.succeed("export", "/Talks/from the phone", wav)
        let exported = try Data(contentsOf: URL(fileURLWithPath: wav))
        let data = try #require(exported.range(of: Data("data".utf8)))
        let samples = exported[(data.upperBound + 4)...].withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let sent = (first + second).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(samples.count == sent.count)
        // Each half second against the tone sent: Opus changes the samples, not their phase.
        for start in stride(from: 0, to: min(samples.count, sent.count) - 24_000 + 1, by: 24_000) {
            var dot = 0.0
            var a = 0.0
            var b = 0.0
            for n in start..<(start + 24_000) {
                dot += Double(samples[n]) * Double(sent[n])
                a += Double(samples[n]) * Double(samples[n])
                b += Double(sent[n]) * Double(sent[n])
            }
            #expect(dot / (a * b).squareRoot() > 0.9, "at \(start)")
        }
        let marks = try #require(
            try JSONSerialization.jsonObject(with: fixture.succeed("marks", "/Talks/from the phone", "--json").stdout)
                as? [[String: Any]])
        #expect(marks.compactMap { $0["frame"] as? Int } == [24_000, 72_000], "\(marks)")
        #expect(marks.first?["label"] as? String == "first thought")
        // Analysed as `record` saves: speech regions and loudness are there.
        let listed = String(decoding: try fixture.succeed("ls", "/Talks", "--json").stdout, as: UTF8.self)
        #expect(listed.contains("from the phone"), "\(listed)")
        // In the history, and undo takes it back.
        let history = String(decoding: try fixture.succeed("history", "--json").stdout, as: UTF8.self)
        #expect(history.contains("a recording made in the page, saved as from the phone"), "\(history)")
        try fixture.succeed("undo")
        let after = String(decoding: try fixture.succeed("ls", "/Talks", "--json").stdout, as: UTF8.self)
        #expect(!after.contains("from the phone"), "\(after)")
        // Its files in incoming/ are gone.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: fixture.store + "/incoming")) ?? []
        #expect(left.isEmpty, "\(left)")
    }

    @Test func cancelGoesToTheTrashAndNothingRecordedIsNothingSaved() async throws {
        let fixture = try LibraryFixture()
        let access = Access(host: "127.0.0.1", port: 0, token: nil)
        let header: HTTPFields = [Server.writeTokenField: access.writeToken]
        let empty = "0a0b0c0d-0000-4000-8000-000000000001"
        try await fixture.app(access: access).test(.router) { client in
            func post(_ uri: String, _ body: [UInt8] = []) async throws -> HTTPResponse.Status {
                try await client.execute(uri: uri, method: .post, headers: header, body: ByteBuffer(bytes: body)) {
                    $0.status
                }
            }
            // A write by GET (a link another site could make a browser follow) is no route.
            let byGet = try await client.execute(uri: "/api/recording-start?id=\(empty)", method: .get) { $0.status }
            #expect(byGet == .notFound)
            let started = try await client.execute(uri: "/api/recording?id=\(empty)", method: .get) { $0.status }
            #expect(started == .notFound)
            #expect(try await post("/api/recording-start?id=\(Self.id)") == .ok)
            #expect(try await post("/api/recording-audio?id=\(Self.id)&offset=0", Self.tone(seconds: 0.5)) == .ok)
            #expect(try await post("/api/recording-cancel?id=\(Self.id)") == .ok)
            #expect(try await post("/api/recording-start?id=\(empty)") == .ok)
            #expect(try await post("/api/recording-stop?id=\(empty)&frames=0") == .notFound)
            // Refused: no token, a bad UUID, a rate the default format cannot store.
            let unsigned = try await client.execute(uri: "/api/recording-start?id=\(empty)", method: .post) {
                $0.status
            }
            #expect(unsigned == .forbidden)
            #expect(try await post("/api/recording-start?id=nope") == .badRequest)
            #expect(try await post("/api/recording-start?id=\(empty)&rate=44100") == .badRequest)
        }
        let trash = String(decoding: try fixture.succeed("trash", "ls", "--json").stdout, as: UTF8.self)
        #expect(trash.contains(Self.id), "\(trash)")
        let listed = String(decoding: try fixture.succeed("ls", "/", "--json").stdout, as: UTF8.self)
        #expect(!listed.contains(Self.id) && !listed.contains(empty), "\(listed)")
    }

    @Test func aRecordingWhosePageNeverCameBackIsSavedWithWhatArrived() async throws {
        let fixture = try LibraryFixture()
        let recordings = PageRecordings(location: fixture.location)
        let id = try #require(ItemID(Self.id))
        let root = try #require(ItemID("00000000-0000-0000-0000-000000000000"))
        _ = try recordings.start(
            id, parent: root, name: "Recording from a phone", sampleRate: 48_000, channels: 1,
            started: .now())
        _ = try recordings.append(id, offset: 0, bytes: Self.tone(seconds: 1.25))
        _ = try recordings.mark(id, seconds: 0.75, label: "said twice")
        // Heard from a minute ago: not yet abandoned by the day's rule.
        #expect(recordings.saveAbandoned().isEmpty)
        let later = Timestamp(millisecondsSinceEpoch: Timestamp.now().millisecondsSinceEpoch + 25 * 3_600_000)
        let notes = recordings.saveAbandoned(now: later)
        #expect(notes.count == 1 && notes[0].contains("its page did not come back"), "\(notes)")
        let info = try #require(
            try JSONSerialization.jsonObject(
                with: fixture.succeed("info", "/Recording from a phone (from the page)", "--json").stdout)
                as? [String: Any])
        #expect(abs((info["duration"] as? Double ?? 0) - 1.25) < 0.001, "\(info)")
        let history = String(decoding: try fixture.succeed("history", "--json").stdout, as: UTF8.self)
        #expect(history.contains("its page did not come back"), "\(history)")
        let marks = String(
            decoding: try fixture.succeed("marks", "/Recording from a phone (from the page)", "--json").stdout,
            as: UTF8.self)
        #expect(marks.contains("said twice"), "\(marks)")
        #expect(recordings.all().isEmpty)
    }
}

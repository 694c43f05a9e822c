import Foundation
import RecCore
import RecSystem
import Testing

/// Live words of a recording made in the served page: with Whisper installed, the server
/// starts a transcriber when the page starts recording, the words come through the event
/// stream while the audio arrives, and the transcript is saved with the recording. The
/// transcriber is not the server's child to lose: a restart in the middle costs no words.
/// The audio is LibriVox speech sent as the page sends it (the routes, 48 kHz mono).
@Suite("serve: live words of a recording made in the page", .serialized)
struct ServePageLiveWordsTests {
    static let clip = LiveWordsTests.librivox + "0870.wav"

    /// An SSE stream read by curl into a file, until stopped.
    final class EventStream {
        let process = Process()
        let file: String

        init(url: String, file: String) throws {
            self.file = file
            FileManager.default.createFile(atPath: file, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-sN", "--max-time", "300", url + "api/events"]
            process.standardOutput = FileHandle(forWritingAtPath: file)
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            try process.run()
        }

        var text: String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }
    }

    static func post(_ server: ServeProcess, _ route: String, _ query: String, body: [Int16] = []) throws -> (
        status: String, body: String
    ) {
        let session = try ServeTests.curl(server.url + "api/session")
        let token = try #require(
            (try JSONSerialization.jsonObject(with: Data(session.body.utf8)) as? [String: Any])?["writeToken"]
                as? String)
        let upload = NSTemporaryDirectory() + "recnotes-page-chunk-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: upload) }
        try body.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: URL(fileURLWithPath: upload))
        return try ServeTests.curl(
            server.url + "api/\(route)?\(query)",
            ["-X", "POST", "-H", "X-Recnotes-Token: \(token)", "--data-binary", "@" + upload])
    }

    static func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
    }

    @Test(.enabled(if: WhisperTests.available, "needs the wheels and pocketsphinx-testdata (scripts/install-deps.sh)"))
    func wordsComeWhileThePageRecordsAndTheTranscriptIsSavedWithIt() throws {
        let sandbox = try Sandbox()
        try WhisperTests.install(into: sandbox.store)
        let data = try #require(FileManager.default.contents(atPath: Self.clip))
        let speech = data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        // At 48 kHz, as the page sends it, with two seconds of quiet after it so that its end
        // is heard while the recording goes on.
        let samples = speech.flatMap { [$0, $0, $0] } + [Int16](repeating: 0, count: 2 * 48_000)
        let half = samples.count / 2 / 48_000 * 48_000
        let id = UUID().uuidString.lowercased()
        let environment = ["RECNOTES_TRANSCRIBER": "", "RECNOTES_LIVE_WORDS": "on"]
        var server = try ServeProcess(sandbox, environment: environment)
        let started = try Self.post(server, "recording-start", "id=\(id)&path=/&rate=48000&channels=1")
        #expect(started.status == "200", "\(started.body)")
        func send(_ range: Range<Int>) throws {
            for from in stride(from: range.lowerBound, to: range.upperBound, by: 48_000) {
                let chunk = Array(samples[from..<min(from + 48_000, range.upperBound)])
                let sent = try Self.post(server, "recording-audio", "id=\(id)&offset=\(from * 2)", body: chunk)
                #expect(sent.status == "200", "\(sent.body)")
            }
        }
        try send(0..<half)
        // The server restarts in the middle: the transcriber goes on without it.
        #expect(server.stop() != nil)
        server = try ServeProcess(sandbox, environment: environment)
        let events = try EventStream(url: server.url, file: sandbox.root + "/events")
        try send(half..<samples.count)
        let heard = Self.waitFor(60) { events.text.contains("event: words") && events.text.contains("Dashwood") }
        #expect(heard, "\(events.text)\n\(server.stderr)")
        #expect(events.text.contains("\"uuid\": \"\(id)\""), "\(events.text)")
        let stopped = try Self.post(server, "recording-stop", "id=\(id)&frames=\(samples.count)&name=memo")
        #expect(stopped.status == "200", "\(stopped.body)")
        let live = sandbox.store + "/cache/live"
        let done = Self.waitFor(120) { ((try? FileManager.default.contentsOfDirectory(atPath: live)) ?? []).isEmpty }
        #expect(done, "\(String(describing: try? FileManager.default.contentsOfDirectory(atPath: live)))")
        let transcript = try sandbox.run("transcript", "/memo")
        #expect(transcript.status == 0, "\(transcript.stderr)")
        #expect(
            transcript.stdout.contains("Dashwood") && transcript.stdout.contains("for them"), "\(transcript.stdout)")
        #expect(Self.waitFor(10) { events.text.contains("event: transcript\ndata: \(id)") }, "\(events.text)")
        _ = server.stop()
    }

    /// A transcriber killed mid-recording costs the recording nothing, and once saved it is
    /// transcribed whole.
    @Test(.enabled(if: WhisperTests.available, "needs the wheels and pocketsphinx-testdata (scripts/install-deps.sh)"))
    func aTranscriberKilledMidRecordingLeavesTheRecordingToBeTranscribedWhole() throws {
        let sandbox = try Sandbox()
        try WhisperTests.install(into: sandbox.store)
        let data = try #require(FileManager.default.contents(atPath: Self.clip))
        let speech = data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let samples = speech.flatMap { [$0, $0, $0] }
        let id = UUID().uuidString.lowercased()
        let server = try ServeProcess(sandbox, environment: ["RECNOTES_TRANSCRIBER": ""])
        #expect(try Self.post(server, "recording-start", "id=\(id)&path=/&rate=48000&channels=1").status == "200")
        let transcriber = try #require(LiveWordsTests.transcribers(of: sandbox.store).first)
        kill(transcriber, SIGKILL)
        #expect(Self.waitFor(10) { LiveWordsTests.transcribers(of: sandbox.store).isEmpty })
        for from in stride(from: 0, to: samples.count, by: 48_000) {
            let chunk = Array(samples[from..<min(from + 48_000, samples.count)])
            #expect(
                try Self.post(server, "recording-audio", "id=\(id)&offset=\(from * 2)", body: chunk).status == "200")
        }
        let stopped = try Self.post(server, "recording-stop", "id=\(id)&frames=\(samples.count)&name=memo")
        #expect(stopped.status == "200", "\(stopped.body)")
        let info = try sandbox.succeed("info", "/memo", "--json").stdout
        let item = try #require(try JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: Any])
        #expect(item["frames"] as? Int == samples.count, "\(info)")
        let transcribed = try Self.waitFor(120) { try sandbox.run("transcript", "/memo").status == 0 }
        #expect(transcribed, "\(server.stderr)")
        #expect(try sandbox.run("transcript", "/memo").stdout.contains("Dashwood"))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: sandbox.store + "/cache/live")) ?? []).isEmpty)
        _ = server.stop()
    }

    /// Without Whisper, a page's recording is made as before: no transcriber, no files in the
    /// cache, no transcript.
    @Test func withoutWhisperThePageRecordsAsBefore() throws {
        let sandbox = try Sandbox()
        let server = try ServeProcess(sandbox)
        let id = UUID().uuidString.lowercased()
        #expect(try Self.post(server, "recording-start", "id=\(id)&path=/&rate=48000&channels=1").status == "200")
        let chunk = [Int16](repeating: 0, count: 48_000)
        #expect(try Self.post(server, "recording-audio", "id=\(id)&offset=0", body: chunk).status == "200")
        #expect(try Self.post(server, "recording-stop", "id=\(id)&frames=48000&name=memo").status == "200")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store + "/cache/live"))
        #expect(try sandbox.run("transcript", "/memo").status != 0)
        _ = server.stop()
    }
}

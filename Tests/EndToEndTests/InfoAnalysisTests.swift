import Foundation
import Testing

/// `info` never decodes the file (an hour of Opus takes 9.3 s to decode). Levels,
/// waveform and speech regions are measured once, when the audio is saved, and kept with
/// the recording in store.json; undo and the trash carry them along.
@Suite("info: the analysis stored with the recording")
struct InfoAnalysisTests {
    /// The `"analysis": {…}` field of the one line of store.json that holds `uuid`.
    static func analysisField(_ store: String, uuid: String) -> String? {
        let text = String(
            decoding: FileManager.default.contents(atPath: store + "/store.json") ?? Data(), as: UTF8.self)
        for line in text.split(separator: "\n") where line.contains("\"uuid\": \"\(uuid)\", \"type\": \"recording\"") {
            guard let start = line.range(of: ", \"analysis\": {") else { return nil }
            return String(line[start.lowerBound...].prefix { $0 != "}" })
        }
        return nil
    }

    @Test("record and import store the analysis; info shows the stored values without decoding")
    func savedWithTheAudio() throws {
        let cli = try AudioCLI()
        let silence = [Int16](repeating: 0, count: 48_000)
        try cli.writeInput(silence + AudioCLI.tone(frames: 48_000))
        #expect(try cli.run("record", "talk", "--format", "wav", "--duration", "2").status == 0)
        let wav = cli.home + "/take.wav"
        #expect(try cli.run("export", "talk", wav).status == 0)
        let imported = try cli.run("import", wav, "--name", "imported", "--format", "flac")
        #expect(imported.status == 0, "\(imported.stderr)")
        let items = try cli.recordings()
        #expect(items.count == 2)
        for item in items {
            let uuid = try #require(item["uuid"] as? String)
            let field = try #require(Self.analysisField(cli.store, uuid: uuid), "\(item)")
            #expect(field.contains("\"waveform\": [") && field.contains("\"speech\": [["), "\(field)")
            // And its loudness (store version 5), in the same pass.
            #expect(field.contains("\"loudness\": {\"integrated\": -"), "\(field)")
        }

        // info reads the stored values: changed by hand, they are what it shows, not what
        // the file holds.
        let talk = try #require(items.first { $0["name"] as? String == "talk" })
        let uuid = try #require(talk["uuid"] as? String)
        let path = cli.store + "/store.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let field = try #require(Self.analysisField(cli.store, uuid: uuid))
        let peak = try #require(field.range(of: #""peak": [^,]*"#, options: .regularExpression))
        text = text.replacingOccurrences(of: field, with: field.replacingCharacters(in: peak, with: "\"peak\": -12.34"))
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let info = try cli.run("info", "talk")
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("level:     peak -12.3 dBFS"), "\(info.stdout)")
        let speech = info.stdout.split(separator: "\n").first { $0.hasPrefix("speech:") } ?? ""
        #expect(speech.hasSuffix("00:01 of 00:02, 1 region"), "\(info.stdout)")
    }

    @Test("rm, undo and trash restore carry the analysis along unchanged")
    func undoAndTrashCarryIt() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 24_000))
        #expect(try cli.run("record", "memo", "--format", "flac", "--duration", "1").status == 0)
        let uuid = try #require(try cli.recordings().first?["uuid"] as? String)
        let stored = try #require(Self.analysisField(cli.store, uuid: uuid))
        #expect(try cli.run("rm", "memo").status == 0)
        #expect(Self.analysisField(cli.store, uuid: uuid) == stored, "the trash entry keeps it")
        #expect(try cli.run("undo").status == 0)
        #expect(Self.analysisField(cli.store, uuid: uuid) == stored, "undo brings it back")
        #expect(try cli.run("rm", "memo").status == 0)
        #expect(try cli.run("trash", "restore", "/memo").status == 0)
        #expect(Self.analysisField(cli.store, uuid: uuid) == stored, "trash restore brings it back")
        #expect(try cli.run("fsck").status == 0)
    }
}

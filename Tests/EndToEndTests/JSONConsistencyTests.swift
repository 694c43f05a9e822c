import Foundation
import RecCore
import Testing

/// The same words for the same things in every JSON recnotes writes.
@Suite("JSON: events and items say the same things the same way")
struct JSONConsistencyTests {
    static func events(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func importAndExportEventsNameSourceAndDestinationAndNoDeviceCounters() throws {
        let cli = try AudioCLI()
        let wav = try PipelineTests.wav(cli, "in.wav", AudioCLI.tone(frames: 96_000))
        let imported = try cli.run("import", wav, "--name", "t", "--progress", "json")
        #expect(imported.status == 0, "\(imported.stderr)")
        let exported = try cli.run("export", "t", cli.home + "/out.flac", "--progress", "json")
        #expect(exported.status == 0, "\(exported.stderr)")
        for (run, source, destination) in [
            (imported, wav, nil as String?), (exported, nil as String?, cli.home + "/out.flac"),
        ] {
            let events = Self.events(run.stdout)
            let started = try #require(events.first { $0["event"] as? String == "started" }, "\(run.stdout)")
            #expect(started["device"] == nil && started["file"] == nil, "\(started)")
            #expect(started["source"] is String && started["destination"] is String, "\(started)")
            if let source { #expect(started["source"] as? String == source) }
            if let destination { #expect(started["destination"] as? String == destination) }
            let finished = try #require(events.first { $0["event"] as? String == "finished" })
            #expect(finished["xruns"] == nil && finished["overruns"] == nil, "\(finished)")
        }
        // Where a device is involved they stay.
        try cli.writeInput(AudioCLI.noise(frames: 48_000))
        let recorded = try cli.run("record", "r", "--duration", "0.5", "--progress", "json")
        let finished = try #require(Self.events(recorded.stdout).first { $0["event"] as? String == "finished" })
        #expect(finished["xruns"] is Int && finished["overruns"] is Int)
        #expect(Self.events(recorded.stdout).first?["device"] is String)
    }

    @Test func itemJSONCarriesTheAudioFilesAbsolutePath() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 48_000))
        #expect(try cli.run("record", "r", "--duration", "0.5").status == 0)
        let item = try #require(try cli.recordings().first)
        let file = try #require(item["file"] as? String)
        let audioPath = try #require(item["audioPath"] as? String, "\(item)")
        #expect(audioPath == cli.store + "/audio/" + file)
        #expect(FileManager.default.fileExists(atPath: audioPath))
        // A relative --store still gives an absolute path.
        let (process, out, _) = cli.process(["--store", "store", "info", "r", "--json"])
        process.currentDirectoryURL = URL(fileURLWithPath: cli.home)
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let info = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(info["audioPath"] as? String == audioPath)
    }
}

import Foundation
import RecCore
import RecSystem
import Testing

/// `record` and `play` through the built binary and the real ALSA API, on file devices.
@Suite("Audio end to end: record, play, stop, recover, errors")
struct AudioEndToEndTests {
    @Test(arguments: ["flac", "wav"])
    func recordIsBitExact(format: String) throws {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 96_000)
        try cli.writeInput(input)
        let result = try cli.run("record", "Exact", "--format", format, "--duration", "1.5", "--progress", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let events = result.lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        #expect(events.first?["event"] as? String == "started")
        #expect(events.last?["event"] as? String == "saved")
        #expect(events.filter { $0["event"] as? String == "progress" }.count == 15)
        let recordings = try cli.recordings()
        #expect(recordings.count == 1)
        let item = try #require(recordings.first)
        #expect(item["name"] as? String == "Exact")
        #expect(item["frames"] as? Int == 72_000)
        #expect(item["format"] as? String == format)
        let file = try #require(item["file"] as? String)
        #expect(Bool(try AudioCLI.decode(cli.store + "/audio/" + file) == Array(input.prefix(72_000))))
        // ls -l shows duration, format and size.
        let ls = try cli.run("ls", "-l")
        #expect(ls.stdout.contains("00:01") && ls.stdout.contains(format) && ls.stdout.contains("KB"))
    }

    @Test func playWithSeekWritesTheSourceFromThatFrame() throws {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 144_000)
        try cli.writeInput(input)
        #expect(try cli.run("record", "src", "--format", "wav", "--duration", "3").status == 0)
        let play = try cli.run("play", "src", "--seek", "0:01.25", "--until", "2.5")
        #expect(play.status == 0, "\(play.stderr)")
        // 1.25 s = frame 60000, up to 2.5 s = frame 120000.
        #expect(Bool(cli.outputSamples() == Array(input[60_000..<120_000])))
        // The position is kept: play with no PATH resumes there (here: the end, so from the start).
        let state = try cli.run("state")
        #expect(state.stdout.contains("\"position\": 2.5"))
    }

    /// The player measures levels only for a display that shows them: `--progress json`'s
    /// events carry the level of what played, whatever other modes skip.
    @Test func playJSONEventsCarryTheLevelPlayed() throws {
        let cli = try AudioCLI()
        let input = AudioCLI.tone(frames: 48_000, amplitude: 0.25)
        try cli.writeInput(input)
        #expect(try cli.run("record", "tone", "--format", "wav", "--duration", "1").status == 0)
        let play = try cli.run("play", "tone", "--from-start", "--progress", "json")
        #expect(play.status == 0, "\(play.stderr)")
        let events = play.lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        let peak = Double(input.map { abs(Int($0)) }.max() ?? 0) / 32768
        let expected = (20 * log10(peak) * 100).rounded() / 100
        let finished = try #require(events.last { $0["event"] as? String == "finished" })
        #expect(finished["peakDBFS"] as? Double == expected, "\(finished)")
        // Every progress event, those of one long chunk of the device too, carries the level of
        // the tone (each tenth of a second holds its peak, give or take a sample's rounding).
        let progress = events.filter { $0["event"] as? String == "progress" }
        #expect(progress.count >= 5)
        for event in progress {
            #expect(abs((event["peakDBFS"] as? Double ?? -200) - expected) < 0.05, "\(event)")
        }
        #expect(Bool(cli.outputSamples() == input))
    }

    @Test func playResumesTheSelectionAndPercentAndFromEndWork() throws {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 96_000)
        try cli.writeInput(input)
        #expect(try cli.run("record", "r", "--format", "flac", "--duration", "2").status == 0)
        #expect(try cli.run("play", "r", "--seek", "50%", "--until", "-0.5s").status == 0)
        #expect(Bool(cli.outputSamples() == Array(input[48_000..<72_000])))
        try? FileManager.default.removeItem(atPath: cli.output)
        // Stopped at 1.5 s: `play` alone resumes there, `--from-start` does not.
        #expect(try cli.run("play").status == 0)
        #expect(Bool(cli.outputSamples() == Array(input[72_000..<96_000])))
        try? FileManager.default.removeItem(atPath: cli.output)
        #expect(try cli.run("play", "--from-start", "--until", "0.5").status == 0)
        #expect(Bool(cli.outputSamples() == Array(input[0..<24_000])))
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStopsAndSaves(signal: Int32) throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 48_000))
        let result = try cli.runUntil(
            "\"progress\"", thenSend: signal, ["record", "Stopped", "--format", "flac", "--progress", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"event\": \"finished\""))
        #expect(result.stdout.contains("\"event\": \"saved\""))
        let item = try #require(try cli.recordings().first)
        #expect(item["name"] as? String == "Stopped")
        let frames = try #require(item["frames"] as? Int)
        #expect(frames >= 4800)
        let file = try #require(item["file"] as? String)
        #expect(try AudioCLI.decode(cli.store + "/audio/" + file).count == frames)
        #expect(try cli.run("state").stdout.contains("\"recording\": null"))
    }

    @Test func sigkillIsRecoveredByTheNextCommand() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 48_000))
        // Killed after at least one sync (a second of audio) has reached the disk.
        let killed = try cli.runUntil(
            "\"seconds\": 1.5", thenSend: SIGKILL, ["record", "Crashed", "--format", "wav", "--progress", "json"])
        #expect(killed.status == SIGKILL)
        #expect(!killed.stdout.contains("saved"))
        let ls = try cli.run("ls")
        #expect(ls.status == 0)
        #expect(ls.stderr.contains("recovered an interrupted recording as /Crashed (recovered)"))
        #expect(ls.stdout.contains("Crashed (recovered)"))
        let item = try #require(try cli.recordings().first)
        let frames = try #require(item["frames"] as? Int)
        #expect(frames >= 48_000)
        let file = try #require(item["file"] as? String)
        let decoded = try AudioCLI.decode(cli.store + "/audio/" + file)
        #expect(decoded.count == frames)
        #expect(Bool(Array(decoded.prefix(48_000)) == AudioCLI.tone(frames: 48_000)))
        // Its levels and waveform are measured as it is saved, as for any recording.
        let stored = String(
            decoding: FileManager.default.contents(atPath: cli.store + "/store.json") ?? Data(), as: UTF8.self)
        #expect(stored.contains("\"analysis\": {"), "\(stored)")
        // Recovered once: the entry is gone and a second command finds nothing to do.
        let again = try cli.run("ls")
        #expect(!again.stderr.contains("recovered"))
        #expect(try cli.recordings().count == 1)
    }

    /// `record --enhance` keeps its choice in the in-progress entry from the start, so that the
    /// recording recovered after a SIGKILL is enhanced, as the saved one would have been.
    @Test func sigkilledEnhancedRecordingIsRecoveredEnhanced() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 48_000))
        let killed = try cli.runUntil(
            "\"seconds\": 1.5", thenSend: SIGKILL,
            ["record", "Crashed", "--enhance", "--format", "wav", "--progress", "json"])
        #expect(killed.status == SIGKILL)
        #expect(!killed.stdout.contains("saved"))
        let ls = try cli.run("ls")
        #expect(ls.stderr.contains("recovered an interrupted recording as /Crashed (recovered)"), "\(ls.stderr)")
        let enhance = try cli.run("enhance", "Crashed (recovered)")
        #expect(enhance.status == 0, "\(enhance.stderr)")
        #expect(enhance.stdout == "/Crashed (recovered): level on, denoise on\n")
        // Without --enhance the recovered recording is not enhanced: the entry carries the choice.
        try cli.writeInput(AudioCLI.tone(frames: 48_000))
        let plain = try cli.runUntil(
            "\"seconds\": 1.5", thenSend: SIGKILL, ["record", "Plain", "--format", "wav", "--progress", "json"])
        #expect(plain.status == SIGKILL)
        #expect(try cli.run("ls").stderr.contains("recovered an interrupted recording as /Plain (recovered)"))
        #expect(try cli.run("enhance", "Plain (recovered)").stdout == "/Plain (recovered): level off, denoise off\n")
    }

    @Test func missingDeviceFailsAndLeavesNothing() throws {
        let cli = try AudioCLI()
        let result = try cli.run("record", "x", "--device", "no_such_pcm", "--duration", "1")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("recnotes: audio device \"no_such_pcm\": cannot open for capture: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try cli.recordings().isEmpty)
        #expect(cli.audioFiles().isEmpty)
        #expect(try cli.run("state").stdout.contains("\"recording\": null"))
        // $RECNOTES_DEVICE is the default device.
        cli.extraEnvironment["RECNOTES_DEVICE"] = "other_missing_pcm"
        let viaEnv = try cli.run("play", "--seek", "1")
        #expect(viaEnv.status == 64)  // nothing selected yet: a usage error before any device
        let rec = try cli.run("record", "y", "--duration", "1")
        #expect(rec.stderr.contains("\"other_missing_pcm\""))
        #expect(rec.status == 1)
    }

    @Test func existingNameIsRefusedBeforeRecording() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 4800))
        #expect(try cli.run("mkdir", "Ideas").status == 0)
        #expect(try cli.run("record", "Ideas/standup", "--duration", "0.1", "--format", "wav").status == 0)
        let again = try cli.run("record", "Ideas/standup", "--duration", "0.1")
        #expect(again.status == 1)
        #expect(again.stderr == "recnotes: Ideas/standup: already exists\n")
        #expect(cli.audioFiles().count == 1)
        // A folder as PATH gets the default name.
        #expect(try cli.run("record", "Ideas", "--duration", "0.1", "--format", "wav").status == 0)
        #expect(try cli.run("ls", "Ideas").stdout.contains("Recording "))
    }

    @Test func corruptAndTruncatedFilesAreErrors() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 96_000))
        #expect(try cli.run("record", "bad", "--format", "flac", "--duration", "2").status == 0)
        #expect(try cli.run("record", "short", "--format", "flac", "--duration", "2").status == 0)
        let items = try cli.recordings()
        func file(_ name: String) throws -> String {
            let item = try #require(items.first { $0["name"] as? String == name })
            return cli.store + "/audio/" + (try #require(item["file"] as? String))
        }
        let bad = try file("bad")
        let short = try file("short")
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: bad))
        let size = try #require(FileSystem.size(short))
        let truncated = try #require(FileManager.default.contents(atPath: short)).prefix(Int(size / 2))
        try truncated.write(to: URL(fileURLWithPath: short))

        let corrupt = try cli.run("play", "bad")
        #expect(corrupt.status == 1)
        // Named by the recording's path, never by its audio file's UUID name.
        #expect(corrupt.stderr.hasPrefix("recnotes: /bad: its audio: cannot read audio: "), "\(corrupt.stderr)")
        #expect(!corrupt.stderr.contains(FileSystem.baseName(of: bad)))
        let cut = try cli.run("play", "short")
        #expect(cut.status == 1)
        #expect(cut.stderr.hasPrefix("recnotes: /short: its audio: cannot decode: "), "\(cut.stderr)")
        #expect(!cut.stderr.contains(FileSystem.baseName(of: short)))
        #expect(cut.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: ["garbage", "", "1:2:3:4", "1:60", "90x", "+5s", "-", "101%", "1e3", "nan", "10", "0:05", "1m1h"])
    func badTimeSpecsAreUsageErrors(spec: String) throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 96_000))
        #expect(try cli.run("record", "r", "--format", "wav", "--duration", "2").status == 0)
        let result = try cli.run("play", "r", "--seek", spec)
        #expect(result.status == 64, "\(spec): \(result.stderr)")
        #expect(result.stderr.hasPrefix("recnotes: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(cli.outputSamples().isEmpty)
        let until = try cli.run("play", "r", "--seek", "1", "--until", "0.5")
        #expect(until.status == 64)
        // The same text as a recording length: 10 and 0:05 are fine there, so 0 stands in.
        let duration = try cli.run("record", "d", "--duration", ["10", "0:05"].contains(spec) ? "0" : spec)
        #expect(duration.status == 64, "--duration \(spec): \(duration.stderr)")
        #expect(cli.audioFiles().count == 1)
    }

    /// As mpv does: a time from the end longer than the recording starts at the beginning.
    @Test func aSeekBeforeTheBeginningStartsAtZeroWithANote() throws {
        let cli = try AudioCLI()
        let source = AudioCLI.noise(frames: 96_000)
        try cli.writeInput(source)
        #expect(try cli.run("record", "r", "--format", "wav", "--duration", "2").status == 0)
        let result = try cli.run("play", "r", "--seek", "-1:00")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "recnotes: play: --seek -1:00: the recording is only 00:00:02.00 long; playing from the start\n")
        #expect(cli.outputSamples() == source)
    }

    @Test func infoShowsLevelsAndASparkline() throws {
        let cli = try AudioCLI()
        // Half a second of tone, then half a second of silence.
        try cli.writeInput(AudioCLI.tone(frames: 24_000) + [Int16](repeating: 0, count: 24_000))
        #expect(try cli.run("record", "half", "--format", "flac", "--duration", "1").status == 0)
        let info = try cli.run("info", "half")
        #expect(info.status == 0)
        #expect(info.stdout.contains("peak -6.0 dBFS"))
        let line = try #require(info.stdout.split(separator: "\n").first { $0.hasPrefix("waveform:") })
        let spark = line.drop { $0 != "▕" }.dropFirst().prefix { $0 != "▏" }
        #expect(spark.count == 60)
        #expect(spark.prefix(29).allSatisfy { $0 == "█" || $0 == "▇" })
        #expect(spark.suffix(29).allSatisfy { $0 == " " })
    }
}

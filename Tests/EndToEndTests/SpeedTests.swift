import Foundation
import RecCore
import Testing

/// `export --speed` and `play --speed`: the tempo changes, the pitch does not,
/// and positions stay in the recording's own time. Counted in samples, on files and on the
/// ALSA file device, through the real SoundTouch library.
@Suite("Speed: export and play with the pitch kept")
struct SpeedTests {
    static let rate = 48_000
    static let soundTouchInstalled = FileManager.default.fileExists(
        atPath: "/usr/lib/x86_64-linux-gnu/libSoundTouchDll.so.1")

    /// A store with `tone`: 2 s of 440 Hz, as WAV.
    static func toneStore() throws -> AudioCLI {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 2 * rate))
        let record = try cli.run("record", "tone", "--format", "wav", "--duration", "2")
        #expect(record.status == 0, "\(record.stderr)")
        return cli
    }

    /// The frequency of a steady tone, from its rising zero crossings (interpolated between
    /// samples), leaving out a tenth of a second at each end.
    static func frequency(_ samples: [Int16]) -> Double {
        let margin = rate / 10
        guard samples.count > 2 * margin + 2 else { return 0 }
        var first: Double?
        var last = 0.0
        var crossings = 0
        for i in (margin + 1)..<(samples.count - margin) where samples[i - 1] < 0 && samples[i] >= 0 {
            let a = Double(samples[i - 1])
            let b = Double(samples[i])
            let at = Double(i - 1) + (-a / (b - a))
            if first == nil { first = at }
            last = at
            crossings += 1
        }
        guard let first, crossings > 1 else { return 0 }
        return Double(crossings - 1) / ((last - first) / Double(rate))
    }

    @Test(.enabled(if: soundTouchInstalled), arguments: [0.5, 1.5, 2])
    func exportKeepsThePitchAndFollowsTheSpeed(speed: Double) throws {
        let cli = try Self.toneStore()
        let out = cli.home + "/out.wav"
        let export = try cli.run("export", "tone", out, "--speed", String(speed))
        #expect(export.status == 0, "\(export.stderr)")
        let samples = try AudioCLI.decode(out)
        let expected = Double(2 * Self.rate) / speed
        #expect(abs(Double(samples.count) - expected) <= expected * 0.03, "\(samples.count) frames, not \(expected)")
        let hz = Self.frequency(samples)
        #expect(abs(hz - 440) <= 440 * 0.02, "\(hz) Hz")
    }

    @Test(.enabled(if: soundTouchInstalled))
    func theSpeedIsWrittenThreeWays() throws {
        let cli = try Self.toneStore()
        var counts: [Int] = []
        for (index, word) in ["1.5", "1.5x", "150%"].enumerated() {
            let out = cli.home + "/out\(index).wav"
            let export = try cli.run("export", "tone", out, "--speed", word)
            #expect(export.status == 0, "\(word): \(export.stderr)")
            counts.append(try AudioCLI.decode(out).count)
        }
        #expect(counts == [64_000, 64_000, 64_000])
    }

    @Test(arguments: ["0.2", "4.5", "0", "-1", "abc", "1.5y", "inf", "nan", "", "1e0", "%", "x", "1..5"])
    func badSpeedsAreRefusedWithTheRange(word: String) throws {
        let cli = try Self.toneStore()
        let out = cli.home + "/out.wav"
        for command in [["export", "tone", out], ["play", "tone"]] {
            let run = try cli.run(command + ["--speed", word])
            #expect(run.status == 64, "\(command[0]) --speed '\(word)': \(run.stderr)")
            #expect(run.stderr.hasPrefix("recnotes: --speed: "), "\(run.stderr)")
            #expect(run.stderr.contains("0.25") && run.stderr.contains("4"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(cli.outputSamples().isEmpty)
    }

    /// At 1× the stretcher is not in the path: the library is not even opened (a missing
    /// one is no error), and the file is the plain export's, byte for byte.
    @Test func atOneTheLibraryIsNotOpened() throws {
        let cli = try Self.toneStore()
        cli.extraEnvironment["RECNOTES_SOUNDTOUCH"] = cli.home + "/missing/libSoundTouchDll.so.1"
        #expect(try cli.run("export", "tone", cli.home + "/plain.flac").status == 0)
        let one = try cli.run("export", "tone", cli.home + "/one.flac", "--speed", "100%")
        #expect(one.status == 0, "\(one.stderr)")
        #expect(
            FileManager.default.contents(atPath: cli.home + "/plain.flac")
                == FileManager.default.contents(atPath: cli.home + "/one.flac"))
        let play = try cli.run("play", "tone", "--speed", "1")
        #expect(play.status == 0, "\(play.stderr)")
        #expect(cli.outputSamples() == AudioCLI.tone(frames: 2 * Self.rate))
    }

    /// SoundTouch (and the libstdc++ it brings) is not mapped by the commands that do not
    /// stretch: the binary does not link it.
    @Test func theBinaryDoesNotLinkTheStretcher() throws {
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["-d", AudioCLI.binary]
        let pipe = Pipe()
        readelf.standardOutput = pipe
        try readelf.run()
        let dynamic = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        #expect(dynamic.contains("(NEEDED)") && dynamic.contains("libsndfile"), "\(dynamic)")
        #expect(!dynamic.lowercased().contains("soundtouch"), "\(dynamic)")
        #expect(!dynamic.contains("libstdc++"), "\(dynamic)")
    }

    @Test func aMissingLibraryIsOneLineAndNothingWritten() throws {
        let cli = try Self.toneStore()
        cli.extraEnvironment["RECNOTES_SOUNDTOUCH"] = cli.home + "/missing/libSoundTouchDll.so.1"
        let out = cli.home + "/out.wav"
        for command in [["export", "tone", out], ["play", "tone"]] {
            let run = try cli.run(command + ["--speed", "2"])
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("recnotes: --speed: cannot load the SoundTouch library"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(cli.outputSamples().isEmpty)
    }

    /// A speed kept from the last playback, with the library gone since: the message names
    /// that speed, which the user did not type, and the way to play without it.
    @Test(.enabled(if: soundTouchInstalled))
    func aKeptSpeedWithoutTheLibraryNamesTheKeptSpeed() throws {
        let cli = try Self.toneStore()
        #expect(try cli.run("play", "tone", "--speed", "1.5").status == 0)
        cli.extraEnvironment["RECNOTES_SOUNDTOUCH"] = cli.home + "/missing/libSoundTouchDll.so.1"
        let run = try cli.run("play", "tone")
        #expect(run.status == 1)
        #expect(
            run.stderr.hasPrefix(
                "recnotes: play: the speed kept from the last playback (1.5×) needs the SoundTouch library"),
            "\(run.stderr)")
        #expect(run.stderr.hasSuffix("; '--speed 1' plays at 1× and forgets it\n"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        let plain = try cli.run("play", "tone", "--speed", "1")
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try cli.run("play", "tone").status == 0)  // and forgotten
    }

    @Test(.enabled(if: soundTouchInstalled))
    func markersAndTranscriptsDoNotGoWithASpeed() throws {
        let cli = try Self.toneStore()
        let markers = try cli.run("export", "tone", "--markers", "json", "--speed", "2")
        #expect(markers.status == 64)
        #expect(markers.stderr.hasPrefix("recnotes: --speed: "))
    }

    /// `play --seek 1 --until 3 --speed 2` plays the recording's seconds 1 to 3 in one
    /// second: frames counted on the file device. The position kept is the recording's.
    @Test(.enabled(if: soundTouchInstalled))
    func playPlaysTheRecordingsTimeFaster() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 4 * Self.rate))
        #expect(try cli.run("record", "tone", "--format", "wav", "--duration", "4").status == 0)
        let play = try cli.run("play", "tone", "--seek", "1", "--until", "3", "--speed", "2", "--progress", "json")
        #expect(play.status == 0, "\(play.stderr)")
        let written = cli.outputSamples()
        #expect(abs(written.count - Self.rate) <= Self.rate * 3 / 100, "\(written.count) frames")
        let hz = Self.frequency(written)
        #expect(abs(hz - 440) <= 440 * 0.02, "\(hz) Hz")
        let events = play.lines.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(events.first?["speed"] as? Double == 2)
        #expect(events.last?["event"] as? String == "finished")
        #expect(events.last?["seconds"] as? Double == 3)
        // Progress counts the recording's time: a tenth of a second of it each, 1.1 to 3.
        #expect(events.filter { $0["event"] as? String == "progress" }.count == 20)
        #expect(try cli.run("state").stdout.contains("\"position\": 3"))
    }

    @Test(.enabled(if: soundTouchInstalled))
    func playAtHalfSpeedTakesTwiceAsLong() throws {
        let cli = try Self.toneStore()
        let play = try cli.run("play", "tone", "--until", "1", "--speed", "0.5x")
        #expect(play.status == 0, "\(play.stderr)")
        let written = cli.outputSamples()
        #expect(abs(written.count - 2 * Self.rate) <= 2 * Self.rate * 3 / 100, "\(written.count) frames")
        let hz = Self.frequency(written)
        #expect(abs(hz - 440) <= 440 * 0.02, "\(hz) Hz")
    }
}

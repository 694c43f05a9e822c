import Foundation
import RecCore
import Testing

/// The speed changed while playing: `recnotes speed` from another shell, the
/// keys at a terminal, and the speed kept for the next `play`. A playback started paused takes
/// the change before the (faster than real time) file device takes anything; one whose device
/// writes into a pipe the test reads is held mid-way, so that a change lands in the middle.
@Suite("Speed control: recnotes speed, keys, the speed kept", .serialized)
struct SpeedControlTests {
    static let rate = 48_000
    typealias Remote = RemoteControlTests

    /// A store with `tone`: 4 s of 440 Hz, as WAV; returns its samples.
    static func toneStore() throws -> (AudioCLI, [Int16]) {
        let cli = try AudioCLI()
        let tone = AudioCLI.tone(frames: 4 * rate)
        try cli.writeInput(tone)
        let record = try cli.run("record", "tone", "--format", "wav", "--duration", "4")
        #expect(record.status == 0, "\(record.stderr)")
        return (cli, tone)
    }

    static func largestStep(_ samples: [Int16]) -> Int {
        zip(samples, samples.dropFirst()).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// The tone played at `speed`: about its length over the speed, no click, its pitch.
    static func expectTone(_ written: [Int16], _ tone: [Int16], speed: Double) {
        let expected = Double(tone.count) / speed
        #expect(abs(Double(written.count) - expected) <= expected * 0.05, "\(written.count) frames at \(speed)×")
        #expect(largestStep(written) <= largestStep(tone) * 5 / 4, "largest step \(largestStep(written))")
        let hz = SpeedTests.frequency(written)
        #expect(abs(hz - 440) <= 440 * 0.02, "\(hz) Hz")
    }

    @Test(arguments: ["5", "0.1", "+5", "-4", "+abc", "-", "+0", "fast", "1e0", "inf"])
    func badSpeedsAreUsageErrorsWithTheRange(word: String) throws {
        let cli = try AudioCLI()
        let run = try cli.run("speed", word)
        #expect(run.status == 64, "speed '\(word)': \(run.stderr)")
        #expect(run.stderr.hasPrefix("recnotes: speed: "), "\(run.stderr)")
        #expect(run.stderr.contains("0.25") && run.stderr.contains("4"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stdout.isEmpty)
    }

    @Test func withNothingPlayingTheSpeedCommandSaysSo() throws {
        let cli = try AudioCLI()
        for word in ["1.5", "+0.25", "-0.25", "100%"] {
            let run = try cli.run("speed", word)
            #expect(run.status == 1, "\(word)")
            #expect(run.stderr == "recnotes: nothing is recording or playing\n", "\(word)")
        }
        #expect(try cli.run("speed").status == 64)
        #expect(try cli.run("speed", "1", "2").status == 64)
    }

    /// Without the stretcher's library a change is refused before it is sent (one line, exit
    /// 1), and the playback goes on at 1×; back to 1× needs no library.
    @Test(.timeLimit(.minutes(1)))
    func aMissingLibraryIsRefusedBeforeSending() throws {
        let (cli, _) = try Self.toneStore()
        cli.extraEnvironment["RECNOTES_SOUNDTOUCH"] = cli.home + "/missing/libSoundTouchDll.so.1"
        let reaper = Remote.Reaper()
        _ = try Remote.background(cli, reaper, ["play", "tone", "--paused"])
        let run = try cli.run("speed", "+0.25")
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("recnotes: speed: cannot load the SoundTouch library"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        let playing = try #require(try Remote.status(cli)?["playing"] as? [String: Any])
        #expect(playing["speed"] as? Double == 1)
        #expect(playing["pending"] as? Int == 0)
        #expect(try cli.run("speed", "1").status == 0)
        #expect(try cli.run("stop").status == 0)
    }

    /// `recnotes speed` reaches a running playback: absolute and relative changes, in order,
    /// each answered once the player plays at it; `status --json` reports it; the audio
    /// plays at it without a click; the next `play` keeps it until `--speed 1`.
    @Test(.enabled(if: SpeedTests.soundTouchInstalled), .timeLimit(.minutes(2)))
    func remoteSpeedReachesThePlayerAndIsKept() throws {
        let (cli, tone) = try Self.toneStore()
        let reaper = Remote.Reaper()
        let log = cli.home + "/play.log"
        // Held in a full pipe once resumed, so that it cannot end before `resume` has seen it
        // resume (on the file device the rest would play in milliseconds).
        let device = PipedOutput(cli)
        _ = try Remote.background(cli, reaper, ["play", "tone", "--paused", "--progress", "json", "--log", log])
        let playing = try #require(try Remote.status(cli)?["playing"] as? [String: Any])
        #expect(playing["speed"] as? Double == 1)

        let two = try cli.run("speed", "2")
        #expect(two.status == 0, "\(two.stderr)")
        #expect(two.stdout.hasPrefix("playing  /tone  00:00:00 / 00:00:04  2×  paused  pid "), "\(two.stdout)")
        #expect((try Remote.status(cli)?["playing"] as? [String: Any])?["speed"] as? Double == 2)
        let up = try cli.run("speed", "+0.25", "--json")
        #expect(up.status == 0, "\(up.stderr)")
        #expect(Remote.object(up.stdout)?["speed"] as? Double == 2.25, "\(up.stdout)")
        for _ in 0..<2 { #expect(try cli.run("speed", "-0.25").status == 0) }
        #expect((try Remote.status(cli)?["playing"] as? [String: Any])?["speed"] as? Double == 1.75)

        let (resume, _, resumeErrors) = cli.process(["resume"])
        try resume.run()
        device.readSlowly { resume.isRunning }
        device.read(atLeast: nil)
        resume.waitUntilExit()
        #expect(
            resume.terminationStatus == 0,
            "\(String(decoding: resumeErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        #expect(try Remote.eventually { try cli.run("status").status == 1 })
        #expect(Remote.eventually { Remote.events(log).last?["event"] as? String == "finished" })
        let speeds = Remote.events(log).filter { $0["event"] as? String == "speed" }.compactMap {
            $0["speed"] as? Double
        }
        #expect(speeds == [2, 2.25, 2, 1.75])
        Self.expectTone(device.samples, tone, speed: 1.75)
        unlink(cli.output)  // the plays below write a file again

        // Kept: the next play is at 1.75× without --speed; --speed 1 plays as it is and resets it.
        let again = try cli.run("play", "tone", "--progress", "json")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.lines.first.flatMap(Remote.object)?["speed"] as? Double == 1.75, "\(again.stdout)")
        Self.expectTone(cli.outputSamples(), tone, speed: 1.75)
        #expect(try cli.run("play", "tone", "--speed", "1").status == 0)
        #expect(cli.outputSamples() == tone)
        #expect(try cli.run("play", "tone").status == 0)
        #expect(cli.outputSamples() == tone)
    }

    /// The file device's output made a pipe the test reads, so that the player is held where
    /// the test stops reading (the pipe full) and a change can be made to land mid-way.
    final class PipedOutput {
        private let fd: Int32
        private(set) var bytes: [UInt8] = []

        init(_ cli: AudioCLI) {
            unlink(cli.output)
            #expect(mkfifo(cli.output, 0o600) == 0)
            // Open first, without waiting for a writer; then blocking reads.
            fd = open(cli.output, O_RDONLY | O_NONBLOCK)
            #expect(fd >= 0)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        }

        deinit { close(fd) }

        /// Reads until `count` bytes have come, or (nil) to the end of the playback.
        func read(atLeast count: Int?) {
            var buffer = [UInt8](repeating: 0, count: 65536)
            var waited = 0
            while count.map({ bytes.count < $0 }) ?? true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                // Before the player has opened its device, a pipe with no writer reads as
                // ended: wait for it (up to 20 s) rather than take that for the end.
                if n == 0, bytes.isEmpty, waited < 2000 {
                    usleep(10_000)
                    waited += 1
                    continue
                }
                if n <= 0 { return }
                bytes += buffer[0..<n]
            }
        }

        /// Waits (up to 20 s) until the pipe is full, so that the player is held in its write.
        func waitUntilFull() {
            for _ in 0..<2000 {
                var queued: Int32 = 0
                // A write larger than PIPE_BUF waits for room once the pipe holds 64 KB; a
                // smaller one, when less than its size is left.
                if ioctl(fd, UInt(FIONREAD), &queued) == 0, queued >= 65536 - 4096 { return }
                usleep(10_000)
            }
        }

        /// Reads a twentieth of a second at a time, pausing between (about 2.5× real time),
        /// while `going` holds and the playback has not ended.
        func readSlowly(while going: () -> Bool = { true }) {
            while going() {
                let before = bytes.count
                read(atLeast: before + 2 * SpeedControlTests.rate / 20)
                if bytes.count == before { return }  // the end of the playback
                usleep(20_000)
            }
        }

        var samples: [Int16] { bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } }
    }

    /// What a playback of `tone` changed from 1× to `speed` at frame `at` (its log's "speed"
    /// event) wrote: at 1× up to the change (and what the device held, at most half a second
    /// more), at `speed` after; no click where it lands; the pitch kept.
    static func expectChange(_ written: [Int16], of tone: [Int16], to speed: Double, at: Int) {
        #expect(at >= rate / 2, "changed at frame \(at)")
        #expect(written.count > rate)
        let low = Double(at) + Double(tone.count - at) / speed
        let high = Double(at + rate / 2) + Double(tone.count - at - rate / 2) / speed
        let count = Double(written.count)
        #expect(count >= low * 0.97 && count <= high * 1.03, "\(written.count) frames, \(low) to \(high)")
        #expect(largestStep(written) <= largestStep(tone) * 5 / 4, "largest step \(largestStep(written))")
        let hz = SpeedTests.frequency(Array(written[(written.count / 2)...]))
        #expect(abs(hz - 440) <= 440 * 0.02, "\(hz) Hz")
    }

    static func speedChanges(_ log: String) -> [[String: Any]] {
        Remote.events(log).filter { $0["event"] as? String == "speed" }
    }

    /// Mid-play, through `recnotes speed`: the player is held mid-way (the pipe full) until
    /// the command is queued, and the change lands after more than a second at 1×. No click
    /// where it lands, the pitch kept, and the rest of the tone takes half its time.
    @Test(.enabled(if: SpeedTests.soundTouchInstalled), .timeLimit(.minutes(1)))
    func remoteSpeedMidPlayHasNoClick() throws {
        let (cli, tone) = try Self.toneStore()
        let reaper = Remote.Reaper()
        let device = PipedOutput(cli)
        let log = cli.home + "/play.log"
        _ = try Remote.background(cli, reaper, ["play", "tone", "--progress", "json", "--log", log])
        device.read(atLeast: 2 * Self.rate)  // a second of 16-bit frames
        device.waitUntilFull()  // the player held, so that the change waits for it
        let (process, out, _) = cli.process(["speed", "2"])
        try process.run()
        #expect(
            try Remote.eventually {
                (try Remote.status(cli)?["playing"] as? [String: Any])?["pending"] as? Int == 1
            })
        // On until `speed` has seen the change applied, before the playback could end.
        device.readSlowly { process.isRunning }
        device.read(atLeast: nil)  // the rest, to the end of the playback
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.contains("  2×  "), "\(printed)")
        #expect(Remote.eventually { Remote.events(log).last?["event"] as? String == "finished" })
        let change = try #require(Self.speedChanges(log).first)
        Self.expectChange(device.samples, of: tone, to: 2, at: try #require(change["frames"] as? Int))
    }

    /// Mid-play, through a key at a terminal: `}` typed while the player is held a second in
    /// (the pipe full) lands while it plays, not only while paused. The test then reads
    /// slowly, so that the key is taken well before the end.
    @Test(
        .enabled(if: TerminalKeysTests.scriptInstalled && SpeedTests.soundTouchInstalled),
        .timeLimit(.minutes(1)))
    func keyMidPlayHasNoClick() throws {
        let (cli, tone) = try Self.toneStore()
        let device = PipedOutput(cli)
        let screen = try TerminalKeysTests.Screen(cli, ["play", "tone", "--progress", "json"], columns: 160)
        // The screen read as it comes, so that the progress lines never fill the terminal and
        // hold the player.
        nonisolated(unsafe) var finished: (status: Int32, screen: String)?
        nonisolated(unsafe) let drained = screen  // read by that thread alone from here on
        let reader = Thread { finished = drained.finish() }
        reader.start()
        device.read(atLeast: 2 * Self.rate)
        drained.type("}")  // input: the reader thread only reads the output
        device.readSlowly()
        #expect(Remote.eventually { finished != nil })
        let (status, text) = try #require(finished)
        #expect(status == 0, "\(text)")
        let events = text.split(whereSeparator: \.isNewline).compactMap { Remote.object(String($0)) }
        let changes = events.filter { $0["event"] as? String == "speed" }
        #expect(changes.count == 1, "\(text)")
        let change = try #require(changes.first)
        #expect(change["speed"] as? Double == 1.25)
        Self.expectChange(device.samples, of: tone, to: 1.25, at: try #require(change["frames"] as? Int))
    }

    /// At a terminal: `}` and `{` step by 0.25, `=` returns to 1×, and the line shows
    /// the speed whenever it is not 1×. Each key is typed once the screen shows the last.
    @Test(
        .enabled(if: TerminalKeysTests.scriptInstalled && SpeedTests.soundTouchInstalled),
        .timeLimit(.minutes(1)))
    func keysChangeTheSpeedAndTheLineShowsIt() throws {
        let (cli, tone) = try Self.toneStore()
        let screen = try TerminalKeysTests.Screen(cli, ["play", "tone", "--paused"], columns: 160)
        #expect(screen.waitFor("{}= speed"))
        #expect(screen.waitFor("paused"))
        screen.type("}")
        #expect(screen.waitFor("1.25×"))
        screen.type("}")
        #expect(screen.waitFor("1.5×"))
        screen.type("{")
        #expect(screen.waitFor("1.25×"))
        screen.type("=")
        #expect(screen.waitFor("❚❚ 00:00:00 / 00:00:04 ["))  // 1×: no speed shown
        screen.type("}}")
        #expect(screen.waitFor("1.5×"))
        screen.type(" ")
        let (status, text) = screen.finish()
        #expect(status == 0, "\(text)")
        Self.expectTone(cli.outputSamples(), tone, speed: 1.5)
        // Kept for the next play.
        let again = try cli.run("play", "tone", "--progress", "json")
        #expect(again.lines.first.flatMap(Remote.object)?["speed"] as? Double == 1.5, "\(again.stdout)")
    }
}

import Foundation
import RecCore
import RecSystem
import RecTestSupport
import Testing

/// Remote control through the view state: a background `record` or `play` follows the
/// `pause`, `resume`, `toggle`, `seek` and `stop` run from other processes.
///
/// Outcomes are made deterministic rather than timed: a playback starts paused, so nothing
/// reaches the (faster than real time) file sink before the seek; waits poll `status` or the
/// process's log with a watchdog; every background pid is killed on the way out.
@Suite("Remote control", .serialized, .tags(.threads))
struct RemoteControlTests {
    static let rate = 48_000

    /// A background job's pid, killed when the test ends whatever happened.
    final class Reaper {
        var pids: [Int32] = []
        deinit { for pid in pids where processIsAlive(pid) { kill(pid, SIGKILL) } }
    }

    /// Polls `condition` until it holds or `timeout` seconds pass (a watchdog, not a timing
    /// check: the timeout is far above anything expected).
    @discardableResult
    static func eventually(timeout: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    static func object(_ text: String) -> [String: Any]? {
        guard let data = text.data(using: .utf8) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// `status --json`, or nil when nothing runs.
    static func status(_ cli: AudioCLI) throws -> [String: Any]? {
        let result = try cli.run("status", "--json")
        return result.status == 0 ? object(result.stdout) : nil
    }

    static func events(_ log: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { object(String($0)) }
    }

    /// Starts a background job; returns its `--json` line, parsed, and registers the pid.
    static func background(_ cli: AudioCLI, _ reaper: Reaper, _ arguments: [String]) throws -> [String: Any] {
        let result = try cli.run(arguments + ["--background", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let job = try #require(object(result.stdout), "\(result.stdout) \(result.stderr)")
        let pid = try #require(job["pid"] as? Int)
        reaper.pids.append(Int32(pid))
        return job
    }

    /// A 20 s noise recording in WAV; returns its samples as stored.
    static func source(_ cli: AudioCLI, name: String = "src", seconds: Int = 20) throws -> [Int16] {
        try cli.writeInput(AudioCLI.noise(frames: seconds * rate, seed: 99))
        let made = try cli.run("record", name, "--format", "wav", "--duration", "\(seconds)")
        #expect(made.status == 0, "\(made.stderr)")
        let item = try #require(try cli.recordings().first { $0["name"] as? String == name })
        return try AudioCLI.decode(cli.store + "/audio/" + (item["file"] as! String))
    }

    @Test func withNothingRunningEveryCommandSaysSo() throws {
        let cli = try AudioCLI()
        _ = try cli.run("mkdir", "Notes")
        let before = try FileManager.default.contentsOfDirectory(atPath: cli.store).sorted()
        for arguments in [
            ["pause"], ["resume"], ["toggle"], ["stop"], ["seek", "5"], ["seek", "-5s"], ["status"],
            ["status", "--json"],
        ] {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            // status --json still prints the object, with both jobs null.
            #expect(
                result.stdout
                    == (arguments == ["status", "--json"] ? "{\"recording\": null, \"playing\": null}\n" : ""),
                "\(arguments)")
            #expect(result.stderr == "recnotes: nothing is recording or playing\n", "\(arguments)")
        }
        // A bad time is a usage error, whatever runs.
        let bad = try cli.run("seek", "soon")
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("recnotes: soon: "), "\(bad.stderr)")
        #expect(bad.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.store).sorted() == before)
    }

    /// `record --background` returns once audio is arriving, not when the process has merely
    /// started: by then the detached recorder has written a progress event with frames in it
    /// (its log is written before the parent is told). On the real-time device, as the
    /// toggles below: the file capture, never ending, made minutes of audio under TSan on a
    /// loaded machine before `stop` came, and saving them took `stop` past its 30 s.
    @Test(.enabled(if: AudioPulseLoopbackTests.pulseInstalled))
    func backgroundRecordingReturnsOnceAudioArrives() throws {
        let cli = try AudioCLI()
        let reaper = Reaper()
        let server = try Self.realTimeDevices(cli)
        defer { server.stop() }
        let log = cli.home + "/record.log"
        _ = try Self.background(
            cli, reaper,
            ["record", "memo", "--device", "pulse_monitor", "--format", "wav", "--progress", "json", "--log", log])
        let captured = Self.events(log).filter { $0["event"] as? String == "progress" }
        #expect(captured.contains { ($0["frames"] as? Int ?? 0) > 0 }, "\(Self.events(log))")
        let stop = try cli.run("stop")
        #expect(stop.stdout == "stopped  recording  /memo\n", "\(stop.stderr)")
    }

    @Test func backgroundPlaybackSeeksSampleExactly() throws {
        let cli = try AudioCLI()
        let reaper = Reaper()
        let samples = try Self.source(cli)
        let log = cli.home + "/play.log"
        let job = try Self.background(cli, reaper, ["play", "src", "--paused", "--progress", "json", "--log", log])
        #expect(job["state"] as? String == "playing")
        #expect(job["path"] as? String == "/src")
        #expect(job["paused"] as? Bool == true)

        // Registered before the parent returned: status sees it at once.
        let first = try #require(try Self.status(cli))
        #expect(first["recording"] is NSNull)
        let playing = try #require(first["playing"] as? [String: Any])
        #expect(playing["paused"] as? Bool == true)
        #expect(playing["position"] as? Double == 0)
        #expect(playing["duration"] as? Double == 20)

        let seek = try cli.run("seek", "12.5")
        #expect(seek.status == 0, "\(seek.stderr)")
        #expect(seek.stdout.hasPrefix("playing  /src  00:00:12 / 00:00:20  paused  pid "), "\(seek.stdout)")
        let moved = try #require(try Self.status(cli)?["playing"] as? [String: Any])
        #expect(moved["position"] as? Double == 12.5)
        #expect(moved["pending"] as? Int == 0)

        let resume = try cli.run("resume", "--json")
        #expect(resume.status == 0, "\(resume.stderr)")
        #expect(Self.object(resume.stdout)?["paused"] as? Bool == false)
        // Playing to the end ends the job and clears its entry.
        #expect(try Self.eventually { try cli.run("status").status == 1 })
        #expect(Self.eventually { Self.events(log).last?["event"] as? String == "finished" })

        let seeked = try #require(Self.events(log).first { $0["event"] as? String == "seeked" })
        #expect(seeked["frames"] as? Int == 600_000)
        // Nothing reached the sink before the seek; everything after equals the source from there.
        let written = cli.outputSamples()
        #expect(written.count == samples.count - 600_000)
        #expect(written == Array(samples[600_000...]))
    }

    /// The running job listens for the wake signal (a signalfd), not inotify, whose teardown
    /// at exit waits for a kernel grace period; and a command still reaches it.
    @Test func aRunningJobWakesOnTheWakeSignalNotInotify() throws {
        let cli = try AudioCLI()
        let reaper = Reaper()
        _ = try Self.source(cli, seconds: 2)
        let job = try Self.background(cli, reaper, ["play", "src", "--paused"])
        let pid = try #require(job["pid"] as? Int)
        func descriptors() -> [String] {
            let dir = "/proc/\(pid)/fd"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + $0) }
        }
        #expect(Self.eventually { descriptors().contains("anon_inode:[signalfd]") }, "\(descriptors())")
        #expect(!descriptors().contains("anon_inode:inotify"), "\(descriptors())")
        let toggle = try cli.run("toggle")
        // Resumed, the two seconds play out on the file sink (faster than real time), so the
        // job may end before `toggle` reads its acknowledgement (seen once under ASan): then
        // it says so. Either way the command reached it: a paused player never ends.
        #expect(toggle.status == 0 || toggle.stderr.contains("the player ended before applying it"), "\(toggle.stderr)")
        #expect(try Self.eventually { try Self.status(cli) == nil })
    }

    @Test func twoCommandsAtOnceAreBothApplied() throws {
        let cli = try AudioCLI()
        let reaper = Reaper()
        _ = try Self.source(cli)
        _ = try Self.background(cli, reaper, ["play", "src", "--paused"])

        // Relative seeks queue; a single overwritable target would lose one of them.
        for result in Self.together(cli, ["seek", "+3s"], ["seek", "+4s"]) {
            #expect(result?.status == 0, "\(String(describing: result))")
        }
        let state = try #require(try Self.status(cli)?["playing"] as? [String: Any])
        #expect(state["position"] as? Double == 7)
        #expect(state["pending"] as? Int == 0)

        let stop = try cli.run("stop")
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(stop.stdout == "stopped  playing  /src\n")
        #expect(try cli.run("status").status == 1)
    }

    /// Two toggles of a recording: paused and resumed, in some order. (A playback on the file
    /// sink would run to its end the moment it resumed.) On the real-time device: the file
    /// capture runs far faster than real time once its input is used up, and under TSan on a
    /// loaded machine the minutes of audio it made took `stop` past its 30 s.
    @Test(.enabled(if: AudioPulseLoopbackTests.pulseInstalled))
    func twoTogglesOfARecordingAreBothApplied() throws {
        let cli = try AudioCLI()
        let reaper = Reaper()
        let server = try Self.realTimeDevices(cli)
        defer { server.stop() }
        let log = cli.home + "/record.log"
        _ = try Self.background(
            cli, reaper,
            [
                "record", "memo", "--device", "pulse_monitor", "--format", "wav",
                "--progress", "json", "--log", log,
            ])
        for result in Self.together(cli, ["toggle"], ["toggle"]) {
            #expect(result?.status == 0, "\(String(describing: result))")
        }
        let recording = try #require(try Self.status(cli)?["recording"] as? [String: Any])
        #expect(recording["paused"] as? Bool == false)
        #expect(recording["pending"] as? Int == 0)
        // The recorder logs its events after it has taken the commands, so wait for both lines.
        func pauses() -> [String] {
            Self.events(log).compactMap { $0["event"] as? String }.filter { $0 == "paused" || $0 == "resumed" }
        }
        Self.eventually { pauses().count >= 2 }
        #expect(pauses() == ["paused", "resumed"])
        let stop = try cli.run("stop")
        #expect(stop.stdout == "stopped  recording  /memo\n", "\(stop.stderr)")
    }

    /// Runs two commands at once; their results in order.
    static func together(_ cli: AudioCLI, _ a: [String], _ b: [String]) -> [AudioCLI.Result?] {
        // @unchecked: both workers store their result under `lock` (two threads writing
        // one array, even at different indices, is a data race).
        final class Box: @unchecked Sendable {
            let lock = NSLock()
            var results: [AudioCLI.Result?] = [nil, nil]
        }
        let box = Box()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let result = try? cli.run(i == 0 ? a : b)
            box.lock.withLock { box.results[i] = result }
        }
        return box.lock.withLock { box.results }
    }

    /// A user-space PulseAudio server, and its devices (`pulse_monitor` records what plays to
    /// its null sink) added to the sandbox's file devices. Stop it when done.
    static func realTimeDevices(_ cli: AudioCLI) throws -> PulseServer {
        let server = try PulseServer(directory: cli.home + "/pa")
        let fileDevices = try String(contentsOfFile: cli.home + "/.asoundrc", encoding: .utf8)
        try (fileDevices + "\n" + server.asoundrc).write(
            toFile: cli.home + "/.asoundrc", atomically: true, encoding: .utf8)
        return server
    }

    @Test(.enabled(if: AudioPulseLoopbackTests.pulseInstalled))
    func backgroundRecordingPausedTimeIsNotRecorded() throws {
        let cli = try AudioCLI()
        let reaper = Reaper()
        let server = try Self.realTimeDevices(cli)
        defer { server.stop() }
        let log = cli.home + "/record.log"
        func recorded() -> Double {
            Self.events(log).last { $0["event"] as? String == "progress" }?["seconds"] as? Double ?? 0
        }

        let job = try Self.background(
            cli, reaper,
            [
                "record", "memo", "--device", "pulse_monitor", "--format", "wav",
                "--progress", "json", "--log", log,
            ])
        #expect(job["state"] as? String == "recording")
        #expect(job["path"] as? String == "/memo")
        let running = try #require(try Self.status(cli)?["recording"] as? [String: Any])
        #expect(running["paused"] as? Bool == false)
        #expect(Self.eventually { recorded() >= 1 })

        let pause = try cli.run("pause")
        #expect(pause.status == 0, "\(pause.stderr)")
        #expect(pause.stdout.contains("  paused  pid "), "\(pause.stdout)")
        #expect(try Self.status(cli)?["recording"].flatMap { $0 as? [String: Any] }?["paused"] as? Bool == true)
        usleep(1_500_000)  // paused for a while; measured below from the recorder's own events
        let resume = try cli.run("resume")
        #expect(resume.status == 0, "\(resume.stderr)")
        #expect(try Self.status(cli)?["recording"].flatMap { $0 as? [String: Any] }?["paused"] as? Bool == false)
        let resumedAt = recorded()
        #expect(Self.eventually { recorded() >= resumedAt + 1 })

        let stop = try cli.run("stop")
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(stop.stdout == "stopped  recording  /memo\n")
        let after = try cli.run("status", "--json")
        #expect(after.status == 1)

        let events = Self.events(log)
        func time(_ name: String) throws -> Double {
            try #require(
                events.first { $0["event"] as? String == name }?["time"] as? Double,
                "no \(name) in \(events.count) events")
        }
        // The device delivers its first audio some time after `started` (PulseAudio sets up
        // its stream): the recording is timed from the first tenth of a second it captured.
        let firstAudio = try #require(events.first { $0["event"] as? String == "progress" }?["time"] as? Double) - 0.1
        let total = try time("finished") - firstAudio
        let paused = try time("resumed") - time("paused")
        #expect(paused >= 1.4)
        let item = try #require(try cli.recordings().first { $0["name"] as? String == "memo" })
        let frames = try AudioCLI.decode(cli.store + "/audio/" + (item["file"] as! String)).count
        let saved = Double(frames) / Double(Self.rate)
        #expect(events.last?["event"] as? String == "saved")
        // One period of the device is 50 ms, and each of the four edges (first audio, pause,
        // resume, stop) is seen within a period of the capture thread: up to 0.2 s between
        // them, against the 1.5 s a recorded pause would add. (0.1 s failed once under load.)
        #expect(abs(saved - (total - paused)) <= 0.2, "saved \(saved) s, recorded \(total) s, paused \(paused) s")
    }

    @Test func aKilledBackgroundRecorderIsRecoveredByStatus() throws {
        let cli = try AudioCLI()
        let reaper = Reaper()
        try cli.writeInput(AudioCLI.noise(frames: 30 * Self.rate))
        let log = cli.home + "/record.log"
        let job = try Self.background(
            cli, reaper, ["record", "crash", "--format", "wav", "--progress", "json", "--log", log])
        let pid = try #require(job["pid"] as? Int)
        #expect(Self.eventually { (Self.events(log).last?["seconds"] as? Double ?? 0) >= 1 })
        kill(Int32(pid), SIGKILL)
        #expect(Self.eventually { !processIsAlive(Int32(pid)) })

        let status = try cli.run("status")
        #expect(status.status == 1)
        #expect(status.stdout.isEmpty)
        let lines = status.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(status.stderr)")
        #expect(
            lines.first?.hasPrefix(
                "recnotes: warning: the recorder (pid \(pid)) is no longer running; recovered an interrupted recording as /crash (recovered)"
            ) == true, "\(status.stderr)")
        #expect(lines.last == "recnotes: nothing is recording or playing")
        #expect(try cli.recordings().contains { $0["name"] as? String == "crash (recovered)" })
        let viewState = try #require(
            Self.object(try String(contentsOfFile: cli.store + "/viewstate.json", encoding: .utf8)))
        #expect(viewState["recording"] is NSNull)

        // A dead player is cleared the same way.
        _ = try Self.source(cli, seconds: 2)
        let player = try Self.background(cli, reaper, ["play", "src", "--paused"])
        let playerPid = try #require(player["pid"] as? Int)
        kill(Int32(playerPid), SIGKILL)
        #expect(Self.eventually { !processIsAlive(Int32(playerPid)) })
        let pause = try cli.run("pause")
        #expect(pause.status == 1)
        #expect(
            pause.stderr
                == "recnotes: warning: the player of /src (pid \(playerPid)) is no longer running; its entry was cleared\nrecnotes: nothing is recording or playing\n"
        )
        #expect(try cli.run("status").stderr == "recnotes: nothing is recording or playing\n")
    }

    @Test func backgroundFailuresAreReportedByTheParent() throws {
        let cli = try AudioCLI()
        _ = try Self.source(cli, seconds: 1)
        let taken = try cli.run("record", "src", "--background")
        #expect(taken.status == 1)
        #expect(taken.stdout.isEmpty)
        #expect(taken.stderr == "recnotes: src: already exists\n")
        let missing = try cli.run("play", "nothing", "--background")
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("recnotes: nothing: "), "\(missing.stderr)")
        let log = try cli.run("play", "src", "--log", cli.home + "/x.log")
        #expect(log.status == 64)
        #expect(try cli.run("status").status == 1)
    }
}

import Foundation
import RecAudio
import RecCore
import Testing

/// Faults of the audio device, on a PulseAudio server of our own (see `PulseServer`): the
/// server dies in the middle of a recording; the device is taken by another recording;
/// playback goes to a device that does not exist or whose server is gone.
///
/// A busy device in the kernel's sense (EBUSY from an exclusive `hw` PCM) cannot be made
/// here: the machine has no sound card (/proc/asound is absent) and no snd-dummy or
/// snd-aloop module, and PulseAudio and the file plugin share their devices. The busy case
/// tested is recnotes' own: a second recording while one is running.
@Suite("Device faults: PulseAudio killed mid-recording, busy and missing devices")
struct DeviceFaultTests {
    static var pulseInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/pulseaudio") }

    /// The pid of the pulseaudio we started, found by its socket path on its command line.
    static func serverPID(socket: String) -> Int32? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = Int32(entry), let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let text = String(decoding: cmdline, as: UTF8.self)
            if text.hasPrefix("/usr/bin/pulseaudio"), text.contains(socket) { return pid }
        }
        return nil
    }

    static func setUp() throws -> (AudioCLI, PulseServer) {
        let cli = try AudioCLI()
        let server = try PulseServer(directory: cli.home + "/pa")
        let fileDevices = try String(contentsOfFile: cli.home + "/.asoundrc", encoding: .utf8)
        try (fileDevices + "\n" + server.asoundrc).write(
            toFile: cli.home + "/.asoundrc", atomically: true, encoding: .utf8)
        return (cli, server)
    }

    @Test(.enabled(if: pulseInstalled), arguments: [SIGKILL, SIGTERM])
    func killingTheServerMidRecordingKeepsTheAudio(signal: Int32) throws {
        let (cli, server) = try Self.setUp()
        defer { server.stop() }
        let recorder = try Spawned(
            AudioCLI.binary,
            ["record", "Interrupted", "--device", "pulse_monitor", "--format", "wav", "--progress", "json"],
            environment: cli.environment)
        var reported = 0
        for _ in 0..<600 {
            if let item = try? cli.run("state").stdout, item.contains("\"recording\": {") { break }
            usleep(50_000)
        }
        // Wait (by what is in the recorder's file, not by the clock) for 1.5 s of audio on disk.
        for _ in 0..<600 {
            let audio = cli.audioFiles()
            if let file = audio.first, let frames = try? SoundFile.countFrames(path: cli.store + "/audio/" + file),
                frames >= 72_000
            {
                reported = Int(frames)
                break
            }
            usleep(50_000)
        }
        let pid = try #require(Self.serverPID(socket: server.socket), "the pulseaudio we started is not running")
        kill(pid, signal)
        let (run, signalled, timedOut) = recorder.finish(timeout: 30)
        server.stop()
        var notes: [String] = []
        if timedOut { notes.append("record did not stop within 30 s of the server's death") }
        if signalled { notes.append("record died of a signal: \(run)") }
        let lines = run.stderr.split(separator: "\n").filter {
            $0.hasPrefix("recnotes: ") && !$0.hasPrefix("recnotes: warning: ")
        }
        if run.status == 0 || lines.count != 1 {
            notes.append("expected a non-zero exit and one error line: \(run.status) \(run.stderr)")
        }
        if !run.stdout.contains("\"failed\"") { notes.append("no failed event: \(run.stdout.suffix(400))") }
        // The audio captured before the server died is kept (saved now, or recovered by the
        // next command), decodable, and the store says how long it is.
        _ = try cli.run("ls")
        var frames = 0
        if let item = try cli.recordings().first(where: { ($0["name"] as? String)?.hasPrefix("Interrupted") == true }),
            let file = item["file"] as? String
        {
            let decoded = try AudioCLI.decode(cli.store + "/audio/" + file)
            frames = decoded.count
            if decoded.count != item["frames"] as? Int {
                notes.append("store says \(item["frames"] ?? "?") frames, the file has \(decoded.count)")
            }
            if decoded.count < reported {
                notes.append("\(reported) frames were on disk before the kill, \(decoded.count) kept")
            }
        } else {
            notes.append("no recording kept")
        }
        let fsck = try cli.run("fsck")
        if fsck.status != 0 { notes.append("fsck: \(fsck.stdout)") }
        let state = try cli.run("state").stdout
        if !state.contains("\"recording\": null") { notes.append("a recording is still marked in progress: \(state)") }
        print(
            "device-faults (pulseaudio \(signal == SIGKILL ? "SIGKILL" : "SIGTERM") mid-recording): exit \(run.status), \(frames) frames (\(String(format: "%.2f", Double(frames) / 48_000)) s) kept, \(notes.isEmpty ? 0 : 1) lost, \(signalled ? 1 : 0) crashes, fsck \(fsck.status == 0 ? "clean" : "NOT clean")"
        )
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))\n\(run.stderr)")
    }

    @Test(.enabled(if: pulseInstalled))
    func busyAndMissingDevicesFailCleanly() throws {
        let (cli, server) = try Self.setUp()
        defer { server.stop() }
        try cli.writeInput(AudioCLI.tone(frames: 24_000))
        #expect(try cli.run("record", "tone", "--format", "wav", "--duration", "0.5").status == 0)
        var notes: [String] = []
        var tried = 0
        /// `ignoring`: files another process is writing meanwhile (a running recording's
        /// audio and the position it publishes in the view state).
        func expectCleanFailure(_ arguments: [String], containing fragment: String, ignoring: Set<String> = []) throws {
            let before = BadInputTests.files(cli.store)
            let run = try cli.run(arguments)
            tried += 1
            let lines = run.stderr.split(separator: "\n")
            if run.status != 1 || lines.count != 1 || !run.stderr.hasPrefix("recnotes: ")
                || !run.stderr.contains(fragment)
            {
                notes.append(
                    "\(arguments): expected one error line with '\(fragment)', status 1: \(run.status) \(run.stderr)")
            }
            let changed = BadInputTests.changed(before, BadInputTests.files(cli.store)).filter {
                !ignoring.contains($0)
            }
            if !changed.isEmpty { notes.append("\(arguments) changed \(changed)") }
        }

        // Busy: a recording is running (a real-time one, on the monitor); a second is refused.
        let first = try Spawned(
            AudioCLI.binary, ["record", "long", "--device", "pulse_monitor", "--format", "wav", "--duration", "60"],
            environment: cli.environment)
        for _ in 0..<400 {
            if (try? cli.run("state").stdout.contains("\"recording\": {")) == true { break }
            usleep(50_000)
        }
        func runningRecording() throws -> [String: Any]? {
            let state = try JSONSerialization.jsonObject(with: Data(cli.run("state").stdout.utf8)) as? [String: Any]
            return state?["recording"] as? [String: Any]
        }
        let running = try #require(try runningRecording())
        let runningFile = try #require(running["file"] as? String)
        let runningID = try #require(running["uuid"] as? String)
        let busy: Set<String> = ["audio/" + runningFile, "viewstate.json"]
        try expectCleanFailure(
            ["record", "second", "--device", "pulse_monitor", "--duration", "1"],
            containing: "another recording is in progress", ignoring: busy)
        try expectCleanFailure(
            ["record", "third", "--duration", "1"], containing: "another recording is in progress", ignoring: busy)
        // The view state still holds the first recording, and nothing else was created.
        if try runningRecording()?["uuid"] as? String != runningID {
            notes.append("a refused recording replaced the running one in the view state")
        }
        first.send(SIGINT)
        let stopped = first.finish(timeout: 30)
        if stopped.run.status != 0 { notes.append("the first recording did not stop cleanly: \(stopped.run)") }

        // Missing: no such PCM, and a PulseAudio device whose server is gone.
        try expectCleanFailure(["play", "tone", "--device", "no_such_pcm"], containing: "no_such_pcm")
        try expectCleanFailure(
            ["record", "x", "--device", "no_such_pcm", "--duration", "1"], containing: "no_such_pcm")
        server.stop()
        try expectCleanFailure(["play", "tone", "--device", "pulse_sink"], containing: "pulse_sink")
        try expectCleanFailure(
            ["record", "y", "--device", "pulse_monitor", "--duration", "1"], containing: "pulse_monitor")
        let fsck = try cli.run("fsck")
        if fsck.status != 0 { notes.append("fsck: \(fsck.stdout)") }
        print(
            "device-faults (busy and missing devices): \(tried) commands tried, \(notes.count) bad outcomes, 0 crashes, fsck \(fsck.status == 0 ? "clean" : "NOT clean"); a kernel-level busy device (EBUSY) cannot be made here: no sound card, no snd-dummy/snd-aloop"
        )
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))")
    }
}

import Foundation
import RecCore
import RecSystem
import Testing

/// A PulseAudio server of our own (user mode, its own runtime directory, a null sink and a
/// native-protocol socket), reached through ALSA's `pulse` plugin. Real time, unlike the
/// file devices.
final class PulseServer {
    let directory: String
    let socket: String
    /// Spawned with posix_spawn, not Foundation's Process: a long-lived Process child makes
    /// corelibs-foundation block in wait4 on it, stalling every other Process's exit.
    private var pid: pid_t = 0

    init(directory: String) throws {
        self.directory = directory
        socket = directory + "/pulse/native"
        try FileManager.default.createDirectory(atPath: directory + "/pulse", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: true)
        let arguments = [
            "/usr/bin/pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disable-shm=yes",
            "--use-pid-file=no",
            "--log-target=stderr", "--log-level=error",
            "-L", "module-null-sink sink_name=recnotes_sink rate=48000 channels=1",
            "-L", "module-native-protocol-unix auth-anonymous=1 socket=\(socket)",
        ]
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = directory + "/pulse"
        env["PULSE_RUNTIME_PATH"] = directory + "/pulse"
        env["HOME"] = directory + "/home"
        env["XDG_CONFIG_HOME"] = directory + "/home/.config"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard result == 0 else {
            throw RecError.failure("pulseaudio", "cannot start: \(String(cString: strerror(result)))")
        }
        // Ready when its socket exists (checked, not timed: up to 20 s on a slow machine).
        for _ in 0..<400 where !FileManager.default.fileExists(atPath: socket) && isRunning {
            usleep(50_000)
        }
        guard FileManager.default.fileExists(atPath: socket) else {
            stop()
            throw RecError.failure("pulseaudio", "did not start")
        }
    }

    private var isRunning: Bool {
        guard pid > 0 else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            pid = 0
            return false
        }
        return true
    }

    /// Stops the server by its pid and reaps it.
    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pid = 0
    }

    deinit { stop() }

    /// `pulse_sink` plays into the null sink; `pulse_monitor` records what it plays.
    var asoundrc: String {
        """
        pcm.pulse_sink { type pulse device "recnotes_sink" server "unix:\(socket)" }
        pcm.pulse_monitor { type pulse device "recnotes_sink.monitor" server "unix:\(socket)" }
        """
    }
}

@Suite("Audio on a real-time PulseAudio device")
struct AudioPulseLoopbackTests {
    static var pulseInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/pulseaudio") }

    /// The power of `frequency` in `samples`, by the Goertzel algorithm.
    static func power(_ samples: ArraySlice<Int16>, frequency: Double, rate: Double = 48000) -> Double {
        let coefficient = 2 * cos(2 * .pi * frequency / rate)
        var s1 = 0.0
        var s2 = 0.0
        for sample in samples {
            let s = Double(sample) / 32768 + coefficient * s1 - s2
            s2 = s1
            s1 = s
        }
        return (s1 * s1 + s2 * s2 - coefficient * s1 * s2) / Double(samples.count)
    }

    @Test(.enabled(if: pulseInstalled))
    func playingIntoTheSinkIsCapturedFromItsMonitor() throws {
        let cli = try AudioCLI()
        let server = try PulseServer(directory: cli.home + "/pa")
        defer { server.stop() }
        // The file devices stay the default, for making the tone recording.
        let fileDevices = try String(contentsOfFile: cli.home + "/.asoundrc", encoding: .utf8)
        try (fileDevices + "\n" + server.asoundrc).write(
            toFile: cli.home + "/.asoundrc", atomically: true, encoding: .utf8)
        try cli.writeInput(AudioCLI.tone(frames: 48_000, amplitude: 0.5))
        #expect(try cli.run("record", "tone", "--format", "wav", "--duration", "1").status == 0)

        // Record the monitor for 4 s; once it has started, play the 1 s tone into the sink.
        let (recorder, out, err) = cli.process([
            "record", "captured", "--device", "pulse_monitor", "--format", "wav",
            "--duration", "4", "--progress", "json",
        ])
        try recorder.run()
        let errors = DrainedPipe(err)
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("\"started\"") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        let play = try cli.run("play", "tone", "--device", "pulse_sink")
        #expect(play.status == 0, "\(play.stderr)")
        _ = out.fileHandleForReading.readDataToEndOfFile()
        recorder.waitUntilExit()
        let recordErrors = String(decoding: errors.wait(), as: UTF8.self)
        #expect(recorder.terminationStatus == 0, "\(recordErrors)")

        let item = try #require(try cli.recordings().first { $0["name"] as? String == "captured" })
        let file = try #require(item["file"] as? String)
        let captured = try AudioCLI.decode(cli.store + "/audio/" + file)
        #expect(captured.count == 4 * 48_000)
        // The loudest tenth of a second holds the tone: 440 Hz far above 1 kHz and near
        // the level it was played at (0.5 of full scale: power 0.0625 for a pure sine).
        var best = 0.0
        var bestOther = 0.0
        var start = 0
        while start + 4800 <= captured.count {
            let window = captured[start..<(start + 4800)]
            let p = Self.power(window, frequency: 440)
            if p > best {
                best = p
                bestOther = Self.power(window, frequency: 1000)
            }
            start += 2400
        }
        #expect(best > 0.01, "440 Hz power \(best)")
        #expect(best > 100 * bestOther, "440 Hz \(best) vs 1 kHz \(bestOther)")
    }
}

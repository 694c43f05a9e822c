import Foundation
import RecCore
import Testing

/// `record --output` is registered in the view state like any recording: `status` shows
/// it, `pause`, `resume` and `stop` reach it, it and a recording to the store exclude each
/// other, and whatever way it ends (a reader that leaves, SIGKILL) its entry does not stay.
///
/// The file devices capture faster than real time, so the runs here are short and are
/// stopped from the test, never timed.
extension RemoteControlTests {
    /// `record --output -` with its stdout read by the test; stderr goes to the returned
    /// pipe's drain.
    final class OutputRun {
        let process: Process
        let stdout: DrainedPipe
        let stderr: DrainedPipe

        init(_ cli: AudioCLI, _ arguments: [String]) throws {
            let (process, out, err) = cli.process(["record", "--output", "-"] + arguments)
            try process.run()
            self.process = process
            stdout = DrainedPipe(out)
            stderr = DrainedPipe(err)
        }

        var pid: Int32 { process.processIdentifier }
    }

    static func viewStateRecording(_ cli: AudioCLI) throws -> Any? {
        let text = try String(contentsOfFile: cli.store + "/viewstate.json", encoding: .utf8)
        return try #require(object(text))["recording"]
    }

    @Test func anOutputRecordingIsShownPausedResumedAndStoppedFromAnotherShell() throws {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 8000, seed: 3)
        try cli.writeInput(input)
        let run = try OutputRun(cli, ["--encoding", "s16", "--rate", "8000"])
        defer { if run.process.isRunning { kill(run.pid, SIGKILL) } }

        #expect(Self.eventually { (try? Self.status(cli))?["recording"] is [String: Any] })
        let running = try #require(try Self.status(cli)?["recording"] as? [String: Any])
        #expect(running["path"] as? String == "-")
        #expect(running["pid"] as? Int == Int(run.pid))
        #expect(running["paused"] as? Bool == false)
        let entry = try #require(try Self.viewStateRecording(cli) as? [String: Any])
        #expect(entry["output"] as? String == "-")
        #expect(entry["file"] as? String == "")
        #expect(entry["format"] as? String == "raw", "raw samples have no container; the view state says so")

        let pause = try cli.run("pause", "--json")
        #expect(pause.status == 0, "\(pause.stderr)")
        #expect(Self.object(pause.stdout)?["paused"] as? Bool == true)
        #expect(try Self.status(cli)?["recording"].flatMap { $0 as? [String: Any] }?["paused"] as? Bool == true)
        let resume = try cli.run("resume")
        #expect(resume.status == 0, "\(resume.stderr)")
        #expect(resume.stdout.hasPrefix("recording  -  "), "\(resume.stdout)")
        #expect(resume.stdout.contains("  running  pid \(run.pid)"), "\(resume.stdout)")

        let stop = try cli.run("stop")
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(stop.stdout == "stopped  recording  -\n")
        run.process.waitUntilExit()
        #expect(run.process.terminationReason == .exit)
        #expect(run.process.terminationStatus == 0, "\(String(decoding: run.stderr.wait(), as: UTF8.self))")
        // Everything captured reached the reader: the input first, then what the device
        // gives after its end.
        let samples = run.stdout.wait().withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(samples.count > input.count)
        #expect(Array(samples.prefix(input.count)) == input)
        #expect(try Self.viewStateRecording(cli) is NSNull)
        #expect(try cli.run("status").stderr == "recnotes: nothing is recording or playing\n")
    }

    @Test func aStopWaitsUntilAnOutputFileIsComplete() throws {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 8000, seed: 4)
        try cli.writeInput(input)
        let target = cli.home + "/live.flac"
        let (process, _, err) = cli.process(["record", "--output", target, "--rate", "8000"])
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errors = DrainedPipe(err)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        #expect(Self.eventually { (try? Self.status(cli))?["recording"] is [String: Any] })
        #expect(try Self.status(cli)?["recording"].flatMap { $0 as? [String: Any] }?["path"] as? String == target)
        let stop = try cli.run("stop", "--json")
        #expect(stop.status == 0, "\(stop.stderr)")
        let stopped = try #require(Self.object(stop.stdout))
        #expect(stopped["stopped"] as? String == "recording")
        #expect(stopped["path"] as? String == target)
        // stop has returned: the file is already whole, before the recorder is reaped.
        let decoded = try AudioCLI.decode(target)
        #expect(decoded.count > input.count)
        #expect(Array(decoded.prefix(input.count)) == input)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: errors.wait(), as: UTF8.self))")
        #expect(!FileManager.default.fileExists(atPath: cli.store + "/audio"))
    }

    @Test func aReaderThatLeavesEndsTheRecordingBySIGPIPEAndClearsItsEntry() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 8000, seed: 5))
        let (process, out, err) = cli.process(["record", "--output", "-"])
        try process.run()
        let errors = DrainedPipe(err)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let reader = out.fileHandleForReading
        var received = 0
        while received < 1000 {
            let chunk = reader.readData(ofLength: 1000 - received)
            if chunk.isEmpty { break }
            received += chunk.count
        }
        #expect(received == 1000)
        try reader.close()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGPIPE)
        #expect(errors.wait().isEmpty)
        #expect(try Self.viewStateRecording(cli) is NSNull)
        #expect(!FileManager.default.fileExists(atPath: cli.store + "/store.json"))
    }

    @Test func anOutputRecordingAndARecordingToTheStoreExcludeEachOther() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 8000, seed: 6))
        _ = try cli.run("mkdir", "Notes")
        let store = try Data(contentsOf: URL(fileURLWithPath: cli.store + "/store.json"))

        let (process, _, err) = cli.process(["record", "--output", "-", "--rate", "8000"])
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errors = DrainedPipe(err)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(Self.eventually { (try? Self.status(cli))?["recording"] is [String: Any] })
        let viewState = try Data(contentsOf: URL(fileURLWithPath: cli.store + "/viewstate.json"))

        let refused = try cli.run("record", "Notes/second", "--duration", "1")
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "recnotes: record: another recording is in progress (to standard output, pid \(process.processIdentifier))\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.store + "/store.json")) == store)
        #expect(cli.audioFiles().isEmpty)
        let second = try cli.run("record", "--output", cli.home + "/second.wav", "--duration", "1")
        #expect(second.status == 1)
        #expect(second.stderr == refused.stderr)
        #expect(!FileManager.default.fileExists(atPath: cli.home + "/second.wav"))
        // The refusals wrote nothing: only the running recorder changes the view state, and
        // (paused flag, position) at most once a second; its entry is the same one.
        let now = try #require(
            Self.object(
                String(
                    decoding: try Data(contentsOf: URL(fileURLWithPath: cli.store + "/viewstate.json")), as: UTF8.self))
        )
        let before = try #require(Self.object(String(decoding: viewState, as: UTF8.self)))
        #expect(
            (now["recording"] as? [String: Any])?["uuid"] as? String == (before["recording"] as? [String: Any])?["uuid"]
                as? String)
        #expect(try cli.run("stop").status == 0)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: errors.wait(), as: UTF8.self))")

        // And the other way round: a recording to the store keeps --output out, before
        // anything reaches standard output.
        let reaper = Reaper()
        let job = try Self.background(cli, reaper, ["record", "Notes/first", "--format", "wav"])
        let pid = try #require(job["pid"] as? Int)
        let output = try cli.run("record", "--output", "-", "--duration", "1")
        #expect(output.status == 1)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "recnotes: record: another recording is in progress (\"first\", pid \(pid))\n")
        #expect(try cli.run("stop").status == 0)
        #expect(try cli.recordings().contains { $0["name"] as? String == "first" })
    }

    @Test func aKilledOutputRecorderLeavesNoEntryBehind() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 8000, seed: 7))
        let (process, _, err) = cli.process(["record", "--output", "-", "--rate", "8000"])
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errors = DrainedPipe(err)
        let pid = process.processIdentifier
        #expect(Self.eventually { (try? Self.viewStateRecording(cli)) is [String: Any] })
        kill(pid, SIGKILL)
        process.waitUntilExit()
        _ = errors.wait()

        let fsck = try cli.run("fsck")
        #expect(fsck.status == 1)
        #expect(
            fsck.stdout.contains(
                "viewstate.json: a recording to standard output was left in progress by pid \(pid), which is gone"),
            "\(fsck.stdout)")
        let status = try cli.run("status")
        #expect(status.status == 1)
        #expect(
            status.stderr
                == "recnotes: warning: the recorder to standard output (pid \(pid)) is no longer running; its entry was cleared\nrecnotes: nothing is recording or playing\n"
        )
        #expect(try Self.viewStateRecording(cli) is NSNull)
        // Nothing was made in the store for it.
        #expect(cli.audioFiles().isEmpty)
        #expect(try cli.recordings().isEmpty)

        // The same through any other command, which clears it with a warning of its own.
        let again = try OutputRun(cli, ["--encoding", "s16", "--rate", "8000"])
        #expect(Self.eventually { (try? Self.viewStateRecording(cli)) is [String: Any] })
        kill(again.pid, SIGKILL)
        again.process.waitUntilExit()
        let ls = try cli.run("ls")
        #expect(ls.status == 0)
        #expect(
            ls.stderr
                == "recnotes: warning: a recording to standard output (pid \(again.pid)) ended without clearing its entry; it was cleared\n"
        )
        #expect(try Self.viewStateRecording(cli) is NSNull)
    }
}

import Foundation
import RecCore
import RecSystem
import Testing

/// `recnotes mark [LABEL]` from another shell: the running recorder or player marks where
/// it is, says so in its progress stream, and the marker ends up on the recording (through
/// a crash, for a recording).
@Suite("Remote marks", .serialized)
struct RemoteMarkTests {
    typealias R = RemoteControlTests

    static func marks(_ cli: AudioCLI, _ path: String) throws -> [[String: Any]] {
        let run = try cli.run("marks", path, "--json")
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
    }

    static func marked(_ log: String) -> [[String: Any]] {
        R.events(log).filter { $0["event"] as? String == "marked" }
    }

    @Test func marksDuringARecordingAreSavedWithIt() throws {
        let cli = try AudioCLI()
        let reaper = R.Reaper()
        try cli.writeInput(AudioCLI.noise(frames: 30 * R.rate))
        let log = cli.home + "/record.log"
        _ = try R.background(cli, reaper, ["record", "memo", "--format", "wav", "--progress", "json", "--log", log])
        #expect(R.eventually { (R.events(log).last?["seconds"] as? Double ?? 0) >= 1 })
        let first = try cli.run("mark", "first", "idea")
        #expect(first.status == 0, "\(first.stderr)")
        // What was marked and where, as `marks` shows it: not the status line.
        let firstLine = try #require(first.stdout.split(separator: "\n").first.map(String.init))
        #expect(
            firstLine.hasPrefix("marked  /memo  #1  00:") && firstLine.hasSuffix("  first idea"), "\(firstLine)")
        let second = try cli.run("mark", "--json")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(R.object(second.stdout)?["state"] as? String == "recording", "\(second.stdout)")
        let marker = try #require(R.object(second.stdout)?["marker"] as? [String: Any], "\(second.stdout)")
        #expect(marker["index"] as? Int == 2 && marker["label"] as? String == "", "\(marker)")
        // Kept in the in-progress entry as soon as the command returns.
        let state = try #require(R.object(try String(contentsOfFile: cli.store + "/viewstate.json", encoding: .utf8)))
        let entry = try #require(state["recording"] as? [String: Any])
        // As in store.json, a marker without a label has no "label" key.
        #expect((entry["markers"] as? [[String: Any]])?.map { $0["label"] as? String ?? "" } == ["first idea", ""])
        #expect(R.eventually { Self.marked(log).count == 2 })
        let events = Self.marked(log)
        #expect(events.map { $0["label"] as? String } == ["first idea", ""])
        let frames = events.compactMap { $0["frames"] as? Int }
        #expect(frames.count == 2 && frames[0] >= R.rate && frames[1] >= frames[0], "\(frames)")
        #expect(marker["frame"] as? Int == frames.last, "\(marker)")

        #expect(try cli.run("stop").status == 0)
        let saved = try Self.marks(cli, "memo")
        #expect(saved.map { $0["frame"] as? Int } == frames)
        #expect(saved.map { $0["label"] as? String } == ["first idea", ""])
    }

    @Test func marksOfAKilledRecordingComeBackWithIt() throws {
        let cli = try AudioCLI()
        let reaper = R.Reaper()
        try cli.writeInput(AudioCLI.noise(frames: 30 * R.rate))
        let log = cli.home + "/record.log"
        let job = try R.background(
            cli, reaper, ["record", "crash", "--format", "wav", "--progress", "json", "--log", log])
        let pid = Int32(try #require(job["pid"] as? Int))
        #expect(R.eventually { (R.events(log).last?["seconds"] as? Double ?? 0) >= 1 })
        #expect(try cli.run("mark", "budget").status == 0)
        #expect(R.eventually { Self.marked(log).count == 1 })
        let frame = try #require(Self.marked(log).first?["frames"] as? Int)
        kill(pid, SIGKILL)
        #expect(R.eventually { !processIsAlive(pid) })

        let ls = try cli.run("ls")
        #expect(ls.stderr.contains("recovered an interrupted recording as /crash (recovered)"), "\(ls.stderr)")
        let item = try #require(try cli.recordings().first { $0["name"] as? String == "crash (recovered)" })
        let length = try #require(item["frames"] as? Int)
        let marks = try Self.marks(cli, "crash (recovered)")
        // Within the audio that reached the disk.
        #expect(marks.map { $0["frame"] as? Int } == [min(frame, length)])
        #expect(marks.map { $0["label"] as? String } == ["budget"])
    }

    @Test func marksDuringAPlaybackAreAddedToTheRecordingAndUndoable() throws {
        let cli = try AudioCLI()
        let reaper = R.Reaper()
        _ = try R.source(cli, seconds: 10)
        let log = cli.home + "/play.log"
        _ = try R.background(cli, reaper, ["play", "src", "--paused", "--progress", "json", "--log", log])
        #expect(try cli.run("seek", "5.5").status == 0)
        let mark = try cli.run("mark", "at", "five")
        #expect(mark.status == 0, "\(mark.stderr)")
        #expect(mark.stdout == "marked  /src  #1  00:00:05.50  at five\n", "\(mark.stdout)")
        // Paused: the marker is exactly where the player stands.
        #expect(try Self.marks(cli, "src").map { $0["frame"] as? Int } == [264_000])
        #expect(try Self.marks(cli, "src").map { $0["label"] as? String } == ["at five"])
        #expect(R.eventually { Self.marked(log).count == 1 })
        #expect(Self.marked(log).first?["frames"] as? Int == 264_000)
        #expect(try cli.run("stop").status == 0)
        let undo = try cli.run("undo")
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try Self.marks(cli, "src").isEmpty)
    }

    @Test func withNothingRunningOrABadLabelNothingChanges() throws {
        let cli = try AudioCLI()
        _ = try R.source(cli, seconds: 1)
        let store = FileManager.default.contents(atPath: cli.store + "/store.json")
        let state = FileManager.default.contents(atPath: cli.store + "/viewstate.json")
        let idle = try cli.run("mark", "idea")
        #expect(idle.status == 1)
        #expect(
            idle.stderr
                == "recnotes: mark: nothing is recording or playing; to mark a saved recording: mark PATH --at TIME [LABEL]\n"
        )
        let bad = try cli.run("mark", "line\nbreak")
        #expect(bad.status == 64)
        #expect(
            bad.stderr == "recnotes: line\\u{a}break: a marker label cannot contain control characters or line breaks\n"
        )
        let long = try cli.run("mark", String(repeating: "x", count: 256))
        #expect(long.status == 64)
        #expect(FileManager.default.contents(atPath: cli.store + "/store.json") == store)
        #expect(FileManager.default.contents(atPath: cli.store + "/viewstate.json") == state)
    }

    @Test func seekNextAndPreviousMarkAreSampleExact() throws {
        let cli = try AudioCLI()
        let reaper = R.Reaper()
        let samples = try R.source(cli, seconds: 10)
        #expect(try cli.run("mark", "src", "--at", "3.00001", "a").status == 0)
        #expect(try cli.run("mark", "src", "--at", "7", "b").status == 0)
        let none = try cli.run("seek", "next-mark")
        #expect(none.status == 1)
        _ = try R.background(cli, reaper, ["play", "src", "--paused"])
        for (where_, expected) in [("next-mark", 3.0), ("next-mark", 7.0), ("prev-mark", 3.0), ("next-mark", 7.0)] {
            let run = try cli.run("seek", where_, "--json")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(R.object(run.stdout)?["position"] as? Double == expected, "\(where_): \(run.stdout)")
        }
        #expect(try cli.run("seek", "prev-mark").status == 0)
        // Resumed, the seven seconds left play out on the file sink (faster than real time),
        // so the player may end before `resume` reads its acknowledgement (seen once on a
        // loaded machine): then it says so, as `toggle` does in RemoteControlTests. The
        // samples below show that the resume and the seek were applied either way.
        let resume = try cli.run("resume")
        #expect(resume.status == 0 || resume.stderr.contains("the player ended before applying it"), "\(resume.stderr)")
        #expect(try R.eventually { try cli.run("status").status == 1 })
        // From marker a's own frame (144000.48 rounds to 144000) to the end.
        #expect(cli.outputSamples() == Array(samples[144_000...]))
    }

    /// A playback follows its recording by UUID: moved to the trash while it plays, `status`
    /// says so, and a remote mark is refused in one line (nothing is kept in the trash), not
    /// reported as done and lost.
    @Test func aPlaybackWhoseRecordingWasTrashedSaysWhereItIs() throws {
        let cli = try AudioCLI()
        let reaper = R.Reaper()
        _ = try R.source(cli, seconds: 10)
        _ = try R.background(cli, reaper, ["play", "src", "--paused"])
        #expect(try cli.run("rm", "src").status == 0)
        let status = try cli.run("status")
        #expect(status.stdout.contains("/src (in the trash)"), "\(status.stdout)")
        let mark = try cli.run("mark", "after", "rm")
        #expect(mark.status == 1, "\(mark)")
        #expect(mark.stderr.contains("/src (in the trash): was moved to the trash while it played"), "\(mark.stderr)")
        #expect(try cli.run("stop").status == 0)
        #expect(try cli.run("trash", "restore", "src").status == 0)
        #expect(try Self.marks(cli, "src").isEmpty)
    }

    /// A folder a recording is being saved into cannot be removed under it: the recording
    /// would have nowhere to go. One line names the recording; nothing changes.
    @Test func removingTheFolderOfARunningRecordingIsRefused() throws {
        let cli = try AudioCLI()
        let reaper = R.Reaper()
        #expect(try cli.run("mkdir", "-p", "/M/A").status == 0)
        try cli.writeInput(AudioCLI.noise(frames: 120 * R.rate))
        let log = cli.home + "/record.log"
        _ = try R.background(
            cli, reaper, ["record", "/M/A/live", "--format", "wav", "--progress", "json", "--log", log])
        #expect(R.eventually { (R.events(log).last?["seconds"] as? Double ?? 0) >= 1 })
        let store = FileManager.default.contents(atPath: cli.store + "/store.json")
        for path in ["/M", "/M/A"] {
            let rm = try cli.run("rm", "-r", path)
            #expect(rm.status == 1, "\(rm)")
            #expect(rm.stderr.contains("a recording is being made into /M/A/live"), "\(rm.stderr)")
        }
        #expect(FileManager.default.contents(atPath: cli.store + "/store.json") == store)
        #expect(try cli.run("stop").status == 0)
        #expect(try cli.run("ls", "/M/A").lines == ["live"])
        #expect(try cli.run("rm", "-r", "/M").status == 0)
    }
}

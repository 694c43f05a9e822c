import Foundation
import RecCore
import RecSystem
import RecValues
import Testing

/// `recnotes browse` in a real terminal: tmux runs it, `send-keys` presses the
/// keys and `capture-pane` reads the screen, against the ALSA file devices (faster than real
/// time) or, for pausing, seeking, marking and recording, a PulseAudio server of the test's
/// own (real time). Every wait polls the screen or another process's view of the store with
/// a watchdog; nothing is timed.
@Suite("browse in a real terminal (tmux)", .serialized)
struct BrowseTerminalTests {
    static let rate = 48_000

    /// The browser's whole environment: the AudioCLI home with its `.asoundrc`, no colour.
    static func environment(_ cli: AudioCLI, _ extra: [String: String] = [:]) -> [String: String] {
        [
            "HOME": cli.home, "RECNOTES_HOME": cli.store, "NO_COLOR": "1", "TZ": "UTC",
            "PATH": "/usr/local/bin:/usr/bin:/bin",
        ].merging(extra) { $1 }
    }

    /// `recnotes browse ARGS` as the pane's command.
    static func browse(
        _ cli: AudioCLI, width: Int = 80, height: Int = 24, _ arguments: [String] = [],
        environment extra: [String: String] = [:]
    ) throws -> TmuxSession {
        try TmuxSession(
            width: width, height: height, directory: cli.home, environment: environment(cli, extra),
            command: [AudioCLI.binary, "browse"] + arguments)
    }

    /// A PulseAudio server for the real-time tests, and `pulse_both`: play to its null sink,
    /// record from the sink's monitor. (The file devices stay the default.)
    static func pulse(_ cli: AudioCLI) throws -> PulseServer {
        try #require(
            AudioPulseLoopbackTests.pulseInstalled, "pulseaudio is not installed: scripts/install-deps.sh installs it")
        let server = try PulseServer(directory: cli.home + "/pa")
        let fileDevices = try String(contentsOfFile: cli.home + "/.asoundrc", encoding: .utf8)
        try
            (fileDevices + "\n" + server.asoundrc + "\n"
            + "pcm.pulse_both { type asym playback.pcm \"pulse_sink\" capture.pcm \"pulse_monitor\" }\n")
            .write(toFile: cli.home + "/.asoundrc", atomically: true, encoding: .utf8)
        return server
    }

    static func succeed(_ cli: AudioCLI, _ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation)
        throws -> AudioCLI.Result
    {
        let result = try cli.run(arguments)
        #expect(
            result.status == 0, "recnotes \(arguments.joined(separator: " ")): \(result.stderr)",
            sourceLocation: sourceLocation)
        return result
    }

    /// The breadcrumb: the header row up to the gap before its item count.
    static func breadcrumb(_ lines: [String]) -> String? {
        lines.first.map { String($0.dropFirst()).components(separatedBy: "  ").first ?? "" }
    }

    /// The title of the detail pane (the selected row's name): the text after the separator
    /// on the first row under the header.
    static func detailTitle(_ lines: [String]) -> String? {
        guard lines.count > 1, let bar = lines[1].firstIndex(of: "│") else { return nil }
        return lines[1][lines[1].index(after: bar)...].trimmingCharacters(in: .whitespaces)
    }

    /// Names of the folder's items, from `ls --json`.
    static func names(_ cli: AudioCLI, _ folder: String = "/") throws -> [String] {
        let result = try cli.run("ls", folder, "--json")
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
            "\(result.stdout) \(result.stderr)")
        return list.compactMap { $0["name"] as? String }
    }

    static func playing(_ cli: AudioCLI) throws -> [String: Any]? {
        try RemoteControlTests.status(cli)?["playing"] as? [String: Any]
    }

    /// The playback's position from `status --json`, nil when nothing plays.
    static func position(_ cli: AudioCLI) -> Double? {
        (try? playing(cli))?["position"] as? Double
    }

    /// The player line's time (`▶ 00:00:01.23 / 00:00:20`) after `symbol`, in seconds.
    static func playerTime(_ lines: [String], _ symbol: String) -> Double? {
        for line in lines {
            guard let start = line.range(of: symbol + " ") else { continue }
            let rest = line[start.upperBound...]
            guard let slash = rest.range(of: " / ") else { continue }
            let parts = rest[..<slash.lowerBound].split(separator: ":")
            guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let sec = Double(parts[2])
            else { continue }
            return h * 3600 + m * 60 + sec
        }
        return nil
    }

    /// Waits for the player line to show `symbol` and a time within a hundredth of `seconds`.
    static func waitForPlayer(
        _ tmux: TmuxSession, _ symbol: String, at seconds: Double, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let seen = tmux.waitUntil { playerTime($0, symbol).map { abs($0 - seconds) <= 0.011 } ?? false }
        #expect(
            seen, "the player line did not show \(symbol) \(seconds); the screen:\n\(tmux.screen())",
            sourceLocation: sourceLocation)
    }

    /// How `Format.clock` may show a position that `status --json` gave to the millisecond.
    static func clocks(near seconds: Double) -> Set<String> {
        [Format.clock(seconds - 0.001), Format.clock(seconds), Format.clock(seconds + 0.001)]
    }

    /// The paused playback's position once the view state has settled on it: two readings
    /// 1.2 s apart that agree (the player writes its position about once a second, so the
    /// frames of a period still playing when it paused may reach the disk a second later).
    static func settledPosition(_ cli: AudioCLI, sourceLocation: SourceLocation = #_sourceLocation) throws -> Double {
        var last = position(cli)
        for _ in 0..<8 {
            usleep(1_200_000)
            let now = position(cli)
            if let now, now == last { return now }
            last = now
        }
        return try #require(
            nil as Double?, "the paused position did not settle: \(String(describing: last))",
            sourceLocation: sourceLocation)
    }

    /// Quits with q and checks the exit status.
    static func quit(_ tmux: TmuxSession, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try tmux.send("q")
        let status = tmux.waitForExit()
        #expect(
            status == 0, "browse did not exit 0 after q: \(String(describing: status)); the screen:\n\(tmux.screen())",
            sourceLocation: sourceLocation)
    }

    // MARK: Navigation

    @Test func navigatingIntoAFolderAndBackChangesTheBreadcrumbAndRowsAndPwdShowsWhereItEnded() throws {
        let cli = try AudioCLI()
        for path in ["Alpha", "Work", "Work/Deep", "Work/Deep/Bottom"] { _ = try Self.succeed(cli, "mkdir", path) }
        let tmux = try Self.browse(cli)
        #expect(
            tmux.waitUntil { Self.breadcrumb($0) == "Recordings" && $0.contains { $0.hasPrefix("▸ Work/") } },
            "\(tmux.screen())")
        #expect(tmux.lines().contains { $0.hasPrefix("▸ Alpha/") })
        #expect(Self.detailTitle(tmux.lines()) == "Alpha", "\(tmux.screen())")

        try tmux.send("j")
        #expect(tmux.waitUntil { Self.detailTitle($0) == "Work" }, "\(tmux.screen())")
        try tmux.send("Enter")
        #expect(tmux.waitUntil { Self.breadcrumb($0) == "Recordings › Work" }, "\(tmux.screen())")
        #expect(
            tmux.waitUntil { $0.contains { $0.hasPrefix("▸ Deep/") } && !$0.contains { $0.hasPrefix("▸ Alpha/") } },
            "\(tmux.screen())")
        try tmux.send("Enter")
        #expect(
            tmux.waitUntil {
                Self.breadcrumb($0) == "Recordings › Work › Deep" && $0.contains { $0.hasPrefix("▸ Bottom/") }
            }, "\(tmux.screen())")
        // Backspace goes up, with the cursor on the folder it came from.
        try tmux.send("BSpace")
        #expect(
            tmux.waitUntil { Self.breadcrumb($0) == "Recordings › Work" && Self.detailTitle($0) == "Deep" },
            "\(tmux.screen())")
        try Self.quit(tmux)
        #expect(try Self.succeed(cli, "pwd").stdout == "/Work\n")

        // The next browse starts there; h goes up, and pwd follows again.
        let again = try Self.browse(cli)
        #expect(
            again.waitUntil { Self.breadcrumb($0) == "Recordings › Work" && $0.contains { $0.hasPrefix("▸ Deep/") } },
            "\(again.screen())")
        try again.send("h")
        #expect(
            again.waitUntil { Self.breadcrumb($0) == "Recordings" && Self.detailTitle($0) == "Work" },
            "\(again.screen())")
        try Self.quit(again)
        #expect(try Self.succeed(cli, "pwd").stdout == "/\n")
    }

    // MARK: Playing

    /// Esc and q sent together (one write, as a quick typist's or tmux's keys arrive) are two
    /// keys: the q after the Esc is not taken as part of an escape sequence, and quits.
    @Test func aQuickEscThenQQuits() throws {
        let cli = try AudioCLI()
        _ = try Self.succeed(cli, "mkdir", "Inbox")
        let tmux = try Self.browse(cli)
        #expect(tmux.waitUntil { Self.detailTitle($0) == "Inbox" }, "\(tmux.screen())")
        try tmux.send("Escape", "q")
        let status = tmux.waitForExit()
        #expect(status == 0, "browse did not quit on Esc q: \(String(describing: status)); \(tmux.screen())")
    }

    @Test func enterPlaysTheRecordingIntoTheFileSinkSampleForSample() throws {
        let cli = try AudioCLI()
        let samples = try RemoteControlTests.source(cli, name: "src", seconds: 3)
        #expect(samples.count == 3 * Self.rate)
        let tmux = try Self.browse(cli)
        #expect(tmux.waitUntil { Self.detailTitle($0) == "src" }, "\(tmux.screen())")
        try tmux.send("Enter")
        // The file sink takes it faster than real time; wait for all of it, then for the end.
        let whole = RemoteControlTests.eventually(timeout: 20) { cli.outputSamples().count >= samples.count }
        #expect(whole, "\(cli.outputSamples().count) of \(samples.count) samples reached the sink")
        #expect(RemoteControlTests.eventually(timeout: 10) { (try? Self.playing(cli)) == nil })
        let written = cli.outputSamples()
        #expect(written.count == samples.count)
        #expect(Bool(written == samples), "the sink's samples differ from the recording's")
        try Self.quit(tmux)
    }

    /// A 20-second recording, "src", played from browse on the real-time device until the
    /// player line shows a second, then paused with space: the browser, and where it paused
    /// (read once the position has settled).
    static func playThenPause(_ cli: AudioCLI, sourceLocation: SourceLocation = #_sourceLocation) throws -> (
        TmuxSession, Double
    ) {
        _ = try RemoteControlTests.source(cli, name: "src", seconds: 20)
        let tmux = try Self.browse(cli, ["--device", "pulse_both"])
        #expect(tmux.waitUntil { Self.detailTitle($0) == "src" }, "\(tmux.screen())", sourceLocation: sourceLocation)
        try tmux.send("Enter")
        // Playing in real time: the player line counts up. It runs up to 0.2 s ahead of the
        // engine's last report (carried on the clock between periods), so wait for 1.5 s to
        // be sure the pause lands after the first second.
        #expect(
            tmux.waitUntil { (Self.playerTime($0, "▶") ?? 0) >= 1.5 }, "\(tmux.screen())",
            sourceLocation: sourceLocation)
        #expect(try Self.playing(cli)?["paused"] as? Bool == false, sourceLocation: sourceLocation)
        try tmux.send("Space")
        tmux.waitFor("❚❚")
        #expect(
            try RemoteControlTests.eventually(timeout: 10) { try Self.playing(cli)?["paused"] as? Bool == true },
            sourceLocation: sourceLocation)
        // Paused is paused: the position stays put (playing, it would move 1.2 s between readings).
        return (tmux, try Self.settledPosition(cli, sourceLocation: sourceLocation))
    }

    @Test func spacePausesAndTheArrowsSeekOnARealTimeDevice() throws {
        let cli = try AudioCLI()
        let server = try Self.pulse(cli)
        defer { server.stop() }
        let (tmux, paused) = try Self.playThenPause(cli)
        #expect(paused >= 1 && paused < 15, "paused at \(paused)")
        Self.waitForPlayer(tmux, "❚❚", at: paused)
        #expect(
            tmux.lines().contains { $0.hasPrefix("❚❚ ") && $0.contains(" / 00:00:20") && $0.contains("paused") },
            "\(tmux.screen())")

        // → 5 s forward, ← 5 s back, still paused.
        try tmux.send("Right")
        #expect(
            RemoteControlTests.eventually(timeout: 10) { abs((Self.position(cli) ?? -1) - (paused + 5)) < 0.001 },
            "position \(String(describing: Self.position(cli))), expected \(paused + 5)")
        Self.waitForPlayer(tmux, "❚❚", at: paused + 5)
        try tmux.send("Left")
        #expect(
            RemoteControlTests.eventually(timeout: 10) { abs((Self.position(cli) ?? -1) - paused) < 0.001 },
            "position \(String(describing: Self.position(cli))), expected \(paused)")
        Self.waitForPlayer(tmux, "❚❚", at: paused)
        #expect(try Self.playing(cli)?["paused"] as? Bool == true)

        // Space again resumes from there.
        try tmux.send("Space")
        #expect(
            try RemoteControlTests.eventually(timeout: 10) {
                guard let now = try Self.playing(cli) else { return false }
                return now["paused"] as? Bool == false && (now["position"] as? Double ?? 0) > paused + 0.5
            })
        tmux.waitForGone("❚❚")
        // x stops it: the player line goes, and so does the job.
        try tmux.send("x")
        tmux.waitForGone("/ 00:00:20")
        #expect(try RemoteControlTests.eventually(timeout: 10) { try Self.playing(cli) == nil })
        try Self.quit(tmux)
    }

    /// `}` `{` `=` change the speed as in `play`: the player line shows it, `status` reports it.
    @Test(.enabled(if: SpeedTests.soundTouchInstalled))
    func speedKeysChangeTheSpeedAndThePlayerLineShowsIt() throws {
        let cli = try AudioCLI()
        let server = try Self.pulse(cli)
        defer { server.stop() }
        let (tmux, _) = try Self.playThenPause(cli)
        try tmux.send("}")
        #expect(
            tmux.waitUntil { $0.contains { $0.hasPrefix("❚❚ ") && $0.contains(" / 00:00:20  1.25×  src") } },
            "\(tmux.screen())")
        #expect(try RemoteControlTests.eventually(timeout: 10) { try Self.playing(cli)?["speed"] as? Double == 1.25 })
        try tmux.send("}")
        try tmux.send("{")
        try tmux.send("}")
        #expect(tmux.waitUntil { $0.contains { $0.contains(" / 00:00:20  1.5×  src") } }, "\(tmux.screen())")
        try tmux.send("=")
        #expect(
            tmux.waitUntil { $0.contains { $0.hasPrefix("❚❚ ") && $0.contains(" / 00:00:20  src") } },
            "\(tmux.screen())")
        #expect(try RemoteControlTests.eventually(timeout: 10) { try Self.playing(cli)?["speed"] as? Double == 1 })
        try tmux.send("x")
        try Self.quit(tmux)
    }

    @Test func mWhilePlayingAddsAMarkerAtThePosition() throws {
        let cli = try AudioCLI()
        let server = try Self.pulse(cli)
        defer { server.stop() }
        // Paused first, so the marker's frame is known exactly.
        let (tmux, position) = try Self.playThenPause(cli)
        try tmux.send("m")
        let near = Self.clocks(near: position)
        #expect(
            tmux.waitUntil { $0.contains { line in near.contains { line.contains("marked " + $0) } } },
            "\(near) \(tmux.screen())")
        // The detail pane lists it.
        #expect(
            tmux.waitUntil { $0.contains { line in near.contains { line.contains("#1  " + $0) } } },
            "\(near) \(tmux.screen())")
        let marks = try Self.succeed(cli, "marks", "src", "--json")
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(marks.stdout.utf8)) as? [[String: Any]], "\(marks.stdout)")
        #expect(list.count == 1, "\(marks.stdout)")
        // status --json gives the position to the millisecond.
        let frame = try #require(list.first?["frame"] as? Int, "\(marks.stdout)")
        #expect(abs(Double(frame) - position * Double(Self.rate)) <= 48, "\(marks.stdout), paused at \(position)")
        try Self.quit(tmux)
    }

    // MARK: Recording

    @Test func rRecordsSStopsAndTheNameAlertSavesIt() throws {
        let cli = try AudioCLI()
        let server = try Self.pulse(cli)
        defer { server.stop() }
        _ = try Self.succeed(cli, "mkdir", "Inbox")
        let tmux = try Self.browse(cli, ["--device", "pulse_both"])
        #expect(tmux.waitUntil { Self.detailTitle($0) == "Inbox" }, "\(tmux.screen())")
        try tmux.send("Enter")
        #expect(tmux.waitUntil { Self.breadcrumb($0) == "Recordings › Inbox" }, "\(tmux.screen())")

        try tmux.send("r")
        tmux.waitFor("recording")
        tmux.waitFor("● 00:00:01")
        try tmux.send("s")
        tmux.waitFor("Name the recording")
        try tmux.send("C-u")
        try tmux.type("Standup notes")
        tmux.waitFor("Standup notes")
        try tmux.send("Enter")
        tmux.waitFor("saved /Inbox/Standup notes")
        #expect(tmux.waitUntil { $0.contains { $0.hasPrefix("  Standup notes") } }, "\(tmux.screen())")

        let listed = try Self.succeed(cli, "ls", "/Inbox", "--json")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let item = try #require(items.first { $0["name"] as? String == "Standup notes" }, "\(listed.stdout)")
        let duration = try #require(item["duration"] as? Double, "\(item)")
        #expect(duration >= 1, "\(item)")
        let recording = try #require(try cli.recordings().first { $0["name"] as? String == "Standup notes" })
        let file = try #require(recording["file"] as? String)
        let size = (try? FileManager.default.attributesOfItem(atPath: cli.store + "/audio/" + file)[.size] as? Int) ?? 0
        #expect(size > 0, "no audio in \(file)")

        // Esc on the name asks; n goes back to the name; Esc and y discard it to the trash.
        try tmux.send("r")
        tmux.waitFor("● 00:00:01")
        try tmux.send("Enter")
        tmux.waitFor("Name the recording")
        try tmux.send("Escape")
        tmux.waitFor("Discard this recording?")
        try tmux.send("n")
        tmux.waitFor("Name the recording")
        try tmux.send("Escape")
        tmux.waitFor("Discard this recording?")
        try tmux.send("y")
        tmux.waitFor("discarded: the recording is in the trash")
        #expect(try Self.names(cli, "/Inbox") == ["Standup notes"])
        try Self.quit(tmux)
    }

    /// A recording running from the browser is saved under its default name on the way out,
    /// as Ctrl-C saves one in `record`.
    @Test func quittingWhileRecordingSavesTheRecording() throws {
        let cli = try AudioCLI()
        let server = try Self.pulse(cli)
        defer { server.stop() }
        let tmux = try Self.browse(cli, ["--device", "pulse_both"])
        #expect(tmux.waitUntil { Self.breadcrumb($0) == "Recordings" }, "\(tmux.screen())")
        try tmux.send("r")
        tmux.waitFor("● 00:00:01")
        try Self.quit(tmux)
        let recordings = try cli.recordings()
        #expect(recordings.count == 1, "\(recordings)")
        #expect((recordings.first?["duration"] as? Double ?? 0) >= 1, "\(recordings)")
        #expect(try RemoteControlTests.status(cli) == nil)
    }

    /// The terminal closed (the pane killed: SIGHUP) while recording: the recording is saved.
    @Test func closingTheTerminalWhileRecordingSavesTheRecording() throws {
        let cli = try AudioCLI()
        let server = try Self.pulse(cli)
        defer { server.stop() }
        let tmux = try Self.browse(cli, ["--device", "pulse_both"])
        #expect(tmux.waitUntil { Self.breadcrumb($0) == "Recordings" }, "\(tmux.screen())")
        let pane = try #require(tmux.panePID)
        let browser = try #require(
            TmuxSession.descendants(of: pane, named: "recnotes").first, "no recnotes under the pane (pid \(pane))")
        try tmux.send("r")
        tmux.waitFor("● 00:00:01")
        try tmux.run(["kill-pane", "-t", tmux.target])
        #expect(
            RemoteControlTests.eventually(timeout: 20) { !processIsAlive(browser) },
            "browse (pid \(browser)) still runs")
        let recordings = try cli.recordings()
        #expect(recordings.count == 1, "\(recordings)")
        #expect((recordings.first?["duration"] as? Double ?? 0) >= 1, "\(recordings)")
    }

    // MARK: Store changes

    @Test func renameTrashAndUndo() throws {
        let cli = try AudioCLI()
        for name in ["Alpha", "Beta"] { _ = try Self.succeed(cli, "mkdir", name) }
        let tmux = try Self.browse(cli)
        #expect(tmux.waitUntil { Self.detailTitle($0) == "Alpha" }, "\(tmux.screen())")

        try tmux.send("R")
        tmux.waitFor("Rename")
        try tmux.send("C-u")
        try tmux.type("Gamma")
        tmux.waitFor("Gamma")
        try tmux.send("Enter")
        tmux.waitFor("renamed /Alpha to /Gamma")
        #expect(
            tmux.waitUntil { $0.contains { $0.hasPrefix("▸ Gamma/") } && !$0.contains { $0.hasPrefix("▸ Alpha/") } },
            "\(tmux.screen())")
        #expect(try Self.names(cli) == ["Beta", "Gamma"])
        // The cursor follows the renamed folder.
        #expect(Self.detailTitle(tmux.lines()) == "Gamma", "\(tmux.screen())")

        try tmux.send("d")
        tmux.waitFor("to the trash?")
        try tmux.send("y")
        tmux.waitFor("moved /Gamma to the trash (u undoes)")
        #expect(tmux.waitUntil { !$0.contains { $0.hasPrefix("▸ Gamma/") } }, "\(tmux.screen())")
        #expect(try Self.names(cli) == ["Beta"])

        try tmux.send("u")
        tmux.waitFor("undid #")
        #expect(tmux.waitUntil { $0.contains { $0.hasPrefix("▸ Gamma/") } }, "\(tmux.screen())")
        #expect(try Self.names(cli) == ["Beta", "Gamma"])
        // The selection is back on the item the undo brought back, not on its neighbour.
        #expect(tmux.waitUntil { Self.detailTitle($0) == "Gamma" }, "\(tmux.screen())")
        try tmux.send("u")
        #expect(
            tmux.waitUntil { $0.contains { $0.hasPrefix("▸ Alpha/") } && !$0.contains { $0.hasPrefix("▸ Gamma/") } },
            "\(tmux.screen())")
        #expect(try Self.names(cli) == ["Alpha", "Beta"])
        try Self.quit(tmux)
    }

    /// `t` edits the tags in the alert; `e` suspends the screen for $EDITOR and saves the note.
    @Test func tagsAndANoteInTheEditor() throws {
        let cli = try AudioCLI()
        _ = try Self.succeed(cli, "mkdir", "Alpha")
        let editor = cli.home + "/editor"
        try "#!/bin/sh\necho 'Call Bob about the budget' > \"$1\"\n".write(
            toFile: editor, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: editor)
        let tmux = try Self.browse(cli, environment: ["EDITOR": editor])
        #expect(tmux.waitUntil { Self.detailTitle($0) == "Alpha" }, "\(tmux.screen())")
        try tmux.send("t")
        tmux.waitFor("Tags (separated by spaces)")
        try tmux.type("work #urgent")
        tmux.waitFor("work #urgent")
        try tmux.send("Enter")
        #expect(tmux.waitUntil { $0.contains { $0.hasPrefix("▸ Alpha/ #urgent #work") } }, "\(tmux.screen())")
        try tmux.send("e")
        tmux.waitFor("saved the note of /Alpha")
        // The screen is back after the editor: header, row and the note in the detail pane.
        #expect(
            tmux.waitUntil {
                Self.breadcrumb($0) == "Recordings" && $0.contains { $0.hasSuffix("│ Call Bob about the budget") }
            },
            "\(tmux.screen())")
        let info = try Self.succeed(cli, "info", "Alpha", "--json")
        #expect(info.stdout.contains("Call Bob about the budget"), "\(info.stdout)")
        #expect(info.stdout.contains("\"urgent\"") && info.stdout.contains("\"work\""), "\(info.stdout)")
        try Self.quit(tmux)
    }

    /// `E` turns the selected recording's enhancement on and off through the store, as
    /// `recnotes enhance` does: the detail pane shows it, `info` and `history` see it.
    @Test func capitalEEnhancesTheSelectedRecording() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 48_000))
        _ = try Self.succeed(cli, "record", "talk", "--format", "wav", "--duration", "1")
        let tmux = try Self.browse(cli)
        #expect(tmux.waitUntil { $0.contains { $0.hasSuffix("│ Enhance   off") } }, "\(tmux.screen())")
        try tmux.send("E")
        #expect(
            tmux.waitUntil { $0.contains { $0.hasSuffix("│ Enhance   level on, denoise on") } }, "\(tmux.screen())")
        #expect(try Self.succeed(cli, "enhance", "talk").stdout == "/talk: level on, denoise on\n")
        try tmux.send("E")
        #expect(tmux.waitUntil { $0.contains { $0.hasSuffix("│ Enhance   off") } }, "\(tmux.screen())")
        #expect(try Self.succeed(cli, "enhance", "talk").stdout == "/talk: level off, denoise off\n")
        #expect(try Self.succeed(cli, "history").stdout.contains("enhance /talk: level on, denoise on"))
        try Self.quit(tmux)
    }

    /// `/` narrows the list as find --text does: case and accents ignored, and a folder shows
    /// for a match inside it; Esc clears.
    @Test func slashFiltersTheListAsFindTextDoes() throws {
        let cli = try AudioCLI()
        for path in ["Alpha", "Beta Café", "Work", "Work/Budget"] { _ = try Self.succeed(cli, "mkdir", path) }
        let tmux = try Self.browse(cli)
        #expect(tmux.waitUntil { $0.first?.hasSuffix("3 items") == true }, "\(tmux.screen())")
        try tmux.send("/")
        try tmux.type("BETA cafe")
        #expect(
            tmux.waitUntil { $0.first?.hasSuffix("1 found") == true && $0.contains { $0.hasPrefix("▸ Beta Café/") } },
            "\(tmux.screen())")
        try tmux.send("C-u")
        try tmux.type("Bud")
        #expect(
            tmux.waitUntil { $0.first?.hasSuffix("1 found") == true && $0.contains { $0.hasPrefix("▸ Work/") } },
            "\(tmux.screen())")
        try tmux.send("Escape")
        #expect(
            tmux.waitUntil { $0.first?.hasSuffix("3 items") == true && $0.contains { $0.hasPrefix("▸ Alpha/") } },
            "\(tmux.screen())")
        try Self.quit(tmux)
    }

    @Test func anotherProcessesMkdirShowsWithNoKeyPressed() throws {
        let cli = try AudioCLI()
        _ = try Self.succeed(cli, "mkdir", "Alpha")
        let trace = cli.home + "/trace"
        let tmux = try Self.browse(cli, environment: ["RECNOTES_BROWSE_TRACE": trace])
        #expect(tmux.waitUntil { $0.contains { $0.hasPrefix("▸ Alpha/") } }, "\(tmux.screen())")
        let before = Date()
        _ = try Self.succeed(cli, "mkdir", "Fresh")
        #expect(tmux.waitUntil { $0.contains { $0.hasPrefix("▸ Fresh/") } }, "\(tmux.screen())")
        print(
            "browse: another process's mkdir on screen \(Int(Date().timeIntervalSince(before) * 1000)) ms after it returned"
        )
        #expect(tmux.lines().first?.hasSuffix("2 items") == true, "\(tmux.screen())")
        // Drawn because the store changed (inotify), not a key or a tick.
        let causes = ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n").map {
            $0.split(separator: " ")
        }
        #expect(causes.contains { $0.count == 4 && $0[2] == "store" }, "\(causes)")
        #expect(!causes.contains { $0.count == 4 && $0[2] == "key" }, "\(causes)")
        try Self.quit(tmux)
    }

    // MARK: Large stores

    /// `browse` reads what it shows through the reads' table, not the whole document: an item
    /// far from the folder it opens in, made undecodable in `store.json` in a way the table
    /// still indexes (the same bytes' length, inode and time), is never read. It opens, counts
    /// a folder's items from the table, and enters another folder; reading the whole store,
    /// as `browse` did, fails on that item (as `ls` of its folder does).
    @Test func opensWithoutDecodingTheItemsItDoesNotShow() throws {
        let cli = try AudioCLI()
        for path in ["Near", "Near/Inner", "Far", "Far/Deep"] { _ = try Self.succeed(cli, "mkdir", path) }
        let storeFile = cli.store + "/store.json"
        // Older than a second: the table trusts the file by its identity (a newer one is hashed).
        let old = time(nil) - 10
        var times = [timespec(tv_sec: old, tv_nsec: 0), timespec(tv_sec: old, tv_nsec: 0)]
        utimensat(AT_FDCWD, storeFile, &times, 0)
        _ = try Self.succeed(cli, "ls", "/")
        #expect(FileManager.default.fileExists(atPath: cli.store + "/cache/items-table"), "ls made no table")
        // Far/Deep's object opened with `[`: one byte changed in place, the time put back.
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: storeFile)))
        let name = Array("\"Deep\"".utf8)
        let at = try #require((0..<(bytes.count - name.count)).first { Array(bytes[$0..<($0 + name.count)]) == name })
        let brace = try #require(bytes[..<at].lastIndex(of: UInt8(ascii: "{")))
        let fd = open(storeFile, O_WRONLY)
        try #require(fd >= 0)
        var bracket = UInt8(ascii: "[")
        #expect(pwrite(fd, &bracket, 1, off_t(brace)) == 1)
        close(fd)
        utimensat(AT_FDCWD, storeFile, &times, 0)
        #expect(try cli.run("ls", "/Far").status != 0, "the whole store still decodes: the test proves nothing")

        let tmux = try Self.browse(cli)
        #expect(
            tmux.waitUntil {
                Self.detailTitle($0) == "Far" && $0.contains { $0.hasPrefix("▸ Near/") }
                    && $0.contains { $0.hasSuffix("│ Folder    1 folder, 0 recordings") }
            }, "\(tmux.screen())")
        try tmux.send("j")
        #expect(tmux.waitUntil { Self.detailTitle($0) == "Near" }, "\(tmux.screen())")
        try tmux.send("Enter")
        #expect(
            tmux.waitUntil { Self.breadcrumb($0) == "Recordings › Near" && $0.contains { $0.hasPrefix("▸ Inner/") } },
            "\(tmux.screen())")
        try Self.quit(tmux)
        #expect(try Self.succeed(cli, "pwd").stdout == "/Near\n")
    }

    /// Other processes' changes to the folder shown: a tag (spliced into `store.json`, the
    /// table patched), a move (the whole store written, the table made again) and an edit
    /// made outside recnotes (the table then names another file, and `browse` reads the whole
    /// store once), each on screen with no key pressed.
    @Test func anotherProcessesChangesShowInTheFolderShown() throws {
        let cli = try AudioCLI()
        for path in ["Work", "Work/Alpha", "Work/Beta"] { _ = try Self.succeed(cli, "mkdir", path) }
        let tmux = try Self.browse(cli)
        #expect(tmux.waitUntil { Self.detailTitle($0) == "Work" }, "\(tmux.screen())")
        try tmux.send("Enter")
        #expect(
            tmux.waitUntil { Self.breadcrumb($0) == "Recordings › Work" && $0.contains { $0.hasPrefix("▸ Beta/") } },
            "\(tmux.screen())")

        // Absolute: browse keeps its folder as the current one (`cd`).
        _ = try Self.succeed(cli, "tag", "/Work/Alpha", "+urgent")
        #expect(tmux.waitUntil { $0.contains { $0.hasPrefix("▸ Alpha/ #urgent") } }, "\(tmux.screen())")
        _ = try Self.succeed(cli, "mv", "/Work/Beta", "/")
        #expect(
            tmux.waitUntil { !$0.contains { $0.hasPrefix("▸ Beta/") } && $0.first?.hasSuffix("1 item") == true },
            "\(tmux.screen())")

        let storeFile = cli.store + "/store.json"
        let text = try String(contentsOfFile: storeFile, encoding: .utf8)
        #expect(text.contains("\"Alpha\""))
        try text.replacingOccurrences(of: "\"Alpha\"", with: "\"Gamma\"").write(
            toFile: storeFile, atomically: true, encoding: .utf8)
        #expect(
            tmux.waitUntil { $0.contains { $0.hasPrefix("▸ Gamma/ #urgent") } && Self.detailTitle($0) == "Gamma" },
            "\(tmux.screen())")
        try Self.quit(tmux)
        #expect(try Self.names(cli, "/Work") == ["Gamma"])
    }

    /// Another shell's playback of a recording in a folder `browse` has not read: the view
    /// state's change makes it read that recording (through the table), and the player line
    /// names it where it is.
    @Test func anotherProcessesPlaybackOutsideTheFolderShownIsNamed() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 48_000))
        _ = try Self.succeed(cli, "mkdir", "Deep")
        _ = try Self.succeed(cli, "record", "Deep/talk", "--format", "wav", "--duration", "1")
        _ = try Self.succeed(cli, "ls", "/")  // the table, so that browse opens through it
        let tmux = try Self.browse(cli)
        #expect(tmux.waitUntil { Self.detailTitle($0) == "Deep" }, "\(tmux.screen())")
        _ = try Self.succeed(cli, "play", "/Deep/talk", "--background", "--paused")
        #expect(
            tmux.waitUntil { $0.contains { $0.contains("/Deep/talk") && $0.contains("playing in pid") } },
            "\(tmux.screen())")
        _ = try Self.succeed(cli, "stop")
        #expect(tmux.waitUntil { !$0.contains { $0.contains("playing in pid") } }, "\(tmux.screen())")
        try Self.quit(tmux)
    }

    // MARK: The terminal

    @Test func theLayoutRedrawsAtTheNewSizeOnResize() throws {
        let cli = try AudioCLI()
        _ = try Self.succeed(cli, "mkdir", "Alpha")
        let tmux = try Self.browse(cli, width: 80, height: 24)
        /// The header's item count ends one column before the edge; the list's separator sits at
        /// `BrowseLayout.listWidth`; the key hints are on the last row.
        func laidOut(_ lines: [String], width: Int, height: Int) -> Bool {
            guard lines.count == height, let header = lines.first, header.count == width - 1, header.hasSuffix("1 item")
            else { return false }
            let split = BrowseLayout.listWidth(width)
            let row = Array(lines[1])
            return row.count > split && row[split] == "│" && lines[height - 1].hasPrefix("Enter open")
        }
        #expect(tmux.waitUntil { laidOut($0, width: 80, height: 24) }, "\(tmux.screen())")
        try tmux.resize(width: 120, height: 40)
        #expect(tmux.waitUntil { laidOut($0, width: 120, height: 40) }, "\(tmux.screen())")
        try tmux.resize(width: 30, height: 8)
        // Too small: it asks for the size it needs, not cut off at the edge.
        #expect(tmux.waitUntil { $0.contains { $0.contains("40×10 (q quits)") } }, "\(tmux.screen())")
        try tmux.resize(width: 80, height: 24)
        #expect(tmux.waitUntil { laidOut($0, width: 80, height: 24) }, "\(tmux.screen())")
        try Self.quit(tmux)
    }

    /// A shell in the terminal runs browse between two `stty -g`; q, Ctrl-C, or a SIGTERM,
    /// SIGHUP or SIGINT from elsewhere ends it, and the shell's prompt and tty modes are back.
    @Test(arguments: ["q", "C-c", "SIGTERM", "SIGHUP", "SIGINT"])
    func theTerminalIsRestoredOnTheWayOut(way: String) throws {
        let cli = try AudioCLI()
        _ = try Self.succeed(cli, "mkdir", "Alpha")
        // In HOME, with the binary as $B: the command line fits on one row.
        let tmux = try TmuxSession(
            directory: cli.home, environment: Self.environment(cli, ["PS1": "ready$ ", "B": AudioCLI.binary]),
            command: ["/bin/bash", "--norc", "--noprofile", "-i"])
        #expect(tmux.waitUntil { $0.last { !$0.isEmpty } == "ready$" }, "\(tmux.screen())")
        let before = cli.home + "/before"
        let after = cli.home + "/after"
        try tmux.type("stty -g >before; $B browse; echo \"browse exited $?\"; stty -g >after")
        try tmux.send("Enter")
        #expect(
            tmux.waitUntil { Self.breadcrumb($0) == "Recordings" && $0.contains { $0.hasPrefix("▸ Alpha/") } },
            "\(tmux.screen())")
        // Not vacuous: while browse runs, the tty's modes are not the shell's.
        let shell = try #require(tmux.panePID)
        let browser = try #require(
            TmuxSession.descendants(of: shell, named: "recnotes").first, "no recnotes under the shell (pid \(shell))")
        let tty = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(browser)/fd/0")
        let modes = try Sandbox.execute("/bin/stty", ["-F", tty, "-g"], environment: [:])
        let saved = try String(contentsOfFile: before, encoding: .utf8)
        #expect(modes.status == 0 && modes.stdout != saved, "\(modes) vs \(saved)")

        switch way {
        case "SIGTERM": #expect(kill(browser, SIGTERM) == 0)
        case "SIGHUP": #expect(kill(browser, SIGHUP) == 0)
        case "SIGINT": #expect(kill(browser, SIGINT) == 0)
        default: try tmux.send(way)
        }
        #expect(
            tmux.waitUntil { $0.contains("browse exited 0") && $0.last { !$0.isEmpty } == "ready$" }, "\(tmux.screen())"
        )
        // The shell's screen is back as it was: the command line, then what followed it.
        let lines = tmux.lines().filter { !$0.isEmpty }
        #expect(
            lines.count == 3 && lines.first?.hasPrefix("ready$ stty -g >before;") == true
                && lines[1] == "browse exited 0", "\(lines)")
        #expect(RemoteControlTests.eventually(timeout: 10) { FileManager.default.fileExists(atPath: after) })
        let restored = RemoteControlTests.eventually(timeout: 10) {
            (try? String(contentsOfFile: after, encoding: .utf8)) == saved
        }
        #expect(
            restored,
            "stty -g before: \(saved) after: \(String(describing: try? String(contentsOfFile: after, encoding: .utf8)))"
        )
        #expect(!processIsAlive(browser))
    }

    @Test func notAtATerminalItRefusesWithExit64() throws {
        let cli = try AudioCLI()
        let result = try cli.run("browse")
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("recnotes: browse: "), "\(result.stderr)")
    }

    @Test func termDumbIsRefusedNamingTheOtherSubcommands() throws {
        let cli = try AudioCLI()
        let errors = cli.home + "/stderr"
        let tmux = try TmuxSession(
            directory: cli.home, environment: Self.environment(cli, ["TERM": "dumb"]),
            command: ["/bin/sh", "-c", "exec \(AudioCLI.binary) browse 2> \(errors)"])
        #expect(tmux.waitForExit() == 64, "\(tmux.screen())")
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")
        #expect(stderr.hasPrefix("recnotes: browse: ") && stderr.contains("TERM=dumb"), "\(stderr)")
        for subcommand in ["ls", "find", "play", "record"] {
            #expect(stderr.contains(subcommand), "\(stderr) does not name \(subcommand)")
        }
    }
}

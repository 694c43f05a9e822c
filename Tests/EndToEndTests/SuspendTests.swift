import Foundation
import RecCore
import Testing

/// Ctrl-Z and `fg` with a playback at a real terminal: an interactive bash in a tmux pane (job
/// control), a real-time PulseAudio device. The terminal is given back in line mode while the
/// job is stopped, `status` says it is suspended, and after `fg` a single key works again.
@Suite("Ctrl-Z and fg", .serialized)
struct SuspendTests {
    typealias B = BrowseTerminalTests

    /// An interactive bash (job control) in a tmux pane, its prompt shown, with `recnotes
    /// ARGUMENTS` typed and entered.
    static func shell(_ cli: AudioCLI, running arguments: String) throws -> TmuxSession {
        let tmux = try TmuxSession(
            width: 100, height: 24, directory: cli.home, environment: B.environment(cli, ["PS1": "$ "]),
            command: ["/bin/bash", "--norc", "--noprofile", "-i"])
        #expect(tmux.waitUntil { $0.contains("$") }, "\(tmux.screen())")
        try tmux.type("\(AudioCLI.binary) \(arguments)")
        try tmux.send("Enter")
        return tmux
    }

    static func playing(_ cli: AudioCLI) throws -> [String: Any]? {
        let status = try cli.run("status", "--json")
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        return json?["playing"] as? [String: Any]
    }

    /// The `recnotes browse` process of this test's store (others run in parallel).
    static func browsePid(_ cli: AudioCLI) -> Int32? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for name in names {
            guard let pid = Int32(name),
                let cmdline = FileManager.default.contents(atPath: "/proc/\(name)/cmdline"),
                let environ = FileManager.default.contents(atPath: "/proc/\(name)/environ")
            else { continue }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments == [AudioCLI.binary, "browse"] && variables.contains("RECNOTES_HOME=\(cli.store)") {
                return pid
            }
        }
        return nil
    }

    @Test func ctrlZGivesTheTerminalBackAndFgTakesItAgain() throws {
        let cli = try AudioCLI()
        let server = try B.pulse(cli)
        defer { server.stop() }
        _ = try RemoteControlTests.source(cli, seconds: 30)
        let tmux = try Self.shell(cli, running: "play src --device pulse_sink")
        #expect(tmux.waitUntil { $0.contains { $0.contains("▶ 00:00:01") } }, "\(tmux.screen())")

        try tmux.send("C-z")
        #expect(tmux.waitUntil { $0.contains { $0.contains("Stopped") } }, "\(tmux.screen())")
        #expect(
            try RemoteControlTests.eventually(timeout: 10) { try Self.playing(cli)?["suspended"] as? Bool == true },
            "\(String(describing: try? Self.playing(cli)))")
        #expect(try cli.run("status").stdout.contains("suspended"))

        try tmux.type("fg")
        try tmux.send("Enter")
        #expect(
            try RemoteControlTests.eventually(timeout: 10) { try Self.playing(cli)?["suspended"] as? Bool == false })
        // One key, no Enter: the player has the terminal in raw mode again.
        try tmux.send("Space")
        #expect(
            try RemoteControlTests.eventually(timeout: 10) { try Self.playing(cli)?["paused"] as? Bool == true },
            "\(tmux.screen())")
        try tmux.send("q")
        #expect(try RemoteControlTests.eventually(timeout: 10) { try Self.playing(cli) == nil }, "\(tmux.screen())")
    }

    @Test func browseSuspendsOnCtrlZAndComesBackWhole() throws {
        let cli = try AudioCLI()
        _ = try B.succeed(cli, "mkdir", "Inbox")
        let tmux = try Self.shell(cli, running: "browse")
        #expect(tmux.waitUntil { B.detailTitle($0) == "Inbox" }, "\(tmux.screen())")
        try tmux.send("C-z")
        // The shell's screen, with the job stopped: not the browser's.
        #expect(
            tmux.waitUntil { $0.contains { $0.contains("Stopped") } && B.detailTitle($0) != "Inbox" },
            "\(tmux.screen())")
        try tmux.type("fg")
        try tmux.send("Enter")
        #expect(tmux.waitUntil { B.detailTitle($0) == "Inbox" }, "\(tmux.screen())")
        try tmux.send("q")
        #expect(tmux.waitUntil { !$0.contains { $0.contains("Inbox") } && $0.contains("$") }, "\(tmux.screen())")
        // The shell has its line mode back, and browse ended as q ends it.
        try tmux.type("echo quit-$?")
        try tmux.send("Enter")
        #expect(tmux.waitUntil { $0.contains("quit-0") }, "\(tmux.screen())")
    }

    /// SIGTSTP sent from elsewhere (kill -TSTP, as a job-control shell's `suspend` or a
    /// script would) suspends browse as Ctrl-Z does: the shell's screen back, and `fg` brings
    /// it back whole. Without taking the signal, browse stopped in raw mode on the
    /// alternate screen, and after `fg` it was not drawn again.
    @Test func browseSuspendsOnSIGTSTPFromElsewhere() throws {
        let cli = try AudioCLI()
        _ = try B.succeed(cli, "mkdir", "Inbox")
        let tmux = try Self.shell(cli, running: "browse")
        #expect(tmux.waitUntil { B.detailTitle($0) == "Inbox" }, "\(tmux.screen())")
        let pid = try #require(Self.browsePid(cli), "no browse process for \(cli.store)")
        kill(pid, SIGTSTP)
        #expect(
            tmux.waitUntil { $0.contains { $0.contains("Stopped") } && B.detailTitle($0) != "Inbox" },
            "\(tmux.screen())")
        try tmux.type("echo stopped-$(jobs | wc -l)")
        try tmux.send("Enter")
        #expect(tmux.waitUntil { $0.contains("stopped-1") }, "\(tmux.screen())")
        try tmux.type("fg")
        try tmux.send("Enter")
        #expect(tmux.waitUntil { B.detailTitle($0) == "Inbox" }, "\(tmux.screen())")
        // q and the next command typed ahead in one go: browse quits on q and leaves the rest
        // to the shell (it used to read on past q, and the e of echo opened the note editor).
        try tmux.type("qecho quit-$?")
        try tmux.send("Enter")
        #expect(tmux.waitUntil { $0.contains("quit-0") }, "\(tmux.screen())")
    }
}

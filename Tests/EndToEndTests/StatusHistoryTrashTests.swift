import Foundation
import RecCore
import Testing

/// Small things a new user met: status --json with nothing running, history
/// showing an internal flag, and trash empty deleting for good without asking.
@Suite("status, history and trash empty: what a command tells and asks")
struct StatusHistoryTrashTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test("status --json with nothing running prints both jobs as null, exit 1")
    func statusJSONWithNothingRunning() throws {
        let result = try sandbox.run("status", "--json")
        #expect(result.status == 1)
        let json = try result.object()
        #expect(json["recording"] is NSNull)
        #expect(json["playing"] is NSNull)
        #expect(json.count == 2)
        #expect(result.stderr == "recnotes: nothing is recording or playing\n")
    }

    @Test("history shows a background job's command as typed, without the internal flag")
    func historyHidesTheChildFlag() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 48_000))
        let made = try cli.run("record", "memo", "--format", "wav", "--duration", "0.2", "--background")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(RemoteControlTests.eventually { (try? cli.recordings().count) == 1 })
        #expect(RemoteControlTests.eventually { (try? cli.run("status").status) == 1 })
        let history = try cli.run("history", "--json")
        #expect(history.status == 0)
        #expect(!history.stdout.contains("background-child"), "\(history.stdout)")
        #expect(
            history.stdout.contains("\"summary\": \"recnotes record memo --format wav --duration 0.2 --background\""),
            "\(history.stdout)")
        #expect(history.stdout.contains("\"change\": \"add /memo\""), "\(history.stdout)")
    }

    @Test("trash empty refuses without --yes when not at a terminal, and --yes empties it")
    func trashEmptyNeedsYes() throws {
        try sandbox.succeed("mkdir", "X")
        try sandbox.succeed("rm", "X")
        let before = sandbox.storeBytes
        expectFailure(
            try sandbox.run("trash", "empty"), status: 64,
            message: "recnotes: trash empty: deletes the trash for good; pass --yes to do it without asking")
        #expect(sandbox.storeBytes == before)
        try sandbox.succeed("trash", "empty", "--yes")
        #expect(try sandbox.succeed("trash", "ls").stdout.isEmpty)
    }

    @Test(
        "trash empty at a terminal asks, and only y empties it",
        .enabled(if: TerminalKeysTests.scriptInstalled), .timeLimit(.minutes(1)))
    func trashEmptyAsks() throws {
        let cli = try AudioCLI()
        #expect(try cli.run("mkdir", "X").status == 0)
        #expect(try cli.run("rm", "X").status == 0)
        let no = try TerminalKeysTests.Screen(cli, ["trash", "empty"])
        #expect(no.waitFor("[y/N] "))
        no.type("\n")
        #expect(no.finish().status == 0)
        #expect(try cli.run("trash", "ls").stdout.contains("/X"))
        let yes = try TerminalKeysTests.Screen(cli, ["trash", "empty"])
        #expect(yes.waitFor("Delete 1 item in the trash for good, audio included? [y/N] "))
        yes.type("y\n")
        #expect(yes.finish().status == 0)
        #expect(try cli.run("trash", "ls").stdout.isEmpty)
    }
}

import Foundation
import RecCore
import Testing

/// Small things a new user met (issue 17): status --json with nothing running, and history
/// showing an internal flag.
@Suite("Feedback")
struct FeedbackTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @discardableResult
    func run(_ arguments: String...) throws -> Run {
        let result = try sandbox.run(arguments)
        expectSuccess(result)
        return result
    }

    func object(_ run: Run) throws -> [String: Any] {
        try #require(try run.json() as? [String: Any], "\(run)")
    }

    @Test("status --json with nothing running prints both jobs as null, exit 1")
    func statusJSONWithNothingRunning() throws {
        let result = try sandbox.run("status", "--json")
        #expect(result.status == 1)
        let json = try object(result)
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
        let history = try cli.run("history")
        #expect(history.status == 0)
        #expect(!history.stdout.contains("background-child"), "\(history.stdout)")
        #expect(history.stdout.contains("recnotes record memo --format wav --duration 0.2 --background"), "\(history.stdout)")
    }
}

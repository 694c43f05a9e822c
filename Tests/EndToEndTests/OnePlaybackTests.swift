import Foundation
import RecCore
import RecSystem
import Testing

/// One playback at a time: a new `play` stops the one running (through the same view-state
/// path `recnotes stop` uses) and says so.
@Suite("Play: one playback at a time", .serialized)
struct OnePlaybackTests {
    @Test func aSecondBackgroundPlayStopsTheFirst() throws {
        let cli = try AudioCLI()
        let reaper = RemoteControlTests.Reaper()
        _ = try RemoteControlTests.source(cli, name: "a", seconds: 5)
        _ = try RemoteControlTests.source(cli, name: "b", seconds: 5)
        let first = try RemoteControlTests.background(cli, reaper, ["play", "a", "--paused"])
        let firstPID = try #require(first["pid"] as? Int)
        let second = try cli.run("play", "b", "--paused", "--background", "--json")
        #expect(second.status == 0, "\(second.stderr)")
        let job = try #require(RemoteControlTests.object(second.stdout), "\(second.stdout)")
        reaper.pids.append(Int32(job["pid"] as? Int ?? 0))
        #expect(second.stderr == "recnotes: play: stopped the playback of /a (pid \(firstPID))\n")
        // The first has ended, not merely lost its slot.
        #expect(RemoteControlTests.eventually(timeout: 10) { !processIsAlive(Int32(firstPID)) })
        let status = try cli.run("status", "--json")
        #expect(status.stdout.contains("\"/b\"") && !status.stdout.contains("\"/a\""), "\(status.stdout)")
        // And stop reaches the one that is left.
        let stopped = try cli.run("stop")
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(try cli.run("status").status == 1)
    }

    @Test func aPlayThatFailsLeavesTheRunningOneAlone() throws {
        let cli = try AudioCLI()
        let reaper = RemoteControlTests.Reaper()
        _ = try RemoteControlTests.source(cli, name: "a", seconds: 5)
        let first = try RemoteControlTests.background(cli, reaper, ["play", "a", "--paused"])
        let failed = try cli.run("play", "missing")
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(processIsAlive(Int32(first["pid"] as! Int)))
        #expect(try cli.run("stop").status == 0)
    }
}

import Foundation
import RecSystem
import RecTestSupport
import RecValues
import Synchronization
import Testing

@testable import RecStore

/// An engine as the follower sees one: frames that advance with the clock at `rate` while it
/// runs, moved by hand to stand for a seek or a pause by a key.
private final class ClockEngine: FollowedEngine, @unchecked Sendable {
    let rate = 1000
    private let started = MonotonicClock.now()
    private let offset = Mutex<(frames: Int64, paused: Bool)>((0, false))
    var onApplied: (() -> Void)?

    func submit(_ action: ViewState.ControlAction, sequence: Int) {}

    var state: (applied: Int, paused: Bool, frames: Int64) {
        let (offset, paused) = offset.withLock { $0 }
        let running = paused ? 0 : Int64((MonotonicClock.now() - started) * Double(rate))
        return (0, paused, offset + running)
    }

    var speed: Double { 1 }

    func seek(by frames: Int64) { offset.withLock { $0.frames += frames } }

    func pause() {
        let frames = state.frames
        offset.withLock { $0 = (frames, true) }
    }
}

@Suite("Remote follower: when a running job's position is written")
struct RemoteFollowerTests {
    /// Each write of viewstate.json is a rename, so a new inode: the writes seen by looking
    /// every 20 ms for `seconds`.
    static func writes(of path: String, during seconds: Double) -> Int {
        func identity(_ path: String) -> UInt64? {
            var info = stat()
            return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
        }
        var inode = identity(path)
        var count = 0
        let end = MonotonicClock.now() + seconds
        while MonotonicClock.now() < end {
            usleep(20_000)
            let now = identity(path)
            if now != inode {
                count += 1
                inode = now
            }
        }
        return count
    }

    @Test("a running job is written once soon, then at the interval; a seek or a pause at once")
    func positionWrites() throws {
        let dir = try TemporaryDirectory()
        let store = try ViewStateStore(location: dir.location)
        let id = ItemID("cccccccc-0000-4000-8000-000000000003")!
        let engine = ClockEngine()
        try store.transaction { vs in
            vs.recordingStarted(
                .init(
                    id: id, parent: .root, name: "take", file: "\(id).wav", format: .wav,
                    sampleRate: engine.rate, channels: 1, pid: getpid(), started: .now()))
        }
        let follower = try RemoteFollower(
            location: dir.location, job: .recording, id: id, mailbox: engine, sampleRate: engine.rate)
        try follower.start()
        defer { follower.stop() }
        let path = dir.location.viewStateFile
        // The first report within about a second; then none until the interval, 5 s. Once a
        // second this saw 3 or 4.
        #expect(Self.writes(of: path, during: 3.5) == 1)
        let reported = try #require(ViewStateStore(location: dir.location).state.recording)
        #expect(reported.position > 0.5 && reported.position < 3)
        // A seek by a key is no command: the follower sees the position stray from the clock.
        engine.seek(by: 30 * Int64(engine.rate))
        #expect(Self.writes(of: path, during: 2.5) == 1)
        let sought = try #require(ViewStateStore(location: dir.location).state.recording)
        #expect(sought.position > 30)
        engine.pause()
        #expect(Self.writes(of: path, during: 2.5) >= 1)
        #expect(try ViewStateStore(location: dir.location).state.recording?.control.paused == true)
    }
}

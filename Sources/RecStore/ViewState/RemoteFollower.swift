import RecSystem
import RecValues
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The engine a follower keeps in step. RecStore knows no engine: the layer above hands the
/// follower the engine's mailbox (`ControlMailbox` conforms in RecCore).
package protocol FollowedEngine: AnyObject, Sendable {
    /// Queues a view-state command, numbered `sequence`, for the engine.
    func submit(_ action: ViewState.ControlAction, sequence: Int)
    /// What the engine last published: the highest sequence it applied, whether it is
    /// paused, and the frame it reached.
    var state: (applied: Int, paused: Bool, frames: Int64) { get }
    /// The speed a player last published (1 for a recorder), published before the state
    /// that acknowledges its change.
    var speed: Double { get }
    /// Called by the engine after it applied remote commands (on its audio thread: it must
    /// only signal, never block).
    var onApplied: (() -> Void)? { get set }
}

/// Keeps a running recorder or player in step with the view state, on a thread of its own
/// so that neither capture nor playback ever waits for the disk or the lock.
///
/// When another process queues commands for this job, the follower hands the new ones (by
/// sequence number) to the engine's mailbox. When the engine has applied them and sent its
/// events, the follower acknowledges under the view-state lock: it removes what was
/// applied and writes the paused flag and position the engine reached. Every
/// `ViewState.Control.reportInterval` it also writes the position, which `status` carries
/// forward on the clock in between, and when it stops it writes where the engine ended. It
/// is the only writer of a running job's position.
// @unchecked Sendable: `thread` is set by `start` and cleared by `stop`, both on the
// thread that owns the follower; the follower thread uses only the immutable members, its
// own store object, `closing` (behind a Mutex) and the watcher and mailbox, which are
// thread-safe.
package final class RemoteFollower: @unchecked Sendable {
    private let location: StoreLocation
    private let job: ViewState.Job
    private let id: ItemID
    private let pid = getpid()
    private let mailbox: any FollowedEngine
    private let sampleRate: Int
    private let watcher: ViewStateWatcher
    /// Its own store object: the session's belongs to the main thread.
    private let store: ViewStateStore
    private var thread: JoinableThread?
    /// What the owner wants done in the follower's last write (the job's end).
    private let closing = Mutex<(@Sendable (inout ViewStateStore.Transaction) -> Void)?>(nil)

    package init(location: StoreLocation, job: ViewState.Job, id: ItemID, mailbox: any FollowedEngine, sampleRate: Int)
        throws
    {
        self.location = location
        self.job = job
        self.id = id
        self.mailbox = mailbox
        self.sampleRate = sampleRate
        watcher = try ViewStateWatcher(location: location, source: .wakeSignal)
        store = try ViewStateStore(location: location)
        mailbox.onApplied = { [watcher] in watcher.wake() }
    }

    package func start() throws {
        guard thread == nil else { return }
        thread = try JoinableThread { [self] in loop() }
    }

    /// Runs `body` (the engine's loop) while a follower keeps the job in step with the view
    /// state. Without inotify (out of watches) the job still runs, only not remotely.
    package static func following<T>(
        location: StoreLocation, job: ViewState.Job, id: ItemID, mailbox: any FollowedEngine,
        sampleRate: Int, _ body: () throws -> T
    ) rethrows -> T {
        let follower = try? RemoteFollower(
            location: location, job: job, id: id, mailbox: mailbox, sampleRate: sampleRate)
        try? follower?.start()
        defer { follower?.stop() }
        return try body()
    }

    /// Stops following; what the engine applied by now, and where it ended, are
    /// acknowledged first. `closing` joins that last write, so that a job's end and its
    /// final position reach the disk together (run only if the follower was running).
    /// Returns whether it was running, that is whether `closing` had its write.
    @discardableResult
    package func stop(closing: (@Sendable (inout ViewStateStore.Transaction) -> Void)? = nil) -> Bool {
        let running = thread != nil
        if running { self.closing.withLock { $0 = closing } }
        watcher.stop()
        thread?.join()
        thread = nil
        self.closing.withLock { $0 = nil }
        mailbox.onApplied = nil
        return running
    }

    deinit { stop() }

    private func loop() {
        var forwarded = 0
        var acknowledged = 0
        var written: (paused: Bool, frames: Int64)?
        // A speed changed by a key (no sequence to acknowledge) is written at the next look,
        // within the interval, also while paused.
        var writtenSpeed = mailbox.speed
        var lastWrite = MonotonicClock.now()
        var reread = true
        // When a command was last acknowledged (see `grace`).
        var lastCommand: Double?
        while true {
            if reread, let state = ViewStateStore.peek(location), state.isOwn(job, id: id, pid: pid),
                let control = state.control(of: job)
            {
                for command in control.pending where command.sequence > forwarded {
                    mailbox.submit(command.action, sequence: command.sequence)
                    forwarded = command.sequence
                }
            }
            reread = false
            let now = mailbox.state
            let sinceWrite = MonotonicClock.now() - lastWrite
            // The first position soon, as each second while paused (until the frames still
            // in flight when it paused have landed); a running job's at the interval.
            let interval = now.paused || written == nil ? 1 : ViewState.Control.reportInterval
            let due = sinceWrite >= interval
            let moved = written.map { $0 != (now.paused, now.frames) } ?? true
            let speed = mailbox.speed
            // What a reader carries forward would now be wrong: a pause or a seek by a key
            // (neither has a sequence to acknowledge), or an engine that fell behind.
            let strayed =
                written.map { last in
                    guard !now.paused else { return last.paused != now.paused }
                    let expected = Double(last.frames) + sinceWrite * Double(sampleRate) * speed
                    return last.paused || abs(Double(now.frames) - expected) > Double(sampleRate) / 2
                } ?? false
            if now.applied > acknowledged || speed != writtenSpeed || strayed || (due && moved) {
                if now.applied > acknowledged { lastCommand = MonotonicClock.now() }
                acknowledge(now)
                acknowledged = max(acknowledged, now.applied)
                written = (now.paused, now.frames)
                writtenSpeed = speed
                lastWrite = MonotonicClock.now()
            } else if due {
                lastWrite = MonotonicClock.now()  // unchanged (paused): look again in a while
            }
            // Nothing to write until a change, a wake-up from the engine, or the next position
            // is due; a look each second meanwhile sees a seek by a key.
            let untilDue = min(interval - (MonotonicClock.now() - lastWrite), 1)
            switch watcher.wait(milliseconds: Int32(max(untilDue, 0.05) * 1000)) {
            case .stopped:
                let final = mailbox.state
                // Where a player ended is what `play` resumes from; a recorder's entry is
                // about to go, so its last position is not worth a write.
                let moved =
                    job == .playback
                    && ((written.map { $0 != (final.paused, final.frames) } ?? true) || mailbox.speed != writtenSpeed)
                let closing = closing.withLock { $0 }
                // A command applied just before the job ended (a resume of the last seconds on
                // a device faster than real time): acknowledged in a write of its own, and the
                // sender given a moment to read it, before the end takes the entry away.
                if closing != nil {
                    if final.applied > acknowledged {
                        acknowledge(final)
                        acknowledged = final.applied
                        lastCommand = MonotonicClock.now()
                    }
                    if let lastCommand, case let since = MonotonicClock.now() - lastCommand, since < Self.grace {
                        usleep(useconds_t((Self.grace - since) * 1_000_000))
                    }
                }
                if final.applied > acknowledged || moved || closing != nil { acknowledge(final, closing: closing) }
                return
            // A timeout rereads too: a wake signal that went to a thread not blocking it
            // (ignored there) costs at most a second, never a lost command.
            case .changed, .timedOut: reread = true
            case .woken: break
            }
        }
    }

    /// How long after acknowledging a command a job's end may come (seconds): its sender
    /// peeks the view state as soon as it changes, but on a busy machine may be scheduled
    /// late, and must find the acknowledgement before the end takes the entry away.
    static let grace = 0.5

    private func acknowledge(
        _ now: (applied: Int, paused: Bool, frames: Int64),
        closing: ((inout ViewStateStore.Transaction) -> Void)? = nil
    ) {
        let job = job
        let id = id
        let pid = pid
        let seconds = Double(now.frames) / Double(sampleRate)
        let speed = job == .playback ? PlaybackSpeed(factor: mailbox.speed) : nil
        try? store.transaction { vs in
            guard vs.state.isOwn(job, id: id, pid: pid) else { return }
            vs.acknowledgeControl(of: job, through: now.applied, paused: now.paused, position: seconds, speed: speed)
            closing?(&vs)
        }
    }
}

import RecSystem
import Synchronization

/// The way into a running Recorder or Player from other threads (keys, the view-state
/// follower), and the way out of what it has applied.
///
/// Commands are queued, not folded into flags, so that two arriving together are both
/// applied, in order. The audio loop takes them between periods; the queue's mutex is held
/// only to append or swap the array, never while audio is read or written. The capture
/// thread of a Recorder never touches it.
// @unchecked Sendable: the queue is behind a Mutex, the published state is atomics, the
// semaphore is the C library's; `onSubmit` and `onApplied` are set before the audio loop
// starts (by the Recorder's init, and by the follower before its thread starts) and
// cleared only after it has stopped applying.
package final class ControlMailbox: @unchecked Sendable {
    package struct Entry: Equatable, Sendable {
        /// The view state's sequence number, or 0 for a local command (a key).
        package var sequence: Int
        package var command: EngineCommand
    }

    private let queue = Mutex<[Entry]>([])
    private let queued = Atomic<Int>(0)
    private let arrived = Semaphore()

    private let appliedSequence = Atomic<Int>(0)
    private let pausedState = Atomic<Bool>(false)
    private let positionFrames = Atomic<Int>(0)
    /// The player's speed factor, as a Double's bits (1× for a recorder).
    private let speedBits = Atomic<UInt64>(1.0.bitPattern)

    /// Called after each `submit`, so a loop asleep on its own semaphore wakes at once.
    var onSubmit: (() -> Void)?
    /// Called by the audio loop after it applied remote commands (on the audio thread:
    /// it must only signal, never block).
    package var onApplied: (() -> Void)?

    package init() {}

    package func submit(_ command: EngineCommand, sequence: Int = 0) {
        queue.withLock { queue in
            queue.append(Entry(sequence: sequence, command: command))
            queued.wrappingAdd(1, ordering: .releasing)
        }
        arrived.signal()
        onSubmit?()
    }

    /// Everything submitted so far, oldest first. Cheap when nothing is queued.
    func take() -> [Entry] {
        guard queued.load(ordering: .acquiring) > 0 else { return [] }
        return queue.withLock { queue in
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            queued.store(0, ordering: .releasing)
            return taken
        }
    }

    /// Whether anything waits to be taken (asked by a write that is waiting for room).
    var hasQueued: Bool { queued.load(ordering: .acquiring) > 0 }

    /// Ends a `wait` now (for a stop, which is not queued).
    func wakeWaiter() { arrived.signal() }

    /// Sleeps until something is submitted or `milliseconds` pass (a paused loop's wait).
    func wait(milliseconds: Int) {
        arrived.wait(milliseconds: milliseconds)
    }

    /// The audio loop's report of where it is; `applied` is the highest remote sequence it
    /// has now applied (its events for them already sent).
    func publish(paused: Bool, frames: Int64, applied: Int) {
        pausedState.store(paused, ordering: .relaxed)
        positionFrames.store(Int(frames), ordering: .relaxed)
        if applied > appliedSequence.load(ordering: .relaxed) {
            appliedSequence.store(applied, ordering: .releasing)
            onApplied?()
        }
    }

    /// The player's report of the speed it now plays at; published before the `publish`
    /// that acknowledges the change, so whoever sees the acknowledgement sees the speed.
    func publish(speed: Double) {
        speedBits.store(speed.bitPattern, ordering: .releasing)
    }

    /// The speed the player last published.
    package var speed: Double { Double(bitPattern: speedBits.load(ordering: .acquiring)) }

    /// What the loop last published.
    package var state: (applied: Int, paused: Bool, frames: Int64) {
        (
            appliedSequence.load(ordering: .acquiring), pausedState.load(ordering: .relaxed),
            Int64(positionFrames.load(ordering: .relaxed))
        )
    }
}

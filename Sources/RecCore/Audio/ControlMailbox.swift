import Atomics

#if canImport(Glibc)
import Glibc
#endif

/// The way into a running Recorder or Player from other threads (keys, the view-state
/// follower), and the way out of what it has applied.
///
/// Commands are queued, not folded into flags, so that two arriving together are both
/// applied, in order. The audio loop takes them between periods; the queue's mutex is held
/// only to append or swap the array, never while audio is read or written. The capture
/// thread of a Recorder never touches it.
public final class ControlMailbox: @unchecked Sendable {
    public struct Entry: Equatable, Sendable {
        /// The view state's sequence number, or 0 for a local command (a key).
        public var sequence: Int
        public var action: ViewState.ControlAction
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var queue: [Entry] = []
    private let queued = ManagedAtomic<Int>(0)
    private var arrived = sem_t()

    private let appliedSequence = ManagedAtomic<Int>(0)
    private let pausedState = ManagedAtomic<Bool>(false)
    private let positionFrames = ManagedAtomic<Int>(0)

    /// Called after each `submit`, so a loop asleep on its own semaphore wakes at once.
    var onSubmit: (() -> Void)?
    /// Called by the audio loop after it applied remote commands (on the audio thread:
    /// it must only signal, never block).
    var onApplied: (() -> Void)?

    public init() {
        pthread_mutex_init(mutex, nil)
        sem_init(&arrived, 0, 0)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        sem_destroy(&arrived)
    }

    public func submit(_ action: ViewState.ControlAction, sequence: Int = 0) {
        pthread_mutex_lock(mutex)
        queue.append(Entry(sequence: sequence, action: action))
        queued.wrappingIncrement(ordering: .releasing)
        pthread_mutex_unlock(mutex)
        sem_post(&arrived)
        onSubmit?()
    }

    /// Everything submitted so far, oldest first. Cheap when nothing is queued.
    func take() -> [Entry] {
        guard queued.load(ordering: .acquiring) > 0 else { return [] }
        pthread_mutex_lock(mutex)
        let taken = queue
        queue.removeAll(keepingCapacity: true)
        queued.store(0, ordering: .releasing)
        pthread_mutex_unlock(mutex)
        return taken
    }

    /// Whether anything waits to be taken (asked by a write that is waiting for room).
    var hasQueued: Bool { queued.load(ordering: .acquiring) > 0 }

    /// Sleeps until something is submitted or `milliseconds` pass (a paused loop's wait).
    func wait(milliseconds: Int) {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_nsec += milliseconds * 1_000_000
        deadline.tv_sec += deadline.tv_nsec / 1_000_000_000
        deadline.tv_nsec %= 1_000_000_000
        _ = sem_timedwait(&arrived, &deadline)
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

    /// What the loop last published.
    public var state: (applied: Int, paused: Bool, frames: Int64) {
        (appliedSequence.load(ordering: .acquiring), pausedState.load(ordering: .relaxed),
         Int64(positionFrames.load(ordering: .relaxed)))
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX counting semaphore: any thread signals (an audio thread too: `sem_post` never
/// blocks, and is async-signal-safe), one thread waits with a timeout.
// @unchecked Sendable: the only state is the sem_t, which the C library synchronises;
// it lives at a fixed address allocated here and is destroyed only in deinit.
package final class Semaphore: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    package init(value: UInt32 = 0) { sem_init(semaphore, 0, value) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    package func signal() { sem_post(semaphore) }

    /// Waits until signalled (true) or until `milliseconds` pass (false).
    @discardableResult
    package func wait(milliseconds: Int) -> Bool {
        // sem_timedwait takes an absolute CLOCK_REALTIME deadline.
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + milliseconds * 1_000_000
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return System.retrying { sem_timedwait(semaphore, &deadline) } == 0
    }
}

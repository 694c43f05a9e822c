import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A joinable POSIX thread running one closure (the capture loop, the view-state
/// follower). Foundation's `Thread` is not used, so that RecCore stays free of Foundation
/// on the audio path. Joined at the latest when it goes away.
package final class JoinableThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private var thread = pthread_t()
    private var joined = false

    package init(_ body: @escaping () -> Void) throws {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            joined = true
            throw RecError.failure("thread", "cannot start: \(Errno(result))")
        }
    }

    /// Starts `body` on a thread that is never joined: one that runs as long as the process
    /// (the CLI's signal watcher).
    package static func detach(_ body: @escaping () -> Void) throws {
        let thread = try JoinableThread(body)
        thread.joined = true
        pthread_detach(thread.thread)
    }

    package func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    deinit { join() }
}

extension JoinableThread {
    /// `here` on this thread and `there` on another at the same time (the machine's two
    /// cores), both results when both are done; one after the other when no thread can be
    /// started. An error of either is thrown, `here`'s first.
    package static func both<A, B>(_ here: () throws -> A, _ there: @escaping () throws -> B) throws -> (A, B) {
        var result: Result<B, any Error>?
        let thread = try? JoinableThread { result = Result { try there() } }
        let mine = Result { try here() }
        thread?.join()
        let theirs = result ?? Result { try there() }
        return (try mine.get(), try theirs.get())
    }
}

/// A flag set once, read from any thread.
package final class AtomicFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    package init() {}
    package func set() { flag.store(true, ordering: .releasing) }
    package var isSet: Bool { flag.load(ordering: .acquiring) }
}

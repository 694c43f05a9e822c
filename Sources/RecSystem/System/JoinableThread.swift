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

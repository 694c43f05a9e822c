import RecCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM, taken by a thread of their own with `sigwait`, so they stop a
/// recording or playback cleanly instead of killing the process. Must be installed before
/// any other thread starts, so that every thread inherits the blocked mask. It blocks
/// `WakeSignal` too, for the remote-control follower's signalfd.
// @unchecked Sendable: the handler is behind a Mutex; `thread` is written once, in init.
final class SignalWatcher: @unchecked Sendable {
    private let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)
    private var thread = pthread_t()

    init() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        WakeSignal.block()
        signal(SIGPIPE, SIG_IGN)
        let unmanaged = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &thread, nil,
            { raw in
                let watcher = Unmanaged<SignalWatcher>.fromOpaque(raw!).takeRetainedValue()
                var set = sigset_t()
                sigemptyset(&set)
                sigaddset(&set, SIGINT)
                sigaddset(&set, SIGTERM)
                while true {
                    var signal: Int32 = 0
                    if sigwait(&set, &signal) != 0 { continue }
                    let handler = watcher.handler.withLock { $0 }
                    handler?(signal)
                }
            }, unmanaged)
        pthread_detach(thread)
    }

    /// What to do on the next signals (replaces the previous handler).
    func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        self.handler.withLock { $0 = handler }
    }
}

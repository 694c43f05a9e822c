import RecCore

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM, taken by a thread of their own with `sigwait`, so they stop a
/// recording or playback cleanly instead of killing the process. Must be installed before
/// any other thread starts, so that every thread inherits the blocked mask.
final class SignalWatcher: @unchecked Sendable {
    private var handler: (@Sendable (Int32) -> Void)?
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var thread = pthread_t()

    init() {
        pthread_mutex_init(lock, nil)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
        let unmanaged = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { raw in
            let watcher = Unmanaged<SignalWatcher>.fromOpaque(raw!).takeRetainedValue()
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            while true {
                var signal: Int32 = 0
                if sigwait(&set, &signal) != 0 { continue }
                pthread_mutex_lock(watcher.lock)
                let handler = watcher.handler
                pthread_mutex_unlock(watcher.lock)
                handler?(signal)
            }
        }, unmanaged)
        pthread_detach(thread)
    }

    /// What to do on the next signals (replaces the previous handler).
    func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        pthread_mutex_lock(lock)
        self.handler = handler
        pthread_mutex_unlock(lock)
    }
}

import Synchronization

/// One thread that runs submitted work in order: for what must not run on an audio thread
/// (a store write, with its fsync) but must not wait for the audio to end either.
/// `submit` never blocks on the work; `finish` runs what is left and joins.
final class SerialWorker: @unchecked Sendable {
    // @unchecked: the queue is behind a Mutex; `thread` is set in init and joined in finish.
    private let queue = Mutex<(work: [Work], finishing: Bool)>(([], false))
    /// A unit of work, handed from the submitting thread to the worker and run there only.
    private final class Work: @unchecked Sendable {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    private let ready = Semaphore()
    private var thread: JoinableThread?

    init() throws {
        thread = try JoinableThread { [unowned self] in loop() }
    }

    func submit(_ work: @escaping () -> Void) {
        let item = Work(work)
        queue.withLock { $0.work.append(item) }
        ready.signal()
    }

    private func loop() {
        while true {
            ready.wait(milliseconds: 1000)
            let (batch, finishing) = queue.withLock { state -> ([Work], Bool) in
                defer { state.work = [] }
                return (state.work, state.finishing)
            }
            for work in batch { work.run() }
            if finishing && batch.isEmpty { return }
        }
    }

    /// Runs everything submitted so far, then stops the thread.
    func finish() {
        queue.withLock { $0.finishing = true }
        ready.signal()
        thread?.join()
        thread = nil
    }

    deinit { finish() }
}

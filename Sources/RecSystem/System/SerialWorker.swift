import Synchronization

/// One thread that runs submitted work in order: for what must not run on an audio thread
/// (a store write, with its fsync) but must not wait for the audio to end either.
/// `submit` never blocks on the work; `finish` (or going away) runs what is left and joins.
package final class SerialWorker {
    /// What the worker thread shares with the owner. The thread holds it strongly, never the
    /// worker itself: the worker's deinit joins the thread, and a thread reaching back into
    /// an object being deinitialised would trap.
    private final class Queue: Sendable {
        /// A unit of work, handed from the submitting thread to the worker and run there only.
        final class Work: @unchecked Sendable {
            let run: () -> Void
            init(_ run: @escaping () -> Void) { self.run = run }
        }

        let state = Mutex<(work: [Work], finishing: Bool)>(([], false))
        let ready = Semaphore()

        func loop() {
            while true {
                ready.wait(milliseconds: 1000)
                let (batch, finishing) = state.withLock { state -> ([Work], Bool) in
                    defer { state.work = [] }
                    return (state.work, state.finishing)
                }
                for work in batch { work.run() }
                if finishing && batch.isEmpty { return }
            }
        }
    }

    private let queue = Queue()
    private var thread: JoinableThread?

    package init() throws {
        let queue = self.queue
        thread = try JoinableThread { queue.loop() }
    }

    package func submit(_ work: @escaping () -> Void) {
        let item = Queue.Work(work)
        queue.state.withLock { $0.work.append(item) }
        queue.ready.signal()
    }

    /// Runs everything submitted so far, then stops the thread.
    package func finish() {
        queue.state.withLock { $0.finishing = true }
        queue.ready.signal()
        thread?.join()
        thread = nil
    }

    deinit { finish() }
}

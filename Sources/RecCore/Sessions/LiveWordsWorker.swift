import RecAudio
import RecStore
import RecSystem
import RecTranscripts
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The transcriber process of live words (started by `LiveWords`):
/// it transcribes the tap as it grows, sends each segment on stdout and appends it to the
/// words file, and once the recorder says the recording is saved (a line `end FRAMES` on
/// stdin) or is gone (stdin closes without it: killed), finishes the rest and saves the
/// transcript, as `transcribe` saves one.
package enum LiveWordsWorker {
    /// How long a transcriber whose recorder was killed waits for the recording to be
    /// recovered into the store (by the next command that opens it) before it leaves the
    /// words it decoded in the cache.
    package static let recoveryWait = 600.0

    package enum Outcome: Equatable, Sendable {
        /// The transcript was saved from the live words.
        case saved
        /// Some of the audio was not transcribed live (the tap or the engine failed): the
        /// whole recording was transcribed instead, as `transcribe` does.
        case transcribedWhole
        /// The transcript was saved from the live words, then made again from the whole
        /// recording (an engine that `hearsBetterWhole`) and put in its place.
        case remadeWhole
        /// The recording is not in the store (discarded, or not recovered in time).
        case noRecording
    }

    /// `fromPage`: the recording is made in the served page, with no recorder on stdin: it
    /// ends once the page's recording is no longer in progress (saved, cancelled, or saved
    /// without its page), however many times the server restarts meanwhile.
    package static func run(
        location: StoreLocation, id: ItemID, rate: Int, engine: any TranscriptionEngine, fromPage: Bool = false
    ) throws -> Outcome {
        let files = LiveWordsFiles(location: location)
        // Held while it runs: its files are not a dead transcriber's to sweep away.
        let running = try FileLock(path: files.lock(id))
        defer { withExtendedLifetime(running) {} }
        guard let live = LiveTranscription(tapPath: files.tap(id), rate: rate, engine: engine) else {
            throw RecError.failure(files.tap(id), "cannot read the recording's tap: \(systemReason(errno))")
        }
        // Beside its lower priority, a CPU the transcriber never takes: the capture thread
        // and the writer find one idle even while the engine decodes on all it has (a
        // Whisper worker sizes its threads by the CPUs it may use).
        System.leaveOneProcessor()
        // The model loads while the first speech is still being said.
        engine.prepare()
        var control = RecorderControl()
        let page = PageRecordings(location: location)
        var ended = false
        while true {
            if !ended { ended = fromPage ? page.entry(id) == nil : control.check() }
            if let new = live.advance(final: ended) {
                for segment in new { send(segment, words: files.words(id)) }
                continue
            }
            if ended { break }
            if fromPage { usleep(250_000) } else { control.wait(milliseconds: 100) }
        }
        // A page's recording is cut to what was acknowledged before it is saved: the tap,
        // the same file, ends where the recording does.
        let tapped = fromPage || control.frames.map { live.framesRead >= $0 } ?? true
        try? FileSystem.remove(files.tap(id))
        // Whatever the outcome, nothing of it is left in the cache.
        defer { files.removeAll(of: id) }
        let recorderKilled = !fromPage && control.frames == nil
        guard let library = try waitForRecording(id, location: location, recorderKilled: recorderKilled)
        else { return .noRecording }
        guard tapped && live.failures.isEmpty else {
            let whole = try Transcriber(library: library, paths: ["@\(id)"], all: false, force: true)
            _ = whole.run(engine: engine) { _ in }
            return .transcribedWhole
        }
        guard let item = library.document[id], try Transcriber.save(live.transcript, for: item, in: library) else {
            return .noRecording
        }
        guard engine.hearsBetterWhole, live.pieces > 1,
            let saved = TranscriptFiles(location: location).bytes(of: id)
        else { return .saved }
        // The transcript is complete now: the files that said it was still coming go first.
        files.removeProgress(of: id)
        let whole = try Transcriber(library: library, paths: ["@\(id)"], all: false, force: true)
        guard let heard = try? whole.transcript(of: item, with: engine, progress: { _ in }),
            try Transcriber.amend(heard, over: saved, for: item, in: library)
        else { return .saved }
        return .remadeWhole
    }

    /// A segment to the words file, then to the recorder (which may be gone): what the
    /// recorder shows, `status` already finds. The file is closed after each, so that a
    /// watch of its directory (the served page's) sees it written.
    private static func send(_ segment: Transcript.Segment, words: String) {
        var w = JSONWriter()
        TranscriptCodec.write(segment, to: &w)
        w.raw("\n")
        _ = FileSystem.withOpened(words, O_WRONLY | O_CREAT | O_APPEND, mode: 0o600) { fd in
            try? System.writeAll(fd, w.bytes)
        }
        try? System.writeAll(STDOUT_FILENO, w.bytes)
    }

    /// The store once it holds recording `id`; nil when it will not: the recording was
    /// discarded (no longer in progress, and not in the store), or, its recorder killed, it
    /// was not recovered within `recoveryWait`.
    private static func waitForRecording(_ id: ItemID, location: StoreLocation, recorderKilled: Bool) throws
        -> Library?
    {
        let deadline = MonotonicClock.now() + recoveryWait
        while true {
            let library = try Library(location: location)
            if library.document[id]?.recording != nil { return library }
            // Saved before `end` was sent, or never. Killed: the entry stays until the next
            // command recovers the recording (or finds nothing to keep).
            let waiting = recorderKilled && library.viewState.state.recording?.id == id
            if !waiting || MonotonicClock.now() > deadline { return nil }
            usleep(500_000)
        }
    }

    /// What the recorder says on stdin: `end FRAMES` once the recording is saved.
    struct RecorderControl {
        private var buffer: [UInt8] = []
        private var closed = false
        /// The frames the recorder wrote, once it said so.
        private(set) var frames: Int64?

        /// Whether the recorder is done: it said `end`, or it is gone.
        mutating func check() -> Bool {
            var pollers = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
            while !closed, (try? System.waitUntilReady(&pollers, timeout: 0)) ?? 0 > 0 {
                var chunk = [UInt8](repeating: 0, count: 256)
                let n = chunk.withUnsafeMutableBytes { bytes in
                    System.retrying { read(STDIN_FILENO, bytes.baseAddress!, bytes.count) }
                }
                if n <= 0 {
                    closed = true
                    break
                }
                buffer += chunk[..<n]
            }
            if frames == nil, let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                if line.hasPrefix("end ") { frames = Int64(line.dropFirst(4)) }
            }
            return closed || frames != nil
        }

        func wait(milliseconds: Int32) {
            var pollers = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
            _ = try? System.waitUntilReady(&pollers, timeout: closed ? 0 : milliseconds)
            if closed { usleep(useconds_t(milliseconds) * 1000) }
        }
    }
}

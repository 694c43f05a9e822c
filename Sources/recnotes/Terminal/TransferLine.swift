import RecCore
import RecSync
import RecValues
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `sync`'s and `get`'s live line on stderr while audio moves, redrawn in place as
/// git-annex reports progress and cleared when it is done: `audio: 3/12 files, 1.2 MB /
/// 4.5 MB  →hub` (`←` for audio coming here). A `StatusLine`, so it fits the terminal as
/// the recorder's and player's do.
final class TransferLine {
    private var lastLine = ""

    /// The observer to give `sync` or `get`: a live line when stderr is a terminal (and the
    /// output is not JSON, and not --quiet), else nil, and git-annex is asked for no progress.
    static func observer(json: Bool = false) -> (line: TransferLine?, observer: TransferObserver?) {
        guard !json, !Output.quiet, Terminal.isTTY(STDERR_FILENO) else { return (nil, nil) }
        let line = TransferLine()
        return (line, { line.show($0) })
    }

    static func text(_ progress: TransferProgress) -> StatusLine {
        let arrow = progress.direction == .receiving ? "←" : "→"
        return StatusLine(
            symbol: "audio:",
            time:
                "\(progress.files)/\(progress.totalFiles) files, \(Format.size(progress.bytes)) / \(Format.size(progress.totalBytes))",
            name: progress.remote.map { arrow + $0 } ?? arrow)
    }

    /// Set by a signal's handler: no line is drawn after it has cleared the terminal's.
    /// Held while a line is written, so that none is half written when the handler clears.
    private static let interrupted = Mutex(false)

    func show(_ progress: TransferProgress) {
        let line = Self.text(progress).render(width: Terminal.columns(STDERR_FILENO))
        guard line != lastLine else { return }
        lastLine = line
        Self.interrupted.withLock { interrupted in
            if !interrupted { LiveLine.draw(line) }
        }
    }

    /// What a signal's handler writes (on another thread, so without the line's state): the
    /// terminal's current line cleared, the live line or the `^C` it echoed; no line is
    /// drawn after it.
    static func clearOnSignal() {
        interrupted.withLock { interrupted in
            interrupted = true
            LiveLine.clear()
        }
    }

    /// Clears the line, so that the summary (or an error) starts on a clean one.
    func clear() {
        guard !lastLine.isEmpty else { return }
        lastLine = ""
        LiveLine.clear()
    }
}

import RecCore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Everything that knows it is talking to a terminal: TTY checks, colour, stderr.
enum Terminal {
    static func isTTY(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Text a person wrote, for stdout: at a terminal with its control characters shown
    /// (`TerminalText`), to a pipe exactly.
    static func shown(_ text: String) -> String {
        TerminalText.shown(text, terminal: isTTY(STDOUT_FILENO))
    }

    /// Whether `fd` is a pipe whose reader has gone (`| head`): the write end then polls as
    /// an error.
    static func readerIsGone(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLERR) != 0
    }

    /// Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
    static var colorOnStdout: Bool {
        isTTY(STDOUT_FILENO) && (Environment.value("NO_COLOR")?.isEmpty ?? true)
    }

    /// The same for what the live lines draw on stderr.
    static var colorOnStderr: Bool {
        isTTY(STDERR_FILENO) && (Environment.value("NO_COLOR")?.isEmpty ?? true)
    }

    static func error(_ message: String) {
        writeStderr("recnotes: \(message)\n")
        Background.relay("recnotes: \(message)")
    }

    /// The terminal's width in columns: the window size of `fd`, else $COLUMNS, else 80.
    static func columns(_ fd: Int32) -> Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = getenv("COLUMNS"), let value = Int(String(cString: text)), value > 0 { return value }
        return 80
    }

    /// A note about what was done on the way (`recnotes: play: stopped …`), unless --quiet.
    static func note(_ message: String) {
        guard !Output.quiet else { return }
        writeStderr("recnotes: \(message)\n")
        Background.relay("recnotes: \(message)")
    }

    static func warning(_ message: String) {
        guard !Output.quiet else { return }
        writeStderr("recnotes: warning: \(message)\n")
        Background.relay("recnotes: warning: \(message)")
    }

    /// Writes all of `text` to stderr; a closed stderr is not an error worth another message.
    static func writeStderr(_ text: String) {
        try? System.writeAll(STDERR_FILENO, Array(text.utf8))
    }

    enum Style: String {
        case folder = "\u{1B}[1;34m"
        case dim = "\u{1B}[2m"
        case warning = "\u{1B}[33m"
    }

    static func styled(_ text: String, _ style: Style, enabled: Bool) -> String {
        enabled ? "\(style.rawValue)\(text)\u{1B}[0m" : text
    }

    /// Left-aligned columns separated by two spaces; the last column is not padded.
    static func table(_ rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        guard let width = rows.map(\.count).max() else { return [] }
        var widths = [Int](repeating: 0, count: width)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { i, cell in
                guard i < row.count - 1 else { return cell }
                let padding = String(repeating: " ", count: widths[i] - cell.count)
                return rightAligned.contains(i) ? padding + cell : cell + padding
            }.joined(separator: "  ")
        }
    }
}

/// What `--quiet` switches off: everything but errors.
enum Output {
    nonisolated(unsafe) static var quiet = false

    /// Pushes printed lines out now (NDJSON readers act on each line as it comes).
    /// `fflush(nil)` flushes every stream, which spares touching the C global `stdout`.
    static func flush() { fflush(nil) }

    /// JSON made by `write`, then a line feed, on stdout as `write` makes it: in pieces
    /// straight from the writer's bytes (a `--json` list runs to megabytes, and a String of
    /// it, then `print`, cost more than making it). Nothing with --quiet, as `print`.
    /// When `write` throws, what it wrote until then is on stdout, the rest dropped.
    static func json(_ write: (inout JSONWriter) throws -> Void) rethrows {
        guard !quiet else { return }
        flush()  // whatever was printed before comes first
        var failed = false
        var w = JSONWriter(capacity: 1 << 17) { bytes in
            // A reader that has gone (| head) is no error worth reporting, as with print.
            if !failed { failed = (try? System.writeAll(STDOUT_FILENO, bytes)) == nil }
        }
        try write(&w)
        w.raw("\n")
        w.flush()
    }
}

/// Every line of text a command prints goes through here, so `--quiet` holds everywhere.
/// (Audio on stdout is written to the file descriptor directly and is never silenced.)
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    guard !Output.quiet else { return }
    Swift.print(items.map { "\($0)" }.joined(separator: separator), terminator: terminator)
}

/// The live line on stderr (the recorder's and player's status, `sync`'s transfers,
/// `transcribe`'s bar, the name prompt), redrawn in place over the terminal's current line.
enum LiveLine {
    /// Back to the line's start, then erase to its end (CR, then ECMA-48's EL).
    private static let erase = "\r\u{1B}[K"

    /// The terminal's current line replaced by `text`.
    static func draw(_ text: String) {
        Terminal.writeStderr(erase + text)
    }

    /// The terminal's current line erased, the cursor at its start.
    static func clear() {
        Terminal.writeStderr(erase)
    }

    /// The line under the current one replaced by `text`, the cursor back where it was
    /// (ECMA-48's CUD and CUU); `opening`, the line is made first.
    static func drawBelow(_ text: String, opening: Bool) {
        Terminal.writeStderr((opening ? "\n" : "\u{1B}[1B") + erase + text + "\u{1B}[1A")
    }

    /// The line under the current one erased, the cursor back where it was.
    static func clearBelow() {
        Terminal.writeStderr("\u{1B}[1B" + erase + "\u{1B}[1A")
    }
}

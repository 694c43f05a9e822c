/// Text a person wrote (a note, a transcript, a label) as a terminal is to show it. The text
/// is kept as written, and `--json` and a pipe get it exact; but at a terminal a control
/// character is a command (ESC starts a sequence that moves the cursor, recolours what follows
/// or retitles the window), so each is shown as `?`, as `ls` shows one in a file name.
/// Newlines and tabs are a note's layout and stay.
package enum TerminalText {
    /// `text` with every control character but newline and tab (C0, DEL, C1) shown as `?`.
    package static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isHidden) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(isHidden(scalar) ? "?" : scalar) }
        return String(out)
    }

    /// `text` as `visible` shows it when `terminal`, else exactly.
    package static func shown(_ text: String, terminal: Bool) -> String {
        terminal ? visible(text) : text
    }

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }
}

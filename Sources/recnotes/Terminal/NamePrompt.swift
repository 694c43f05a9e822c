import RecCore
import RecStore

#if canImport(Glibc)
    import Glibc
#endif

/// The "Save recording" alert: asks for a name on the terminal, with line editing (←/→,
/// Home/End, Ctrl-A/E/U/W, Delete). Enter keeps the default (or takes what was typed), Esc
/// discards (to the trash). Returns nil for discard.
enum NamePrompt {
    static func ask(defaultName: String, problem: (String) -> String?, interrupted: () -> Bool) -> String? {
        guard let mode = RawMode(.keys) else { return defaultName }
        mode.enter()
        defer { mode.leave() }
        var line = LineEditor()
        func redraw() {
            var text = "Save recording as [\(defaultName)] (Esc: to the trash): \(line.text)"
            if line.columnsAfterCursor > 0 { text += "\u{1B}[\(line.columnsAfterCursor)D" }
            LiveLine.draw(text)
        }
        redraw()
        while true {
            if interrupted() {
                Terminal.writeStderr("\n")
                return defaultName
            }
            guard let key = KeyReader.readKey(timeoutMilliseconds: 100) else { continue }
            switch key {
            case .enter:
                let name = line.text.isEmpty ? defaultName : line.text
                if let why = problem(name) {
                    Terminal.writeStderr("\n")
                    Terminal.error("\(NameRules.quoted(name)): \(why)")
                    line.clear()
                    redraw()
                    continue
                }
                Terminal.writeStderr("\n")
                return name
            case .escape:
                Terminal.writeStderr("\n")
                return nil
            case .interrupt:
                Terminal.writeStderr("\n")
                return defaultName
            default:
                _ = line.apply(key)
            }
            redraw()
        }
    }
}

import RecCore
import RecStore
import Synchronization

/// `M` while recording or playing: the marker is where the audio was when M was pressed,
/// and its label is typed on the live line while the audio goes on. Enter adds it (an empty
/// label too), Esc drops it. The line edits as the name prompt does.
// @unchecked Sendable: `state` is behind a Mutex; the renderer serialises its own writes.
final class LabelPrompt: @unchecked Sendable {
    private let state = Mutex<(line: LineEditor, frame: Int64)?>(nil)
    private let renderer: ProgressRenderer
    private let submit: (String, Int64) -> Void

    init(renderer: ProgressRenderer, submit: @escaping (_ label: String, _ frame: Int64) -> Void) {
        self.renderer = renderer
        self.submit = submit
    }

    var isOpen: Bool { state.withLock { $0 != nil } }

    func open(at frame: Int64) {
        state.withLock { $0 = (LineEditor(), frame) }
        redraw()
    }

    /// Takes `key` if the prompt is open; false otherwise.
    func handle(_ key: Key) -> Bool {
        var done: (label: String, frame: Int64)?
        let taken = state.withLock { (open: inout (line: LineEditor, frame: Int64)?) -> Bool in
            guard var current = open else { return false }
            switch key {
            case .enter:
                done = (current.line.text, current.frame)
                open = nil
                return true
            case .escape, .interrupt:
                open = nil
                return true
            default:
                _ = current.line.apply(key, limit: MarkerRules.maxLabelBytes)
            }
            open = current
            return true
        }
        guard taken else { return false }
        redraw()
        if let done { submit(done.label, done.frame) }
        return true
    }

    private func redraw() {
        let line = state.withLock { $0 }
        guard let line else { return renderer.showPrompt(nil) }
        var text = "Marker label (Enter adds, Esc drops): " + line.line.text
        if line.line.columnsAfterCursor > 0 { text += "\u{1B}[\(line.line.columnsAfterCursor)D" }
        renderer.showPrompt(text)
    }
}

/// The text of a one-line prompt and the cursor in it, edited as readline's emacs keys do:
/// ←/→, Home/End (Ctrl-A/E), Backspace, Delete, Ctrl-U (what is before the cursor) and
/// Ctrl-W (the word before the cursor). A value, so the editing is tested without a terminal.
public struct LineEditor: Equatable, Sendable {
    public private(set) var characters: [Character] = []
    /// 0...characters.count: where the next character goes.
    public private(set) var cursor = 0

    public init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    public var text: String { String(characters) }
    /// Columns between the cursor and the end of the text, to move the terminal's cursor back.
    public var columnsAfterCursor: Int { characters.count - cursor }

    public mutating func insert(_ text: String) {
        let new = Array(text).filter { !$0.isNewline }
        characters.insert(contentsOf: new, at: cursor)
        cursor += new.count
    }

    public mutating func backspace() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    public mutating func delete() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    public mutating func left() { cursor = max(cursor - 1, 0) }
    public mutating func right() { cursor = min(cursor + 1, characters.count) }
    public mutating func home() { cursor = 0 }
    public mutating func end() { cursor = characters.count }

    /// Ctrl-U: everything before the cursor.
    public mutating func deleteToStart() {
        characters.removeSubrange(0..<cursor)
        cursor = 0
    }

    /// Ctrl-W: the spaces before the cursor, then the word before them.
    public mutating func deleteWordBackward() {
        var start = cursor
        while start > 0, characters[start - 1].isWhitespace { start -= 1 }
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        characters.removeSubrange(start..<cursor)
        cursor = start
    }

    public mutating func clear() { self = LineEditor() }
}

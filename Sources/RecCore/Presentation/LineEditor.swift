/// The text of a one-line prompt and the cursor in it, edited as readline's emacs keys do:
/// ←/→, Home/End (Ctrl-A/E), Backspace, Delete, Ctrl-U (what is before the cursor) and
/// Ctrl-W (the word before the cursor). A value, so the editing is tested without a terminal.
package struct LineEditor: Equatable, Sendable {
    package private(set) var characters: [Character] = []
    /// 0...characters.count: where the next character goes.
    package private(set) var cursor = 0

    package init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    package var text: String { String(characters) }
    /// Columns between the cursor and the end of the text, to move the terminal's cursor back.
    package var columnsAfterCursor: Int { characters.count - cursor }

    package mutating func insert(_ text: String) {
        let new = Array(text).filter { !$0.isNewline }
        characters.insert(contentsOf: new, at: cursor)
        cursor += new.count
    }

    package mutating func backspace() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    package mutating func delete() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    package mutating func left() { cursor = max(cursor - 1, 0) }
    package mutating func right() { cursor = min(cursor + 1, characters.count) }
    package mutating func home() { cursor = 0 }
    package mutating func end() { cursor = characters.count }

    /// Ctrl-U: everything before the cursor.
    package mutating func deleteToStart() {
        characters.removeSubrange(0..<cursor)
        cursor = 0
    }

    /// Ctrl-W: the spaces before the cursor, then the word before them.
    package mutating func deleteWordBackward() {
        var start = cursor
        while start > 0, characters[start - 1].isWhitespace { start -= 1 }
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        characters.removeSubrange(start..<cursor)
        cursor = start
    }

    package mutating func clear() { self = LineEditor() }
}

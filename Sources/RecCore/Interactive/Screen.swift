/// A terminal colour (the eight-colour palette every terminal has).
package enum TerminalColor: Int, Sendable {
    case red = 31
    case green = 32
    case yellow = 33
    case blue = 34
    case magenta = 35
    case cyan = 36
}

/// How a cell is drawn. Semantic names for these are in `Palette`.
package struct CellStyle: Equatable, Hashable, Sendable {
    package var color: TerminalColor?
    package var bold = false
    package var dim = false
    package var reverse = false

    package init(color: TerminalColor? = nil, bold: Bool = false, dim: Bool = false, reverse: Bool = false) {
        self.color = color
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
    }

    package static let plain = CellStyle()
}

/// One cell of the terminal: a character and its style. A character two cells wide sits in
/// the left cell; the right one is its continuation, with empty text.
package struct Cell: Equatable, Sendable {
    package var text: String
    package var style: CellStyle

    package init(_ text: String = " ", _ style: CellStyle = .plain) {
        self.text = text
        self.style = style
    }

    package var isContinuation: Bool { text.isEmpty }
    package static let blank = Cell()
}

/// What the terminal should show: a grid of styled cells, a value. Views return one;
/// `ScreenDiff` turns two of them into the bytes that change the first into the second.
package struct Screen: Equatable, Sendable {
    package let width: Int
    package let height: Int
    package private(set) var cells: [Cell]
    /// Where the terminal's cursor should be (a prompt's), or nil to hide it.
    package var cursor: (row: Int, column: Int)? {
        get { cursorPosition.map { ($0 / max(width, 1), $0 % max(width, 1)) } }
        set { cursorPosition = newValue.map { $0.row * width + $0.column } }
    }
    private var cursorPosition: Int?

    package init(width: Int, height: Int) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    package subscript(row: Int, column: Int) -> Cell {
        get { cells[row * width + column] }
        set { cells[row * width + column] = newValue }
    }

    /// Writes `text` from (row, column), at most `limit` cells (to the right edge by default),
    /// cutting it with "…" when it does not fit. Returns the column after the text.
    @discardableResult
    package mutating func write(_ text: String, row: Int, column: Int, limit: Int? = nil, style: CellStyle = .plain)
        -> Int
    {
        guard row >= 0, row < height, column >= 0, column < width else { return column }
        let room = min(limit ?? width - column, width - column)
        var col = column
        for character in TextWidth.truncated(text, to: room) {
            let w = TextWidth.of(character)
            guard w > 0 else { continue }
            guard col + w <= column + room else { break }
            self[row, col] = Cell(String(character), style)
            if w == 2 { self[row, col + 1] = Cell("", style) }
            col += w
        }
        return col
    }

    /// Paints cells `from..<to` of a row blank in `style` (a selection bar, a status line).
    package mutating func fill(row: Int, from: Int = 0, to: Int? = nil, style: CellStyle) {
        guard row >= 0, row < height else { return }
        for col in max(from, 0)..<min(to ?? width, width) { self[row, col] = Cell(" ", style) }
    }

    /// The screen as plain text, one line per row, trailing spaces dropped: what a person
    /// reads, for tests and snapshots.
    package var lines: [String] {
        (0..<height).map { row in
            var line = ""
            for col in 0..<width { line += self[row, col].text }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    package var text: String { lines.joined(separator: "\n") }

    package static func == (a: Screen, b: Screen) -> Bool {
        a.width == b.width && a.height == b.height && a.cells == b.cells && a.cursorPosition == b.cursorPosition
    }
}

/// The bytes that change what a terminal shows from one `Screen` to the next: only the cells
/// that differ are written, each run of them after one cursor move. With no previous screen
/// (the first frame, a resize) the whole screen is drawn. `color: false` (NO_COLOR) keeps
/// bold, dim and reverse video and drops the colours.
package enum ScreenDiff {
    /// A run of changed cells closer than this to the previous one is joined to it: writing a
    /// few unchanged cells is shorter than another cursor move (`ESC [ r ; c H`).
    static let joinGap = 6

    package static func update(from old: Screen?, to new: Screen, color: Bool) -> String {
        var out = "\u{1B}[?25l"
        var current: CellStyle? = nil
        if let old, old.width == new.width, old.height == new.height {
            for row in 0..<new.height {
                for run in changedRuns(row: row, old: old, new: new) {
                    out += "\u{1B}[\(row + 1);\(run.lowerBound + 1)H"
                    write(row: row, columns: run, of: new, color: color, style: &current, to: &out)
                }
            }
        } else {
            out += "\u{1B}[0m\u{1B}[H\u{1B}[2J"
            current = .plain
            for row in 0..<new.height {
                out += "\u{1B}[\(row + 1);1H"
                write(row: row, columns: 0..<new.width, of: new, color: color, style: &current, to: &out)
            }
        }
        if current != nil && current != .plain { out += "\u{1B}[0m" }
        if let cursor = new.cursor {
            out += "\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H\u{1B}[?25h"
        }
        return out
    }

    /// The columns of `row` to rewrite, in runs. A run never starts on the right half of a
    /// wide character: it starts with the character.
    static func changedRuns(row: Int, old: Screen, new: Screen) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var col = 0
        while col < new.width {
            guard old[row, col] != new[row, col] else {
                col += 1
                continue
            }
            var start = col
            if new[row, start].isContinuation || old[row, start].isContinuation, start > 0 { start -= 1 }
            var end = col + 1
            // A wide character's right half goes with it.
            while end < new.width, new[row, end].isContinuation || old[row, end].isContinuation { end += 1 }
            if let last = runs.last, start - last.upperBound <= joinGap {
                runs[runs.count - 1] = last.lowerBound..<end
            } else {
                runs.append(start..<end)
            }
            col = end
        }
        return runs
    }

    private static func write(
        row: Int, columns: Range<Int>, of screen: Screen, color: Bool,
        style current: inout CellStyle?, to out: inout String
    ) {
        for col in columns {
            let cell = screen[row, col]
            if cell.isContinuation { continue }
            if current != cell.style {
                out += sgr(cell.style, color: color)
                current = cell.style
            }
            out += cell.text
        }
    }

    static func sgr(_ style: CellStyle, color: Bool) -> String {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.reverse { codes.append("7") }
        if color, let c = style.color { codes.append(String(c.rawValue)) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}

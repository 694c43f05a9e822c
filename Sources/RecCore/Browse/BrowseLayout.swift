/// Where things go on `browse`'s screen, and in what style: the one home of its layout
/// constants and colours. Sizes adapt to the terminal; these are the proportions and limits.
package enum BrowseLayout {
    /// The header (breadcrumb), the player or recorder line and the status line.
    package static let chromeRows = 3
    /// The smallest terminal drawn; a smaller one is asked to grow.
    package static let minimumWidth = 40
    package static let minimumHeight = 10

    /// The folder list's width: half of an 80-column terminal, up to 60 columns on a wide one.
    package static func listWidth(_ width: Int) -> Int {
        min(max(width / 2, 24), 60)
    }

    /// The recording's duration and date in its row, when the list has room for them.
    static let rowMetaWidth = 17
    /// Lines of the note, markers and transcript shown in the detail pane before "…".
    static let markerLines = 5
    static let noteLines = 3
    static let transcriptLines = 3
    static let chapterLines = 5
    /// The terms of the recording's topics line.
    static let topicTerms = 6
    /// The widest an alert grows.
    static let alertWidth = 64
    /// The level meter of the recorder line.
    static let meterWidth = 20
}

/// The styles `browse` draws with. Colours are dropped under NO_COLOR (see `ScreenDiff`);
/// bold, dim and reverse video stay, so the cursor and headings still show.
package enum Palette {
    package static let header = CellStyle(bold: true, reverse: true)
    package static let folder = CellStyle(color: .blue, bold: true)
    package static let cursor = CellStyle(reverse: true)
    package static let cursorFolder = CellStyle(color: .blue, bold: true, reverse: true)
    package static let meta = CellStyle(dim: true)
    package static let tag = CellStyle(color: .cyan)
    package static let title = CellStyle(bold: true)
    package static let label = CellStyle(dim: true)
    package static let waveform = CellStyle(color: .green)
    package static let playHead = CellStyle(color: .yellow, bold: true, reverse: true)
    package static let playing = CellStyle(color: .green, bold: true)
    package static let recording = CellStyle(color: .red, bold: true)
    package static let error = CellStyle(color: .red, bold: true)
    package static let alert = CellStyle(bold: true)
    package static let separator = CellStyle(dim: true)
}

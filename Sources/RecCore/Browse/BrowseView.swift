import RecStore
import RecValues

/// Draws `browse`'s state as a `Screen`: a pure function of the state, so a frame is tested
/// as plain text. The layout is the app's: the folder list on the left, the selected
/// recording and its player on the right, the player or recorder line and the status line
/// at the bottom, and alerts over it all.
package enum BrowseView {
    package static func render(_ state: BrowseState) -> Screen {
        var screen = Screen(width: state.width, height: state.height)
        guard state.width >= BrowseLayout.minimumWidth, state.height >= BrowseLayout.minimumHeight else {
            screen.write("Too small for browse:", row: 0, column: 0)
            screen.write(
                "needs \(BrowseLayout.minimumWidth)×\(BrowseLayout.minimumHeight) (q quits)", row: 1, column: 0)
            return screen
        }
        drawHeader(state, on: &screen)
        let split = BrowseLayout.listWidth(state.width)
        drawList(state, width: split, on: &screen)
        for row in 1..<(state.height - 2) { screen.write("│", row: row, column: split, style: Palette.separator) }
        drawDetail(state, column: split + 2, on: &screen)
        drawPlayerLine(state, on: &screen)
        drawStatusLine(state, on: &screen)
        switch state.mode {
        case .list: break
        case .help: drawHelp(on: &screen)
        case .alert(let alert): drawAlert(alert, state, on: &screen)
        case .confirm(let confirmation): drawConfirmation(confirmation, state, on: &screen)
        }
        return screen
    }

    // MARK: Header and list

    private static func drawHeader(_ state: BrowseState, on screen: inout Screen) {
        screen.fill(row: 0, style: Palette.header)
        let crumbs = state.document.ancestry(of: state.folder).map(\.name).joined(separator: " › ")
        let count = state.filter?.hits != nil ? "\(state.rows.count) found" : Format.count(state.rows.count, "item")
        let right = " " + count + " "
        screen.write(
            " " + crumbs, row: 0, column: 0, limit: state.width - TextWidth.of(right) - 1, style: Palette.header)
        screen.write(right, row: 0, column: state.width - TextWidth.of(right), style: Palette.header)
    }

    private static func drawList(_ state: BrowseState, width: Int, on screen: inout Screen) {
        let rows = state.rows
        if rows.isEmpty {
            screen.write(
                state.filter?.hits != nil ? "  nothing matches" : "  (empty: r records, n makes a folder)",
                row: 1, column: 0, limit: width, style: Palette.meta)
            return
        }
        for line in 0..<state.listHeight {
            let index = state.top + line
            guard index < rows.count else { break }
            drawRow(rows[index], state, selected: index == state.cursor, row: 1 + line, width: width, on: &screen)
        }
    }

    private static func drawRow(
        _ item: Item, _ state: BrowseState, selected: Bool, row: Int, width: Int, on screen: inout Screen
    ) {
        let base = selected ? Palette.cursor : CellStyle.plain
        if selected { screen.fill(row: row, to: width, style: base) }
        let playing = state.player?.id == item.id || state.jobs.contains { $0.kind == .playback && $0.id == item.id }
        let mark = item.isFolder ? "▸ " : playing ? "▶ " : "  "
        var col = screen.write(
            mark, row: row, column: 0, style: selected ? base : playing ? Palette.playing : Palette.folder)
        let meta: String
        if item.recording != nil {
            meta = Format.duration(item.trimmedDuration) + "  " + String(Format.date(item.created).prefix(10))
        } else {
            meta = Format.count(item.children.count, "item")
        }
        let showMeta = width - 2 - TextWidth.of(meta) >= 12
        let nameRoom = width - col - (showMeta ? TextWidth.of(meta) + 2 : 1)
        let name = item.isFolder ? item.name + "/" : item.name
        col = screen.write(
            name, row: row, column: col, limit: nameRoom,
            style: selected ? (item.isFolder ? Palette.cursorFolder : base) : item.isFolder ? Palette.folder : base)
        for tag in item.annotations.tags {
            let text = " #" + tag
            guard col + TextWidth.of(text) <= 2 + nameRoom else { break }
            col = screen.write(text, row: row, column: col, style: selected ? base : Palette.tag)
        }
        if showMeta {
            screen.write(meta, row: row, column: width - 1 - TextWidth.of(meta), style: selected ? base : Palette.meta)
        }
    }

    // MARK: Detail pane

    private static func drawDetail(_ state: BrowseState, column: Int, on screen: inout Screen) {
        let width = state.width - column
        let last = state.height - 3
        var row = 1
        func line(_ text: String, _ style: CellStyle = .plain) {
            guard row <= last else { return }
            screen.write(text, row: row, column: column, limit: width, style: style)
            row += 1
        }
        func field(_ label: String, _ value: String, _ style: CellStyle = .plain) {
            guard row <= last else { return }
            let col = screen.write(TextWidth.padded(label, to: 10), row: row, column: column, style: Palette.label)
            screen.write(value, row: row, column: col, limit: width - 10, style: style)
            row += 1
        }
        guard let item = state.selected else { return }
        line(item.name, Palette.title)
        guard let info = item.recording else {
            field(
                "Folder",
                state.contents(of: item).map {
                    Format.count($0.folders, "folder") + ", " + Format.count($0.recordings, "recording")
                } ?? "…")
            field("Created", Format.date(item.created))
            if !item.annotations.tags.isEmpty {
                field("Tags", item.annotations.tags.map { "#" + $0 }.joined(separator: " "), Palette.tag)
            }
            noteLines(item.annotations.note, width: width).forEach { line($0) }
            return
        }
        field("Created", Format.date(item.created))
        field(
            "Format",
            "\(info.format.rawValue) · \(info.sampleRate) Hz · \(info.channels == 1 ? "mono" : info.channels == 2 ? "stereo" : "\(info.channels) ch")"
        )
        field(
            "Duration",
            Format.duration(info.duration)
                + (item.annotations.trim != nil ? " (plays \(Format.duration(item.trimmedDuration)))" : ""))
        let details = state.details?.id == item.id ? state.details : nil
        field("Size", details?.size.map(Format.size) ?? "…")
        // What play and export apply ('recnotes enhance'; E turns it on and off).
        let enhance = item.annotations.enhance
        field("Enhance", enhance.isOff ? "off" : enhance.description)
        if !item.annotations.tags.isEmpty {
            field("Tags", item.annotations.tags.map { "#" + $0 }.joined(separator: " "), Palette.tag)
        }
        row += 1
        if row <= last {
            drawWaveform(item, info, state, row: row, column: column, width: width - 1, on: &screen)
            row += 2
        }
        let markers = item.annotations.markers
        if !markers.isEmpty {
            line("Markers", Palette.label)
            let rate = Double(max(info.sampleRate, 1))
            for (n, marker) in markers.prefix(BrowseLayout.markerLines).enumerated() {
                line(" #\(n + 1)  \(Format.preciseClock(Double(marker.frame) / rate))  \(marker.label)")
            }
            if markers.count > BrowseLayout.markerLines {
                line(" … \(markers.count - BrowseLayout.markerLines) more", Palette.meta)
            }
        }
        if !item.annotations.note.isEmpty {
            line("Note", Palette.label)
            noteLines(item.annotations.note, width: width).forEach { line(" " + $0) }
        }
        if let topics = details?.topics, !topics.isEmpty {
            field("Topics", topics.joined(separator: " · "))
        }
        if let chapters = details?.chapters, !chapters.isEmpty {
            line("Chapters", Palette.label)
            for chapter in chapters.prefix(BrowseLayout.chapterLines) {
                line(" \(Format.duration(chapter.start))  \(RecordingChapters.label(chapter))")
            }
            if chapters.count > BrowseLayout.chapterLines {
                line(" … \(chapters.count - BrowseLayout.chapterLines) more", Palette.meta)
            }
        }
        if let transcript = details?.transcript, !transcript.isEmpty {
            line("Transcript", Palette.label)
            for text in transcript { line(" " + text) }
        }
    }

    private static func noteLines(_ note: String, width: Int) -> [String] {
        let lines = note.split(separator: "\n", omittingEmptySubsequences: true).map {
            TerminalText.visible(String($0))
        }
        return Array(lines.prefix(BrowseLayout.noteLines)) + (lines.count > BrowseLayout.noteLines ? ["…"] : [])
    }

    /// The waveform across the pane, the cell under the play position drawn as the play head,
    /// and the position's clock under it.
    private static func drawWaveform(
        _ item: Item, _ info: RecordingInfo, _ state: BrowseState,
        row: Int, column: Int, width: Int, on screen: inout Screen
    ) {
        guard width > 0 else { return }
        let peaks = info.analysis.map { resample($0.peaks, to: width) } ?? Array(repeating: 0, count: width)
        screen.write(Sparkline.render(peaks), row: row, column: column, style: Palette.waveform)
        let total = max(info.frames, 1)
        let position: Int64?
        if let player = state.player, player.id == item.id {
            position = player.frames
        } else if let job = state.jobs.first(where: { $0.kind == .playback && $0.id == item.id }) {
            position = Int64(job.position * Double(info.sampleRate))
        } else {
            position = nil
        }
        if let position {
            let head = min(Int(position * Int64(width) / total), width - 1)
            let cell = screen[row, column + head]
            screen[row, column + head] = Cell(cell.text == " " ? "▏" : cell.text, Palette.playHead)
        }
    }

    /// `peaks` stretched or squeezed to `count` values, each the loudest of what it covers.
    static func resample(_ peaks: [Double], to count: Int) -> [Double] {
        guard !peaks.isEmpty, count > 0 else { return Array(repeating: 0, count: max(count, 0)) }
        return (0..<count).map { i in
            let from = i * peaks.count / count
            let to = max((i + 1) * peaks.count / count, from + 1)
            return peaks[from..<min(to, peaks.count)].max() ?? 0
        }
    }

    // MARK: Bottom lines

    private static func drawPlayerLine(_ state: BrowseState, on screen: inout Screen) {
        let row = state.height - 2
        if let recorder = state.recorder {
            let rate = Double(max(recorder.sampleRate, 1))
            let line = StatusLine(
                symbol: recorder.paused ? "❚❚" : "●", time: Format.clock(Double(recorder.frames) / rate),
                level: recorder.paused ? nil : recorder.peak,
                extras: [Format.size(recorder.bytes)],
                state: recorder.stopped ? "stopped" : recorder.paused ? "paused" : "recording",
                hints: recorder.stopped ? nil : "space pause · m mark · s stop")
            screen.write(line.render(width: state.width), row: row, column: 0, style: Palette.recording)
        } else if let player = state.player {
            let rate = Double(max(player.sampleRate, 1))
            let name = state.document[player.id]?.name
            let line = StatusLine(
                symbol: player.paused ? "❚❚" : "▶",
                // To the hundredth: the time moves at every frame while playing (up to 33 a second).
                time: Format.preciseClock(Double(player.frames) / rate) + " / "
                    + Format.clock(Double(player.end) / rate) + (player.speed.isNormal ? "" : "  \(player.speed)"),
                name: name, state: player.paused ? "paused" : nil,
                hints: "space pause · ←/→ 5 s · { } speed · [ ] marks · x stop")
            screen.write(line.render(width: state.width), row: row, column: 0, style: Palette.playing)
        } else if let job = state.jobs.first {
            let symbol = job.kind == .recording ? (job.paused ? "❚❚" : "●") : (job.paused ? "❚❚" : "▶")
            let line = StatusLine(
                symbol: symbol, time: Format.clock(job.position), name: job.path,
                state:
                    "\(job.kind == .recording ? "recording" : "playing") in pid \(job.pid)\(job.paused ? ", paused" : "")",
                hints: "space pause · x stop")
            screen.write(
                line.render(width: state.width), row: row, column: 0,
                style: job.kind == .recording ? Palette.recording : Palette.playing)
        }
    }

    private static func drawStatusLine(_ state: BrowseState, on screen: inout Screen) {
        let row = state.height - 1
        if let filter = state.filter, filter.typing {
            let end = screen.write("/" + filter.line.text, row: row, column: 0)
            if case .list = state.mode {
                screen.cursor = (
                    row, end - TextWidth.of(String(filter.line.text.suffix(filter.line.columnsAfterCursor)))
                )
            }
            return
        }
        if let message = state.message {
            screen.write(message.text, row: row, column: 0, style: message.isError ? Palette.error : .plain)
            return
        }
        // Under the recorder, the latest of its live words.
        if !state.liveWords.isEmpty, state.filter == nil {
            screen.write(TextWidth.tail(state.liveWords, to: state.width), row: row, column: 0, style: Palette.meta)
            return
        }
        let hint =
            state.filter != nil
            ? "filter: \(state.filter!.line.text) · Esc clears · ? keys"
            : "Enter open · Space pause · r record · n folder · / filter · ? keys · q quit"
        screen.write(hint, row: row, column: 0, style: Palette.meta)
    }

    // MARK: Overlays

    /// A box in the middle of the screen; returns its first inner row and column and width.
    private static func box(_ title: String, rows: Int, width wanted: Int, on screen: inout Screen) -> (
        row: Int, column: Int, width: Int
    ) {
        let width = min(wanted, screen.width - 4)
        let left = (screen.width - width) / 2
        let top = max((screen.height - rows - 2) / 2, 1)
        for r in top...(top + rows + 1) { screen.fill(row: r, from: left, to: left + width, style: Palette.alert) }
        let bar = String(repeating: "─", count: max(width - 2, 0))
        screen.write("┌" + bar + "┐", row: top, column: left, style: Palette.alert)
        screen.write(" " + title + " ", row: top, column: left + 2, limit: width - 4, style: Palette.alert)
        for r in (top + 1)...(top + rows) {
            screen.write("│", row: r, column: left, style: Palette.alert)
            screen.write("│", row: r, column: left + width - 1, style: Palette.alert)
        }
        screen.write("└" + bar + "┘", row: top + rows + 1, column: left, style: Palette.alert)
        return (top + 1, left + 2, width - 4)
    }

    private static func drawAlert(_ alert: BrowseState.Alert, _ state: BrowseState, on screen: inout Screen) {
        let (title, hint): (String, String)
        switch alert.purpose {
        case .nameRecording: (title, hint) = ("Name the recording", "Enter saves · Esc discards")
        case .newFolder: (title, hint) = ("New folder", "Enter makes it · Esc cancels")
        case .rename: (title, hint) = ("Rename", "Enter renames · Esc cancels")
        case .tags: (title, hint) = ("Tags (separated by spaces)", "Enter saves · Esc cancels")
        }
        let inner = box(title, rows: 3, width: BrowseLayout.alertWidth, on: &screen)
        // The end of a long text stays in sight: the field scrolls with the cursor.
        let before = String(alert.line.text.dropLast(alert.line.columnsAfterCursor))
        var shown = alert.line.text
        var cursorColumn = TextWidth.of(before)
        while cursorColumn >= inner.width, !shown.isEmpty {
            let first = shown.removeFirst()
            cursorColumn -= TextWidth.of(first)
        }
        screen.write(shown, row: inner.row, column: inner.column, limit: inner.width, style: Palette.title)
        if let problem = alert.problem {
            screen.write(problem, row: inner.row + 1, column: inner.column, limit: inner.width, style: Palette.error)
        }
        screen.write(hint, row: inner.row + 2, column: inner.column, limit: inner.width, style: Palette.meta)
        screen.cursor = (inner.row, inner.column + cursorColumn)
    }

    private static func drawConfirmation(
        _ confirmation: BrowseState.Confirmation, _ state: BrowseState, on screen: inout Screen
    ) {
        let question: String
        switch confirmation {
        case .trash(let id): question = "Move \(NameRules.quoted(state.document[id]?.name ?? "it")) to the trash?"
        case .discardRecording: question = "Discard this recording? Its audio goes to the trash."
        }
        let inner = box("Confirm", rows: 2, width: BrowseLayout.alertWidth, on: &screen)
        screen.write(question, row: inner.row, column: inner.column, limit: inner.width, style: Palette.title)
        screen.write("y yes · n no", row: inner.row + 1, column: inner.column, limit: inner.width, style: Palette.meta)
    }

    private static func drawHelp(on screen: inout Screen) {
        let bindings = BrowseKeymap.bindings
        let columns = screen.width >= 76 ? 2 : 1
        let perColumn = (bindings.count + columns - 1) / columns
        let rows = min(perColumn, screen.height - 4)
        let inner = box("Keys (any key closes)", rows: rows, width: columns == 2 ? 96 : 60, on: &screen)
        let columnWidth = inner.width / columns
        for (n, binding) in bindings.enumerated() {
            let c = n / perColumn
            let r = n % perColumn
            guard r < rows else { continue }
            let col = inner.column + c * columnWidth
            screen.write(TextWidth.padded(binding.label, to: 9), row: inner.row + r, column: col, style: Palette.title)
            screen.write(
                binding.help, row: inner.row + r, column: col + 9, limit: columnWidth - 10, style: Palette.alert)
        }
    }
}

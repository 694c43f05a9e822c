import RecValues

/// The live line of `record`, `play` and `import` as a value: a symbol and the time always,
/// then as much of the rest as the terminal's width allows. A line wider than the terminal
/// wraps, and `\r` can no longer redraw it, so what does not fit is dropped, least useful
/// first: the key hints, the extras, then the bars shrink and go, then the name is cut.
package struct StatusLine: Equatable, Sendable {
    /// `▶`, `❚❚`, `●`, `⇣`.
    package var symbol: String
    /// `00:00:05 / 00:00:30`.
    package var time: String
    /// How far through, for a progress bar.
    package var fraction: Double?
    /// The level in dBFS, for a meter.
    package var level: Double?
    /// `-12.3 dBFS`, `CLIP`, `1.2 MB` (may carry colour escapes).
    package var extras: [String]
    /// The item's name.
    package var name: String?
    /// `paused`.
    package var state: String?
    /// `space pause · q stop`.
    package var hints: String?

    package init(
        symbol: String, time: String, fraction: Double? = nil, level: Double? = nil, extras: [String] = [],
        name: String? = nil, state: String? = nil, hints: String? = nil
    ) {
        self.symbol = symbol
        self.time = time
        self.fraction = fraction
        self.level = level
        self.extras = extras
        self.name = name
        self.state = state
        self.hints = hints
    }

    /// The line, narrower than `width` columns (the last column is left free: some
    /// terminals wrap as soon as it is written).
    package func render(width: Int) -> String {
        let limit = max(width - 1, 1)
        // Bar and meter widths, extras, hints: from the fullest down.
        let variants: [(bar: Int, meter: Int, extras: Bool, hints: Bool)] = [
            (30, 20, true, true), (20, 12, true, true), (20, 12, true, false), (12, 8, true, false),
            (12, 8, false, false), (6, 5, false, false), (0, 0, false, false),
        ]
        for v in variants {
            let text = compose(bar: v.bar, meter: v.meter, extras: v.extras, hints: v.hints, name: name)
            if Self.visibleWidth(text) <= limit { return text }
        }
        // Only the name is left to give: cut it with an ellipsis, or leave it out.
        let bare = compose(bar: 0, meter: 0, extras: false, hints: false, name: nil)
        if let name, Self.visibleWidth(bare) + 4 <= limit {
            let room = limit - Self.visibleWidth(bare) - 3
            let cut = name.count > room ? String(name.prefix(room)) + "…" : name
            let text = compose(bar: 0, meter: 0, extras: false, hints: false, name: cut)
            if Self.visibleWidth(text) <= limit { return text }
        }
        if Self.visibleWidth(bare) <= limit { return bare }
        // Narrower still: the position without the total, then whatever fits.
        let short = "\(symbol) \(time.prefix { $0 != " " })"
        return String(short.prefix(limit))
    }

    private func compose(bar: Int, meter: Int, extras showExtras: Bool, hints showHints: Bool, name: String?) -> String
    {
        var text = "\(symbol) \(time)"
        if let fraction, bar > 0 { text += " " + Format.progressBar(fraction, width: bar) }
        if let level, meter > 0 { text += "  " + Format.levelBar(level, width: meter) }
        if showExtras, !extras.isEmpty { text += "  " + extras.joined(separator: "  ") }
        if let name, !name.isEmpty { text += "  " + name }
        if let state { text += "  " + state }
        if showHints, let hints { text += "  " + hints }
        return text
    }

    /// Columns the text takes: characters, not counting colour escapes (`ESC [ … m`).
    package static func visibleWidth(_ text: String) -> Int {
        var count = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if scalar == "m" { inEscape = false }
                continue
            }
            if scalar == "\u{1B}" {
                inEscape = true
                continue
            }
            // Combining marks take no column of their own.
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            count += 1
        }
        return count
    }
}

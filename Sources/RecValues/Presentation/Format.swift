#if canImport(Glibc)
    import Glibc
#endif

/// How values read to a person. Kept apart from drawing: the terminal renderer decides
/// where and in what colour, these decide the text.
package enum Format {
    /// A word the shell reads back as `text`: as it is when it is plain, else in single
    /// quotes (`'/Recording 2024-01-02 10.00.00'`, `'it'\''s'`).
    package static func shellQuoted(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                    || "/._-+=:,@%".unicodeScalars.contains($0)
            }
        return plain
            ? text : "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// `1 item`, `3 items`: a count and its noun (a regular plural).
    package static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `01:23`, or `1:02:03` from an hour on; under a second, its hundredths (`00:00.40`),
    /// so that a short clip does not read as empty. Only nothing at all is `00:00`.
    package static func duration(_ seconds: Double) -> String {
        if seconds > 0 && seconds < 1 {
            // Down, as the whole seconds go; the nudge keeps 0.29 (28.999… hundredths) at 29.
            return "00:00." + two(Int((seconds * 100 + 1e-6).rounded(.down)))
        }
        // Clamped: a time typed as 99999999999999999999999 must print, not trap converting to Int.
        let total = Int(min(max(0, seconds), 1e15).rounded(.down))
        let h = total / 3600
        let m = total / 60 % 60
        let s = total % 60
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(two(m)):\(two(s))"
    }

    /// `00:01:23`, fixed width, for progress lines.
    package static func clock(_ seconds: Double) -> String {
        // Clamped: a time typed as 99999999999999999999999 must print, not trap converting to Int.
        let total = Int(min(max(0, seconds), 1e15).rounded(.down))
        return "\(two(total / 3600)):\(two(total / 60 % 60)):\(two(total % 60))"
    }

    /// `00:01:23.45`: a clock to the hundredth of a second.
    package static func preciseClock(_ seconds: Double) -> String {
        let hundredths = Int((min(max(0, seconds), 1e13) * 100).rounded())
        let fraction = hundredths % 100
        return clock(Double(hundredths / 100)) + "." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }

    /// Local date and minute, as `ls -l` shows it.
    package static func date(_ t: Timestamp) -> String {
        let c = t.localComponents
        return "\(c.year)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute))"
    }

    /// Bytes in the units people read: `512 B`, `96 KB`, `1.4 MB`.
    package static func size(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 999.5 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let text = value < 9.95 ? String(Double(Int((value * 10).rounded())) / 10) : String(Int(value.rounded()))
        return "\(text) \(units[unit])"
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

#if canImport(Glibc)
    import Glibc
#endif

/// A moment as typed after `find --after` or `--before`:
///
/// - an ISO date, `2026-11-20` (local midnight), or an ISO time, `2026-11-20T14:30:00Z`;
/// - `today` or `yesterday` (local midnight);
/// - an age, `7d`, `12h`, `2w`, `30m`: that long before now.
public enum DateSpec {
    public static func parse(_ text: String, now: Timestamp = .now()) throws -> Timestamp {
        let trimmed = text.trimmingWhitespace.lowercased()
        switch trimmed {
        case "today": return localMidnight(of: now, daysBefore: 0)
        case "yesterday": return localMidnight(of: now, daysBefore: 1)
        default: break
        }
        if let age = age(trimmed) {
            return Timestamp(millisecondsSinceEpoch: now.millisecondsSinceEpoch - age)
        }
        if let date = localDate(trimmed) { return date }
        if let time = Timestamp(iso8601: text.trimmingWhitespace) { return time }
        throw RecError.usage(
            NameRules.quoted(text),
            "not a date: use 2026-11-20, an ISO time, today, yesterday, or an age such as 7d, 12h, 2w")
    }

    /// `7d` → milliseconds, for the units m, h, d, w.
    private static func age(_ text: String) -> Int64? {
        guard let unit = text.last, let count = Int64(text.dropLast()), count >= 0, count < 1_000_000 else {
            return nil
        }
        let minute: Int64 = 60_000
        switch unit {
        case "m": return count * minute
        case "h": return count * 60 * minute
        case "d": return count * 24 * 60 * minute
        case "w": return count * 7 * 24 * 60 * minute
        default: return nil
        }
    }

    /// `YYYY-MM-DD` at local midnight.
    private static func localDate(_ text: String) -> Timestamp? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int32(parts[0]), let month = Int32(parts[1]), let day = Int32(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var fields = tm()
        fields.tm_year = year - 1900
        fields.tm_mon = month - 1
        fields.tm_mday = day
        fields.tm_isdst = -1
        let seconds = mktime(&fields)
        guard seconds != -1, fields.tm_mday == day else { return nil }  // 2026-02-31 rolls over: refused
        return Timestamp(millisecondsSinceEpoch: Int64(seconds) * 1000)
    }

    private static func localMidnight(of moment: Timestamp, daysBefore: Int32) -> Timestamp {
        var seconds = time_t(moment.millisecondsSinceEpoch / 1000)
        var fields = tm()
        localtime_r(&seconds, &fields)
        fields.tm_hour = 0
        fields.tm_min = 0
        fields.tm_sec = 0
        fields.tm_mday -= daysBefore
        fields.tm_isdst = -1
        return Timestamp(millisecondsSinceEpoch: Int64(mktime(&fields)) * 1000)
    }
}

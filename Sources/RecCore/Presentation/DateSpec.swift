import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// A moment as typed after `find --after` or `--before`:
///
/// - an ISO date, `2026-11-20` (local midnight);
/// - an ISO time of minutes, `2026-11-20T14:30`, or of seconds, `2026-11-20T14:30:05`, or
///   with a fraction, `2026-11-20T14:30:05.25`; `T` or a space between date and time (`ls -l`
///   shows `2026-11-20 14:30`); then `Z`, an offset (`+01:00`, `+0100`, `+01`), or nothing
///   for local time;
/// - `today` or `yesterday` (local midnight);
/// - an age, `7d`, `12h`, `2w`, `30m`: that long before now.
package enum DateSpec {
    /// What the forms are, for the message that refuses one.
    static let forms =
        "use 2026-11-20, 2026-11-20T14:30 (seconds, a fraction, and Z or an offset such as +01:00 may follow; without them it is local time), today, yesterday, or an age such as 7d, 12h, 2w"

    /// `option` names the option in the error (`--after soon: not a date: …`).
    package static func parse(_ text: String, option: String? = nil, now: Timestamp = .now()) throws -> Timestamp {
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
        var typed = text.trimmingWhitespace
        if let time = typed.withUTF8({ ISODateTime(utf8: $0, lenient: true) }) {
            if let offset = time.offsetMinutes { return Timestamp(utc: time, offsetMinutes: offset) }
            if let local = localTime(time) { return local }
        }
        throw RecError.usage(TimeSpec.typed(text, option: option), "not a date: \(forms)")
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
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        return local(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
    }

    /// An ISO time with no zone, in local time.
    private static func localTime(_ time: ISODateTime) -> Timestamp? {
        local(
            year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute,
            second: time.second
        ).map { Timestamp(millisecondsSinceEpoch: $0.millisecondsSinceEpoch + Int64(time.millisecond)) }
    }

    /// A local date and time through `mktime`; nil for a day the month does not have
    /// (2026-02-31 would roll over into March).
    private static func local(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Timestamp? {
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month - 1)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(hour)
        fields.tm_min = Int32(minute)
        fields.tm_sec = Int32(second)
        fields.tm_isdst = -1
        let seconds = mktime(&fields)
        guard seconds != -1, fields.tm_mday == Int32(day) else { return nil }
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

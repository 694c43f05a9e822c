#if canImport(Glibc)
    import Glibc
#endif

/// A point in time with millisecond precision, written in the store as ISO 8601 UTC
/// (`2026-11-22T03:06:52.123Z`). Parsing and formatting are done by hand: going through
/// Foundation's ISO8601DateFormatter costs more than everything else in loading a large store.
package struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    package var millisecondsSinceEpoch: Int64

    package init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    package static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(millisecondsSinceEpoch: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    package var secondsSinceEpoch: Double { Double(millisecondsSinceEpoch) / 1000 }

    package static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    /// ISO 8601 in UTC with milliseconds.
    package var description: String { iso8601 }

    package var iso8601: String {
        String(unsafeUninitializedCapacity: 24) { buffer in
            writeISO8601(into: buffer.baseAddress!)
            return 24
        }
    }

    /// Writes the 24 bytes of `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    package func writeISO8601(into out: UnsafeMutablePointer<UInt8>) {
        let (days, msOfDay) = millisecondsSinceEpoch.floorDivided(by: 86_400_000)
        let (year, month, day) = civilFromDays(days)
        func put(_ value: Int, _ at: Int, _ width: Int) {
            var v = value
            for k in stride(from: at + width - 1, through: at, by: -1) {
                out[k] = UInt8(48 + v % 10)
                v /= 10
            }
        }
        put(min(max(year, 0), 9999), 0, 4)
        out[4] = 45
        put(month, 5, 2)
        out[7] = 45
        put(day, 8, 2)
        out[10] = 84
        put(Int(msOfDay / 3_600_000), 11, 2)
        out[13] = 58
        put(Int(msOfDay / 60_000 % 60), 14, 2)
        out[16] = 58
        put(Int(msOfDay / 1000 % 60), 17, 2)
        out[19] = 46
        put(Int(msOfDay % 1000), 20, 3)
        out[23] = 90
    }

    /// Broken-down local time, for what people read (`ls -l`, default recording names).
    package var localComponents: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var seconds = time_t(millisecondsSinceEpoch.floorDivided(by: 1000).quotient)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return (
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)
        )
    }

    package init?(iso8601 text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Timestamp(utf8: $0) }) else { return nil }
        self = parsed
    }

    /// Accepts `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, which covers what recnotes writes
    /// and what `date -Iseconds` or a hand edit produces.
    package init?(utf8 b: UnsafeBufferPointer<UInt8>) {
        guard let time = ISODateTime(utf8: b, lenient: false), let offset = time.offsetMinutes else { return nil }
        self.init(utc: time, offsetMinutes: offset)
    }

    /// The moment `time` names, read with the given UTC offset.
    package init(utc time: ISODateTime, offsetMinutes: Int) {
        let days = daysFromCivil(time.year, time.month, time.day)
        let seconds =
            Int64(days) * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second)
            - Int64(offsetMinutes * 60)
        self.init(millisecondsSinceEpoch: seconds * 1000 + Int64(time.millisecond))
    }
}

/// The fields of an ISO 8601 date and time, as written: `YYYY-MM-DD`, `T` (or `t`, or a
/// space), `HH:MM:SS`, an optional fraction, then `Z` or an offset (`±HH:MM`, `±HHMM`). The
/// store's files hold exactly that; `lenient` (what a person types after `find --after`)
/// also takes the time without seconds, an offset of hours alone (`+01`), and no zone at
/// all (`offsetMinutes` nil: the reader decides, local time for `DateSpec`).
package struct ISODateTime {
    package var year, month, day, hour, minute, second, millisecond: Int
    package var offsetMinutes: Int?

    package init?(utf8 b: UnsafeBufferPointer<UInt8>, lenient: Bool) {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var value = 0
            for _ in 0..<n {
                let d = Int(b[i]) - 48
                guard d >= 0 && d <= 9 else { return nil }
                value = value * 10 + d
                i += 1
            }
            return value
        }
        func literal(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), literal(45), let month = digits(2), literal(45), let day = digits(2),
            i < b.count, b[i] == 84 || b[i] == 116 || b[i] == 32
        else { return nil }
        i += 1
        guard let hour = digits(2), literal(58), let minute = digits(2) else { return nil }
        var second = 0
        if literal(58) {
            guard let s = digits(2) else { return nil }
            second = s
        } else if !lenient {
            return nil
        }
        guard (1...12).contains(month), (1...daysInMonth(year, month)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var millis = 0
        if literal(46) {
            var scale = 100
            var any = false
            while i < b.count, b[i] >= 48 && b[i] <= 57 {
                millis += Int(b[i] - 48) * scale
                scale /= 10
                i += 1
                any = true
            }
            guard any else { return nil }
        }
        var offsetMinutes: Int?
        if i == b.count {
            guard lenient else { return nil }
        } else if b[i] == 90 || b[i] == 122 {
            i += 1
            offsetMinutes = 0
        } else if b[i] == 43 || b[i] == 45 {
            let sign = b[i] == 45 ? -1 : 1
            i += 1
            guard let oh = digits(2), oh < 24 else { return nil }
            var om = 0
            if i < b.count || !lenient {
                _ = literal(58)
                guard let m = digits(2), m < 60 else { return nil }
                om = m
            }
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (
            year, month, day, hour, minute, second
        )
        self.millisecond = millis
        self.offsetMinutes = offsetMinutes
    }
}

extension Int64 {
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var q = self / divisor
        var r = self % divisor
        if r < 0 {
            q -= 1
            r += divisor
        }
        return (q, r)
    }
}

private func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

private func daysInMonth(_ y: Int, _ m: Int) -> Int {
    switch m {
    case 2: return isLeap(y) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
}

// Howard Hinnant's days-from-civil algorithm: proleptic Gregorian, no tables.
private func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
}

private func civilFromDays(_ days: Int64) -> (Int, Int, Int) {
    let z = Int(days) + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
}

import RecSystem
import RecValues

/// A point in a recording as a user writes it: `90`, `90s`, `1:30`, `1:02:03.5`, `5m`,
/// `2m30s`, `1h2m3s`, `50%`, `-10s` (from the end), for relative seeks `+5s` / `-5s`, and
/// a marker of the recording: `#3` (by number) or `mark:LABEL` (by label).
package enum TimeSpec: Equatable, Sendable {
    /// Seconds from the start.
    case absolute(Double)
    /// A fraction of the duration, 0...100.
    case percent(Double)
    /// Seconds before the end.
    case fromEnd(Double)
    /// Seconds forward (positive) or back (negative) from the current position.
    case relative(Double)
    /// A marker of the recording, as typed (`#3`, `mark:budget`); only a recording's own
    /// markers resolve it (`resolve(markers:)`), so only `play --seek`/`--until` take one.
    case marker(String)

    /// About 31 years: anything longer is a typo, and would overflow a frame count.
    package static let maximumSeconds = 1e9

    /// With `allowRelative`, a leading `+` or `-` means relative to the current position
    /// (as `recnotes seek` uses it); otherwise a leading `-` counts from the end. `option`
    /// names the option in an error (`--seek abc: expected a time …`).
    package static func parse(_ text: String, option: String? = nil, allowRelative: Bool = false) throws -> TimeSpec {
        let trimmed = text.trimmingWhitespace
        func bad(_ why: String) -> RecError { RecError.usage(typed(text, option: option), why) }
        let expected = "expected a time such as 90, 90s, 1:30, 2m30s, 1h2m3s, 1:02:03.5, 50% or -10s"
        guard !trimmed.isEmpty else { throw bad("empty time; \(expected)") }
        if trimmed.hasPrefix("mark:") {
            guard trimmed.count > 5 else { throw bad("give the marker's label after 'mark:', such as mark:budget") }
            return .marker(trimmed)
        }
        if trimmed.hasPrefix("#") {
            let digits = trimmed.dropFirst()
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let n = Int(digits), n > 0 else {
                throw bad("a marker's number is # and a whole number from 1, such as #3")
            }
            return .marker("#\(n)")
        }
        var body = Substring(trimmed)
        var sign: Character?
        if body.first == "+" || body.first == "-" { sign = body.removeFirst() }
        if sign == "+" && !allowRelative { throw bad("'+' is only for relative seeks; \(expected)") }
        if body.hasSuffix("%") {
            guard sign == nil else { throw bad("a percentage cannot be signed") }
            // `50 %` is how many people write it.
            guard let value = decimal(Substring(String(body.dropLast()).trimmingWhitespace)), value <= 100 else {
                throw bad("a percentage must be between 0% and 100%")
            }
            return .percent(value)
        }
        guard let seconds = clockSeconds(body) ?? unitSeconds(body) else { throw bad(expected) }
        guard seconds <= maximumSeconds else {
            throw bad("longer than recnotes handles (at most \(Int(maximumSeconds)) s)")
        }
        switch sign {
        case "+": return .relative(seconds)
        case "-": return allowRelative ? .relative(-seconds) : .fromEnd(seconds)
        default: return .absolute(seconds)
        }
    }

    /// Seconds from the start of a recording of `duration` seconds, given the current
    /// position for relative specs. Outside the recording is an error, except that a
    /// relative seek stops at either end, as a slider does. An error names `spec` (the time
    /// as typed) after `option`.
    package func resolve(duration: Double, current: Double = 0, spec: String? = nil, option: String? = nil) throws
        -> Double
    {
        let subject = TimeSpec.typed(spec ?? description, option: option)
        func outside(_ value: Double) -> RecError {
            RecError.usage(
                subject,
                "\(Format.preciseClock(value)) is outside the recording (00:00:00.00 to \(Format.preciseClock(duration)))"
            )
        }
        switch self {
        case .absolute(let s):
            guard s <= duration else { throw outside(s) }
            return s
        case .percent(let p):
            return duration * p / 100
        case .fromEnd(let s):
            guard s <= duration else {
                throw RecError.usage(subject, "the recording is only \(Format.preciseClock(duration)) long")
            }
            return duration - s
        case .relative(let delta):
            return min(max(current + delta, 0), duration)
        case .marker:
            throw RecError.usage(subject, "a marker (#N or mark:LABEL) is a time only for play --seek and --until")
        }
    }

    /// The frame a marker spec names among a recording's `markers` (`#N` by number, `mark:LABEL`
    /// by label, exactly or ignoring case and accents), clamped to `frames`. Nil for a spec
    /// that is not a marker. A marker that is not there is a usage error naming the option.
    package func markerFrame(in markers: [Marker], frames: Int64, option: String, path: String) throws -> Int64? {
        guard case .marker(let selector) = self else { return nil }
        let subject = "\(option) \(NameRules.quoted(selector))"
        guard !markers.isEmpty else { throw RecError.usage(subject, "\(path) has no markers") }
        do {
            let (_, marker) = try Annotations(markers: markers).marker(matching: selector, in: path)
            return min(max(marker.frame, 0), frames)
        } catch let error as RecError {
            throw RecError.usage(subject, error.reason)
        }
    }

    /// Where a playback starts for `--seek`: as `resolve`, except that a time from the end
    /// that reaches before the beginning starts at 0, as mpv does, with a note saying so.
    package func resolveStart(duration: Double, spec: String) throws -> (seconds: Double, note: String?) {
        if case .fromEnd(let s) = self, s > duration {
            return (
                0, "--seek \(spec): the recording is only \(Format.preciseClock(duration)) long; playing from the start"
            )
        }
        return (try resolve(duration: duration, spec: spec, option: "--seek"), nil)
    }

    /// What was typed, as an error names it: the option and its value, the value quoted when
    /// a space in it would blur where it ends (`--seek '50 x'`).
    package static func typed(_ text: String, option: String?) -> String {
        var value = NameRules.quoted(text)
        if !value.hasPrefix("'"), value.contains(where: \.isWhitespace) { value = "'\(value)'" }
        return option.map { "\($0) \(value)" } ?? value
    }

    package var description: String {
        switch self {
        case .absolute(let s): return "\(s)s"
        case .percent(let p): return "\(p)%"
        case .fromEnd(let s): return "-\(s)s"
        case .relative(let d): return d >= 0 ? "+\(d)s" : "\(d)s"
        case .marker(let selector): return selector
        }
    }

    /// `90`, `90s`, `90.5s`, `1:30`, `1:02:03.5`: at most three fields, minutes and seconds
    /// below 60 wherever a larger field stands before them.
    private static func clockSeconds(_ text: Substring) -> Double? {
        var text = text
        if text.hasSuffix("s") {
            text = text.dropLast()
            guard !text.contains(":") else { return nil }
        }
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        var total = 0.0
        for (i, field) in fields.enumerated() {
            let isLast = i == fields.count - 1
            let value: Double
            if isLast {
                guard let v = decimal(field) else { return nil }
                value = v
            } else {
                guard !field.isEmpty, field.allSatisfy(\.isASCIIDigit), let v = Double(field) else { return nil }
                value = v
            }
            if i > 0 && value >= 60 { return nil }
            total = total * 60 + value
        }
        return total.isFinite ? total : nil
    }

    /// `5m`, `1h`, `2m30s`, `1h2m3s`, `1.5h`: hours, minutes and seconds in that order, each
    /// at most once; a fraction only in the last; a field after the first below 60.
    private static func unitSeconds(_ text: Substring) -> Double? {
        let units: [(Character, Double)] = [("h", 3600), ("m", 60), ("s", 1)]
        var rest = text
        var next = 0
        var total = 0.0
        var fields = 0
        while !rest.isEmpty {
            guard let end = rest.firstIndex(where: { !$0.isASCIIDigit && $0 != "." }) else { return nil }
            let number = rest[..<end]
            guard let index = units[next...].firstIndex(where: { $0.0 == rest[end] }), let value = decimal(number)
            else { return nil }
            rest = rest[rest.index(after: end)...]
            if number.contains(".") && !rest.isEmpty { return nil }
            if fields > 0 && value >= 60 { return nil }
            total += value * units[index].1
            fields += 1
            next = index + 1
        }
        return fields > 0 && total.isFinite ? total : nil
    }

    /// A plain non-negative decimal: digits with an optional fraction. No exponents, no
    /// `nan`, no `inf`, which `Double(_:)` would accept.
    private static func decimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.first != ".", text.last != "." else { return nil }
        var dots = 0
        for c in text {
            if c == "." { dots += 1 } else if !c.isASCIIDigit { return nil }
        }
        guard dots <= 1, let value = Double(text), value.isFinite else { return nil }
        return value
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}

extension TimeSpec {
    /// A length of time as an option takes it (`--duration`, `--longer`): 90, 90s, 1:30, 5m.
    /// `allowingZero` for a margin or a pre-roll, which may be none.
    package static func length(_ text: String, option: String, allowingZero: Bool = false) throws -> Double {
        guard case .absolute(let seconds) = try? parse(text), seconds > 0 || (allowingZero && seconds == 0) else {
            let least = allowingZero ? "zero or more" : "greater than zero"
            throw RecError.usage(
                typed(text, option: option), "must be a length of time \(least), such as 90, 90s or 1:30")
        }
        return seconds
    }
}

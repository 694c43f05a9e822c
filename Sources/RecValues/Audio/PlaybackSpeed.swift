import RecSystem

/// How fast a recording plays or is exported, as a multiple of its own tempo (the pitch is
/// kept). Positions stay in the recording's own time whatever the speed.
package struct PlaybackSpeed: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// 0.25× to 4×: beyond that speech is no longer followed, and a stretcher's quality drops.
    package static let range: ClosedRange<Double> = 0.25...4
    /// What a key or `speed +0.25` adds or takes away.
    package static let step = 0.25
    package static let normal = PlaybackSpeed(unchecked: 1)

    package let factor: Double

    private init(unchecked factor: Double) { self.factor = factor }

    /// A factor inside `range`; nil outside it.
    package init?(factor: Double) {
        guard factor.isFinite, Self.range.contains(factor) else { return nil }
        self.factor = factor
    }

    /// `1.5`, `1.5x` (or `×`) and `150%`; `option` names the argument in the message. Out
    /// of range or malformed: a usage error that gives the range.
    package static func parse(_ text: String, option: String = "--speed") throws(RecError) -> PlaybackSpeed {
        var word = Substring(text.trimmingASCIISpaces)
        var scale = 1.0
        if word.hasSuffix("%") {
            word = word.dropLast()
            scale = 0.01
        } else if word.hasSuffix("x") || word.hasSuffix("X") || word.hasSuffix("×") {
            word = word.dropLast()
        }
        guard isPlainNumber(word), let number = Double(word) else {
            throw .usage(option, "'\(text)' is not a speed; give a factor from 0.25 to 4 (1.5, 1.5x or 150%)")
        }
        guard let speed = PlaybackSpeed(factor: number * scale) else {
            throw .usage(option, "\(text) is out of range; the speed goes from 0.25 to 4 (25% to 400%)")
        }
        return speed
    }

    /// The size of a change, `0.25` of `+0.25` (`text`, for the message): a plain number,
    /// more than 0 and at most the width of `range`.
    package static func parseChange(_ number: String, text: String, option: String = "speed") throws(RecError)
        -> Double
    {
        guard isPlainNumber(Substring(number)), let value = Double(number), value > 0,
            value <= range.upperBound - range.lowerBound
        else {
            throw .usage(
                option, "'\(text)' is not a speed change; give +0.25 or -0.25 (the speed goes from 0.25 to 4)")
        }
        return value
    }

    /// Digits and one point only: Double() would also take "inf", "nan", "0x1p2", "1e1".
    private static func isPlainNumber(_ word: Substring) -> Bool {
        !word.isEmpty && word.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
            && word.filter { $0 == "." }.count <= 1 && word != "."
    }

    /// The speed `delta` away (`speed +0.25`, a key's step), held inside `range`.
    package func changed(by delta: Double) -> PlaybackSpeed {
        PlaybackSpeed(unchecked: min(max(factor + delta, Self.range.lowerBound), Self.range.upperBound))
    }

    package var isNormal: Bool { factor == 1 }

    /// `1.5×`, `0.75×`, `2×`: as the progress line shows it.
    package var description: String {
        var text = String(factor)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text + "×"
    }
}

extension String {
    fileprivate var trimmingASCIISpaces: Substring {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}

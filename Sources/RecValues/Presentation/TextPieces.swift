/// Cutting text as transcripts and engines' output need it.
extension StringProtocol {
    package func trimmingBlanks() -> Substring {
        let s = self[...]
        guard let first = s.firstIndex(where: { !$0.isWhitespace }), let last = s.lastIndex(where: { !$0.isWhitespace })
        else {
            return Substring()
        }
        return Substring(s[first...last])
    }

    package func pieces(separatedBy separator: String) -> [Substring] {
        var parts: [Substring] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            parts.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        parts.append(rest)
        return parts
    }
}

extension String {
    /// Without the whitespace around it (any Unicode whitespace).
    package var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}

/// Every failure recnotes reports. Each one renders as a single line,
/// `recnotes: <subject>: <reason>`, and maps to a documented exit code.
package struct RecError: Error, Equatable, CustomStringConvertible, Sendable {
    package enum Kind: Sendable, Equatable {
        /// The operation was well-formed but could not be done (not found, exists, not empty,
        /// corrupt store, device or I/O failure). Exit status 1.
        case failure
        /// The arguments themselves are malformed (bad name, bad time). Exit status 64, the
        /// argument-parser and sysexits convention for usage errors.
        case usage
        /// Done in part, for want of something that may come back (a remote not reached):
        /// trying again later may do the rest. Exit status 75, sysexits' EX_TEMPFAIL.
        case tryAgain
    }

    package var kind: Kind
    /// What the message is about: a path, a file, an argument.
    package var subject: String
    package var reason: String

    package init(_ kind: Kind = .failure, _ subject: String, _ reason: String) {
        self.kind = kind
        self.subject = subject
        self.reason = reason
    }

    package static func usage(_ subject: String, _ reason: String) -> RecError {
        RecError(.usage, subject, reason)
    }

    package static func failure(_ subject: String, _ reason: String) -> RecError {
        RecError(.failure, subject, reason)
    }

    package var exitCode: Int32 {
        switch kind {
        case .failure: return ExitStatus.failure
        case .usage: return ExitStatus.usage
        case .tryAgain: return ExitStatus.tryAgain
        }
    }

    /// Always one line: control characters and line separators that came from the input
    /// (a path typed with a newline in it) are shown escaped, as `NameRules.quoted` does.
    package var description: String {
        let line = subject.isEmpty ? reason : "\(subject): \(reason)"
        guard line.unicodeScalars.contains(where: RecError.breaksLine) else { return line }
        var out = ""
        for scalar in line.unicodeScalars {
            if RecError.breaksLine(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func breaksLine(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

package enum ExitStatus {
    package static let success: Int32 = 0
    package static let failure: Int32 = 1
    package static let usage: Int32 = 64
    package static let tryAgain: Int32 = 75
}

/// A system call's errno, rendered the way the C library words it.
package func systemReason(_ code: Int32) -> String {
    Errno(code).description
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

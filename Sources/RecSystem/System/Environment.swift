#if canImport(Glibc)
    import Glibc
#endif

/// The process environment: the one place recnotes reads it.
package enum Environment {
    /// The variable's value, empty included; nil when it is not set.
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Where temporary files go: `$TMPDIR` when it is set and not empty, else /tmp.
    package static var temporaryDirectory: String {
        value("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// The variables among `names` that are set, with their values.
    package static func values(_ names: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for name in names {
            if let value = value(name) { result[name] = value }
        }
        return result
    }

    /// Sets `name` to `value` for this process and the programs it starts, unless it is set
    /// already (the user's value wins). Call before any other thread starts a program: the
    /// environment is read by posix_spawn without a lock.
    package static func setDefault(_ name: String, _ value: String) {
        setenv(name, value, 0)
    }
}

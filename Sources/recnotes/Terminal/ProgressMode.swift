import RecCore
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Where `record` and `play` report progress.
enum ProgressMode: String, CaseIterable {
    /// A live line on stderr (the default when stderr is a terminal).
    case tty
    /// NDJSON events on stdout.
    case json
    /// Nothing.
    case none

    static func resolved(_ mode: ProgressMode?) -> ProgressMode {
        mode ?? (Terminal.isTTY(STDERR_FILENO) ? .tty : .none)
    }
}

/// `--device`, else `$RECNOTES_DEVICE`, else ALSA's `default`.
func audioDevice(_ option: String?) -> String {
    if let option, !option.isEmpty { return option }
    if let env = Environment.value("RECNOTES_DEVICE"), !env.isEmpty { return env }
    return "default"
}

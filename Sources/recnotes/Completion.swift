import ArgumentParser
import RecCore

#if canImport(Glibc)
import Glibc
#endif

extension CompletionKind {
    /// Completes against the store's folders and recordings, not the filesystem.
    static var storePath: CompletionKind {
        .custom { words, index, prefix in
            var environment: [String: String] = [:]
            for key in ["RECNOTES_HOME", "XDG_DATA_HOME", "HOME"] {
                if let value = getenv(key) { environment[key] = String(cString: value) }
            }
            return PathCompletion.candidates(words: words, prefix: prefix, environment: environment)
        }
    }
}

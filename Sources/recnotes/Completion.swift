import ArgumentParser
import RecCore
import RecStore
import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

extension CompletionKind {
    /// Completes against the store's folders and recordings, not the filesystem.
    static var storePath: CompletionKind {
        .custom { words, index, prefix in
            PathCompletion.candidates(
                words: words, prefix: prefix,
                environment: Environment.values(StoreLocation.environmentNames))
        }
    }
}

import RecAudio
import RecStore
import RecSystem

/// Errors name what the user knows. The engine and the file system report the file they
/// failed on, and inside a store that is a name the user never chose: an audio file called
/// by its recording's UUID (`audio/3f2a….opus`), or a temporary file of a write in progress
/// (`audio/.import-5691-….stdin`). Sessions pass what they throw through here, so that the
/// line says which recording, which input or the store, and why.
extension Library {
    /// `error`, with a file of this store in its subject replaced: a recording's audio or
    /// transcript by the recording's path (its reason then says "its audio: …"); a hidden
    /// temporary file, or audio that no recording has yet (being written), by
    /// `temporaryOwner` (an import's input as given, `stdin` for `-`) or else the store
    /// directory. Errors about anything else come back as they are.
    package func inUserTerms(_ error: Error, temporaryOwner: String? = nil) -> Error {
        guard let (path, reason, kind) = Self.pathAndReason(of: error), path.hasPrefix(location.directory + "/")
        else { return error }
        let name = FileSystem.baseName(of: path)
        let folder = FileSystem.parentDirectory(of: path)
        let id = name.split(separator: ".").first.flatMap { ItemID(String($0)) }
        let what = folder == location.transcriptsDirectory ? "its transcript" : "its audio"
        if let id, !name.hasPrefix("."), folder == location.audioDirectory || folder == location.transcriptsDirectory {
            if document[id] != nil { return RecError(kind, document.path(of: id), "\(what): \(reason)") }
            if let trashed = document.trashEntry(id) {
                return RecError(kind, "\(trashed.path) (in the trash)", "\(what): \(reason)")
            }
        }
        // A temporary file, or audio of no recording yet: what this session was writing.
        guard name.hasPrefix(".") || folder == location.audioDirectory else { return error }
        guard let owner = temporaryOwner else { return RecError(kind, location.directory, reason) }
        return RecError(kind, owner, reason == "interrupted" ? reason : "cannot copy into the store: \(reason)")
    }

    /// The file an error is about, and the rest of what it says.
    static func pathAndReason(of error: Error) -> (path: String, reason: String, kind: RecError.Kind)? {
        switch error {
        case let error as RecError:
            return (error.subject, error.reason, error.kind)
        case let error as AudioError:
            guard case .file(let path) = error.subject else { return nil }
            return (path, "\(error.operation): \(error.reason)", .failure)
        default:
            return nil
        }
    }
}

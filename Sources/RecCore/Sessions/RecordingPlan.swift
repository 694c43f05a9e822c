import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Where a recording will go, and every refusal made before anything is opened or written:
/// PATH resolved (a folder, a name in the current folder, or `Folder/name`), the name checked
/// and free, no other recording running, no interrupted one waiting to be saved. Making it
/// changes no file; `RecordingSession` starts it.
package struct RecordingPlan {
    package let library: Library
    package let format: AudioFormat
    package let rate: Int
    package let channels: Int
    /// The deepest existing folder on the way: the recording's folder, unless `foldersToMake`.
    package let parent: ItemID
    /// `record -p`: the folders in PATH that are not there yet, made below `parent` once the
    /// device is open.
    package let foldersToMake: [String]
    /// The name it gets unless another is chosen, and whether the user gave it in PATH.
    package let name: String
    package let nameGiven: Bool

    package init(
        library: Library, path: String?, format: AudioFormat, rate: Int, channels: Int,
        createParents: Bool = false, started: Timestamp = .now()
    ) throws {
        self.library = library
        self.format = format
        self.rate = rate
        self.channels = channels
        // One line, as every change to a read-only store is refused, before a device opens.
        if library.isReadOnly { throw library.documents.readOnlyError }
        try format.validate(rate: rate, channels: channels)
        let resolver = library.resolver
        var parentItem = library.document[library.state.currentFolder] ?? library.document.root
        var name = Format.defaultRecordingName(started)
        var given = false
        var foldersToMake: [String] = []
        if let path {
            switch try resolver.walk(path) {
            case .existing(let item) where item.isFolder:
                parentItem = item
            case .existing:
                throw RecError.failure(path, "already exists")
            case .missing(let parent, let missing, let endsInSlash):
                var names = missing
                if !endsInSlash {
                    name = names.removeLast()
                    given = true
                }
                if !names.isEmpty && !createParents {
                    throw endsInSlash && names.count == 1
                        ? RecError.failure(path, "no such folder (use -p to create it)")
                        : resolver.missing(path, parent: parent, names: missing, hint: "use -p to create it")
                }
                parentItem = parent
                foldersToMake = names
            }
        }
        try NameRules.validate(name)
        if foldersToMake.isEmpty, let existing = library.document.child(named: name, in: parentItem.id) {
            throw RecError.failure(library.document.path(of: existing.id), "already exists")
        }
        try library.viewState.state.refuseAnotherRecording()
        try Self.refuseWhileRecoveryWaits(library)
        parent = parentItem.id
        self.foldersToMake = foldersToMake
        self.name = name
        nameGiven = given
    }

    /// A dead recorder's audio that could not be saved yet (see `RecoveryWaits`) keeps its
    /// in-progress entry; a new recording would replace it, so none starts until it is saved.
    private static func refuseWhileRecoveryWaits(_ library: Library) throws {
        guard let waiting = library.viewState.state.recording, waiting.output == nil, waiting.pid != getpid(),
            !processIsAlive(waiting.pid)
        else { return }
        throw RecError.failure(
            "record",
            "the interrupted recording \"\(waiting.name)\" is not saved in the store yet, and must be first: free some space"
        )
    }

}

import ArgumentParser
import RecCore
import RecStore
import RecSync
import RecSystem
import RecValues

/// The recordings' audio files under PATHs (a folder means everything under it), each
/// with its path, in the order given, once each: what `get` fetches and `drop` frees.
func audioFiles(_ library: Library, _ paths: [String]) throws -> [(file: String, path: String)] {
    var seen = Set<String>()
    var result: [(file: String, path: String)] = []
    for path in paths {
        let top = try library.item(at: path)
        for item in library.document.subtree(of: top.id) {
            guard let file = item.recording?.file, seen.insert(file).inserted else { continue }
            result.append((file, library.document.path(of: item.id)))
        }
    }
    return result
}

struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Bring recordings' audio here from the machines or remotes that hold it.",
        discussion: """
            For a store that syncs ('recnotes sync init'): git-annex fetches the audio from \
            wherever it can reach a copy, and sync brings it again after a 'recnotes drop'. A \
            folder means every recording under it. Audio already here is left as it is. On a terminal, a line on standard error shows the \
            files and bytes brought so far, as sync's does.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Recordings or folders.", completion: .storePath)
    var paths: [String]

    func run() throws {
        let library = try global.openLibrary()
        _ = try SyncRemotes.requireSetUp(library.location, command: "get")
        let files = try audioFiles(library, paths)
        let missing = files.filter { library.location.audioIsElsewhere($0.file) }
        let live = TransferLine.observer()
        let moved: Annex.Moved
        do {
            defer { live.line?.clear() }
            moved = try Annex.get(library.location, files: files.map(\.file), observer: live.observer)
        }
        if !Output.quiet {
            print(
                "get: \(Format.count(moved.count, "recording")) brought here (\(Format.size(moved.bytes))), \(files.count - missing.count) here already"
            )
        }
        if let first = moved.failed.first, let path = missing.first(where: { $0.file == first })?.path {
            // git-annex's why (a full disk) when it said one; else where the audio is.
            if let reason = moved.reasons.first { throw RecError.failure("get", "\(path): \(reason)") }
            throw Annex.notHere(library.location, file: first, path: path)
        }
    }
}

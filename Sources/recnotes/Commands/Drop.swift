import ArgumentParser
import RecCore
import RecSync
import RecSystem
import RecValues

struct Drop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Free the space recordings' audio takes here, keeping the copies elsewhere.",
        discussion: """
            For a store that syncs: the audio stays on the other machines and remotes, and \
            stays away from this machine at the next syncs too, until 'recnotes get' brings it \
            back. A recording whose audio has no other known copy (not synced yet) is kept \
            here and named, and the exit status is 1: sync it first. A folder means every \
            recording under it; the others under it are dropped.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Recordings or folders.", completion: .storePath)
    var paths: [String]

    func run() throws {
        let library = try global.openLibrary()
        _ = try SyncRemotes.requireSetUp(library.location, command: "drop")
        let files = try audioFiles(library, paths)
        var byFile: [String: String] = [:]
        for entry in files { byFile[entry.file] = entry.path }
        let away = files.filter { !FileSystem.exists(library.location.audioPath($0.file)) }.count
        let moved = try Annex.drop(library.location, files: files.map(\.file))
        // A refusal of everything asked for is the error alone.
        if !Output.quiet, moved.count > 0 || moved.onlyHere.isEmpty || !moved.failed.isEmpty {
            print(
                "drop: \(Format.count(moved.count, "recording")) dropped here (\(Format.size(moved.bytes)) freed), \(away) not here already"
            )
        }
        if !moved.onlyHere.isEmpty {
            let named = moved.onlyHere.map { byFile[$0] ?? $0 }
            let shown =
                named.prefix(3).joined(separator: ", ") + (named.count > 3 ? " and \(named.count - 3) more" : "")
            throw RecError.failure(
                "drop",
                "\(shown): no other copy is known (copies: here); kept here: sync \(named.count == 1 ? "it" : "them") first"
            )
        }
        if let first = moved.failed.first {
            throw RecError.failure(
                "drop", "\(byFile[first] ?? first): git-annex could not verify another copy; kept here")
        }
    }
}

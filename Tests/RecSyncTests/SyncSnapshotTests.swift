import RecStore
import RecSystem
import RecTestSupport
import Testing

@testable import RecSync

/// sync holds the store lock only while it takes a snapshot of what changed into git
/// (`SyncRun.snapshot`) and builds the commit after letting it go (`SyncRun.commit`). A
/// command that changes the store in between is not lost: the commit holds the snapshot, git
/// sees the newer file as changed, and the next snapshot commits it.
@Test func aChangeAfterTheSnapshotIsCommittedByTheNextSync() throws {
    let dir = try TemporaryDirectory()
    let git = Git(directory: dir.path)
    let location = StoreLocation(directory: dir.path)
    try git.require(["init", "-q"], what: "test")
    try git.require(["config", "user.name", "test"], what: "test")
    try git.require(["config", "user.email", "test@localhost"], what: "test")
    try FileSystem.makeDirectories(dir.path + "/.git/recnotes")
    func write(_ text: String) throws {
        // As every command writes store.json: a new file renamed over the old one.
        try FileSystem.writeAtomically(Array(text.utf8), to: dir.path + "/store.json", durable: false)
    }
    func committed() throws -> String { try git.require(["show", "HEAD:store.json"], what: "test").output }
    func status() throws -> String { try git.require(["status", "--porcelain"], what: "test").output }

    try write("{\"a\": 1}\n")
    #expect(try SyncRun.commit(SyncRun.snapshot(git), git, location: location))
    #expect(try committed() == "{\"a\": 1}\n")
    #expect(try status() == "")
    // Nothing changed: no commit.
    #expect(try !SyncRun.commit(SyncRun.snapshot(git), git, location: location))

    // Changed, snapshot taken; changed again (the same size) before the commit is built.
    try write("{\"b\": 2}\n")
    let staged = try SyncRun.snapshot(git)
    try write("{\"c\": 3}\n")
    #expect(try SyncRun.commit(staged, git, location: location))
    #expect(try committed() == "{\"b\": 2}\n")
    #expect(try status() == " M store.json\n")
    #expect(try FileSystem.read(dir.path + "/store.json") == Array("{\"c\": 3}\n".utf8))

    // The next sync's snapshot takes it.
    #expect(try SyncRun.commit(SyncRun.snapshot(git), git, location: location))
    #expect(try committed() == "{\"c\": 3}\n")
    #expect(try status() == "")
    let count = try git.require(["rev-list", "--count", "HEAD"], what: "test").output
    #expect(count == "3\n")
}

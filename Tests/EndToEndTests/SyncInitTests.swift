import Foundation
import Testing

/// `sync init` over real git and git-annex (scripts/install-deps.sh installs them).
@Suite("Sync: init")
struct SyncInitTests {
    func git(_ directory: String, _ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", directory] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("init makes the store a git and git-annex repository, says what it did, and is idempotent")
    func initIsIdempotent() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed("mkdir", "/Work")
        let first = try sandbox.succeed("sync", "init", "--name", "laptop").lines
        #expect(first.contains("sync init: made \(sandbox.store) a git repository"), "\(first)")
        #expect(first.contains("sync init: this machine is 'laptop'"), "\(first)")
        #expect(first.contains { $0.contains("git-annex initialised") }, "\(first)")
        #expect(try git(sandbox.store, "config", "recnotes.machine") == "laptop")
        #expect(!(try git(sandbox.store, "config", "annex.uuid")).isEmpty)
        #expect(try git(sandbox.store, "config", "merge.recnotes.driver").hasSuffix(" sync merge-driver %O %A %B %P"))
        // Audio goes to git-annex, the documents to git; what is per machine never travels.
        #expect(try git(sandbox.store, "check-attr", "annex.largefiles", "audio/x.flac").hasSuffix(": anything"))
        #expect(try git(sandbox.store, "check-attr", "annex.largefiles", "store.json").hasSuffix(": nothing"))
        #expect(try git(sandbox.store, "check-attr", "merge", "store.json").hasSuffix(": recnotes"))
        for path in ["viewstate.json", "cache/find-items", "store.lock", "journal.jsonl", "undo/x.json"] {
            #expect(try git(sandbox.store, "check-ignore", path) == path, "\(path)")
        }
        #expect(try git(sandbox.store, "check-ignore", "store.json").isEmpty)

        #expect(try sandbox.succeed("sync", "init").lines == ["sync init: already set up"])
        #expect(try sandbox.succeed("sync", "init", "--name", "desk").lines == ["sync init: this machine is 'desk'"])
        #expect(try git(sandbox.store, "config", "recnotes.machine") == "desk")
    }
}

import Foundation
import Testing

/// A store written by an earlier release opens and upgrades with no command from the user.
/// Tests/Fixtures/store-v<N> are stores written by release N's binary, audio included.
@Suite("Store upgrades")
struct StoreUpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures").path

    /// A sandbox whose store is a copy of the fixture.
    static func sandbox(from fixture: String) throws -> Sandbox {
        let sandbox = try Sandbox()
        try FileManager.default.copyItem(atPath: fixtures + "/" + fixture, toPath: sandbox.store)
        return sandbox
    }

    @Test("a version-1 store reads and works unchanged until its first change")
    func version1Reads() throws {
        let sandbox = try Self.sandbox(from: "store-v1")
        let original = try #require(sandbox.storeBytes)
        #expect(String(decoding: original, as: UTF8.self).contains("\"version\": 1"))
        let tree = try sandbox.run("tree", "/")
        expectSuccess(tree)
        #expect(tree.stdout.contains("monday") && tree.stdout.contains("café idea"), "\(tree.stdout)")
        expectSuccess(try sandbox.run("ls", "-l", "/Work/Standups"))
        expectSuccess(try sandbox.run("info", "/Ideas/café idea"))
        expectSuccess(try sandbox.run("trash"))
        expectSuccess(try sandbox.run("pwd"))
        let export = try sandbox.run("export", "/Work/Standups/monday", sandbox.root + "/monday.wav")
        expectSuccess(export)
        #expect((try? FileManager.default.attributesOfItem(atPath: sandbox.root + "/monday.wav")[.size] as? Int) ?? 0 > 30000)
        #expect(sandbox.storeBytes == original, "reading must not rewrite a version-1 store")
        #expect(!FileManager.default.fileExists(atPath: sandbox.storeFile + ".v1"))
        let check = try sandbox.run("fsck")
        #expect(check.status == 0, "\(check)")
    }

    @Test("the first change writes version 2 and keeps the original once as store.json.v1")
    func version1Upgrades() throws {
        let sandbox = try Self.sandbox(from: "store-v1")
        let original = try #require(sandbox.storeBytes)
        let before = try sandbox.run("find", "/", "--json")
        expectSuccess(try sandbox.run("mkdir", "/New"))
        let upgraded = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
        #expect(upgraded.contains("\"version\": 2"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v1") == original)
        // Every item is still there, as it was.
        let after = try sandbox.run("find", "/", "--json")
        for line in before.stdout.split(separator: "\n") where line.contains("\"uuid\"") {
            #expect(after.stdout.contains(line), "lost or changed: \(line)")
        }
        // Undo and trash restore still work across the upgrade.
        expectSuccess(try sandbox.run("undo"))
        expectSuccess(try sandbox.run("trash", "restore", "/Old"))
        // A second change leaves the kept original alone.
        expectSuccess(try sandbox.run("mkdir", "/Newer"))
        #expect(sandbox.bytes(sandbox.storeFile + ".v1") == original)
        #expect(try sandbox.run("fsck").status == 0)
    }

    @Test("a store newer than this recnotes is refused with one line and never written")
    func newerRefused() throws {
        let sandbox = try Self.sandbox(from: "store-v1")
        let text = String(decoding: try #require(sandbox.storeBytes), as: UTF8.self)
            .replacingOccurrences(of: "\"version\": 1", with: "\"version\": 99")
        try sandbox.write(sandbox.storeFile, Array(text.utf8))
        for arguments in [["ls"], ["mkdir", "/X"], ["fsck", "--repair"]] {
            let run = try sandbox.run(arguments)
            #expect(run.status == 1, "\(arguments): \(run)")
            #expect(run.stderr.contains("version 99 is newer than this recnotes understands"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
        #expect(sandbox.storeBytes == Array(text.utf8))
    }
}

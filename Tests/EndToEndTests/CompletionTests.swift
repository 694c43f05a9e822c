import Foundation
import RecCore
import Testing

/// Completion where a new user reaches for Tab first: play, record and trash restore
/// complete store paths; import completes file names.
@Suite("Completion of play, record, trash restore and import")
struct CompletionTests {
    @Test func storePathsAndFiles() throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "Ideas/sub", "Work"))
        try sandbox.addWAVRecording("standup", in: "/Ideas", frames: 800)
        try Data().write(to: URL(fileURLWithPath: sandbox.root + "/talk.wav"))
        let completion = try BashCompletion(sandbox)
        func complete(_ words: [String]) throws -> [String] { try completion.complete(words) }
        #expect(try complete(["recnotes", "play", "--store", sandbox.store, "Ideas/st"]) == ["Ideas/standup"])
        #expect(try complete(["recnotes", "record", "--store", sandbox.store, "W"]) == ["Work/"])
        #expect(
            try complete(["recnotes", "trash", "restore", "--store", sandbox.store, "Ideas/s"]).contains("Ideas/sub/"))
        #expect(
            try complete(["recnotes", "import", "--store", sandbox.store, sandbox.root + "/ta"]) == [
                sandbox.root + "/talk.wav"
            ])
    }
}

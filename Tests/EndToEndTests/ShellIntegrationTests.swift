import Foundation
import Testing

@Suite("Completions and man page")
struct ShellIntegrationTests {
    @Test("completion scripts are generated for bash, zsh and fish", arguments: ["bash", "zsh", "fish"])
    func scripts(shell: String) throws {
        let sandbox = try Sandbox()
        let run = try sandbox.run(["--generate-completion-script", shell], store: false)
        #expect(run.status == 0)
        #expect(run.stdout.contains("recnotes"))
        // Path arguments call back into recnotes for store paths, not the filesystem.
        #expect(run.stdout.contains("---completion"))
    }

    /// `play X` is parsed with play as the root, which skips argument-parser's look for a
    /// completion-script request (`Recnotes.leafParent`); the request still gets the whole
    /// tree's script, as before, and play's help still names `recnotes play`.
    @Test("a completion-script request after a command's name gives the whole tree's script")
    func scriptAfterACommand() throws {
        let sandbox = try Sandbox()
        let whole = try sandbox.run(["--generate-completion-script", "bash"], store: false)
        expectSuccess(whole)
        for arguments in [
            ["play", "--generate-completion-script", "bash"], ["play", "memo", "--generate-completion-script=bash"],
            ["play", "--seek", "--generate-completion-script", "bash"],
        ] {
            let run = try sandbox.run(arguments, store: false)
            #expect(run.status == 0, "\(arguments)")
            #expect(run.stdout == whole.stdout, "\(arguments)")
        }
        let help = try sandbox.run(["play", "--help"], store: false)
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: recnotes play "))
    }

    @Test("the bash script completes a store path, names with spaces included")
    func bashCompletesStorePaths() throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "Ideas/sub", "Ideas/stand up", "Work"))
        let completion = try BashCompletion(sandbox)
        func complete(_ words: [String]) throws -> [String] { try completion.complete(words) }
        #expect(
            try complete(["recnotes", "ls", "--store", sandbox.store, "Ideas/s"]) == ["Ideas/stand up/", "Ideas/sub/"])
        #expect(try complete(["recnotes", "rm", "--store", sandbox.store, "W"]) == ["Work/"])
        #expect(try complete(["recnotes", "cd", "--store", sandbox.store, "Nope/"]) == [])
        // Completion only reads: it never creates a store.
        #expect(try complete(["recnotes", "ls", "--store", sandbox.root + "/nowhere", ""]) == [])
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/nowhere"))
    }
}

@Suite("Trash, undo, history and fsck through the CLI")
struct ReliabilityCommandTests {
    @Test("rm moves to the trash; trash restore and undo bring items back; history lists changes")
    func trashAndUndo() throws {
        let sandbox = try Sandbox()
        expectSuccess(try sandbox.run("mkdir", "-p", "Work/Ideas"))
        let id = try sandbox.addWAVRecording("memo", in: "/Work/Ideas", frames: 800)
        let audio = sandbox.audioDirectory + "/\(id).wav"
        expectSuccess(try sandbox.run("rm", "-r", "Work"))
        #expect(FileManager.default.fileExists(atPath: audio))
        let trash = try #require(try sandbox.run("trash", "ls", "--json").json() as? [[String: Any]])
        #expect(trash.count == 1)
        #expect(trash.first?["path"] as? String == "/Work")
        #expect(trash.first?["items"] as? Int == 3)

        expectSuccess(try sandbox.run("trash", "restore", "/Work"))
        #expect(try sandbox.item(at: "/Work/Ideas/memo") != nil)
        expectSuccess(try sandbox.run("mv", "Work", "Job"))
        let history = try #require(try sandbox.run("history", "--json").json() as? [[String: Any]])
        // (The fixture's recording was added through RecCore directly, with no command line.)
        #expect(
            history.map { $0["summary"] as? String }.filter { $0 != "" } == [
                "recnotes mv Work Job", "recnotes trash restore /Work", "recnotes rm -r Work",
                "recnotes mkdir -p Work/Ideas",
            ])

        expectSuccess(try sandbox.run("undo"))
        #expect(try sandbox.item(at: "/Work/Ideas/memo") != nil)
        expectSuccess(try sandbox.run("undo"))
        #expect(try sandbox.item(at: "/Work") == nil)
        expectSuccess(try sandbox.run("undo"))
        #expect(try sandbox.item(at: "/Work/Ideas/memo") != nil)
        #expect(FileManager.default.fileExists(atPath: audio))

        expectSuccess(try sandbox.run("rm", "--permanent", "/Work/Ideas/memo"))
        #expect(!FileManager.default.fileExists(atPath: audio))
        let before = sandbox.bytes(sandbox.storeFile)
        expectFailure(
            try sandbox.run("undo"), status: 1,
            message:
                "recnotes: undo: cannot undo 'recnotes rm --permanent /Work/Ideas/memo': /Work/Ideas/memo was removed permanently"
        )
        #expect(sandbox.bytes(sandbox.storeFile) == before)
    }

    @Test("trash restore into a taken place needs --to, and empty deletes the audio")
    func restoreConflictAndEmpty() throws {
        let sandbox = try Sandbox()
        let id = try sandbox.addWAVRecording("memo", in: "/", frames: 800)
        expectSuccess(try sandbox.run("rm", "memo"))
        expectSuccess(try sandbox.run("mkdir", "memo", "Elsewhere"))
        let before = sandbox.bytes(sandbox.storeFile)
        expectFailure(
            try sandbox.run("trash", "restore", "/memo"), status: 1,
            message: "recnotes: /memo: already exists; restore it with --to FOLDER or --name NAME")
        #expect(sandbox.bytes(sandbox.storeFile) == before)
        expectSuccess(try sandbox.run("trash", "restore", "/memo", "--to", "Elsewhere"))
        #expect(try sandbox.item(at: "/Elsewhere/memo") != nil)
        expectSuccess(try sandbox.run("rm", "Elsewhere/memo"))
        expectSuccess(try sandbox.run("trash", "empty", "--yes"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.audioDirectory + "/\(id).wav"))
        expectFailure(
            try sandbox.run("trash", "restore", "/Elsewhere/memo"), status: 1,
            message: "recnotes: /Elsewhere/memo: not in the trash")
    }

    @Test("fsck reports problems one per line with exit 1, repairs what is safe, then is clean")
    func fsck() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.addWAVRecording("memo", in: "/", frames: 800)
        expectSuccess(try sandbox.run("fsck"))
        let orphan = sandbox.audioDirectory + "/stray.wav"
        try FileManager.default.copyItem(
            atPath: try FileManager.default.contentsOfDirectory(atPath: sandbox.audioDirectory)
                .map { sandbox.audioDirectory + "/" + $0 }.first!, toPath: orphan)
        let check = try sandbox.run("fsck")
        #expect(check.status == 1)
        #expect(check.lines == ["audio/stray.wav: belongs to no recording"])
        let repair = try sandbox.run("fsck", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.lines.contains("repaired: adopted audio/stray.wav as /Recovered/stray"))
        #expect(FileManager.default.fileExists(atPath: orphan))
        expectSuccess(try sandbox.run("fsck"))
        let json = try #require(try sandbox.run("fsck", "--json").json() as? [String: Any])
        #expect(json["clean"] as? Bool == true)
    }
}

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
        let script = try sandbox.run(["--generate-completion-script", "bash"], store: false).stdout
        let scriptPath = sandbox.root + "/recnotes.bash"
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        try Data().write(to: URL(fileURLWithPath: sandbox.root + "/talk.wav"))
        let binDir = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path

        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let line = words.joined(separator: " ")
            let program = """
            source '\(scriptPath)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            _recnotes recnotes '\(words.last!)' '\(words[words.count - 2])'
            for word in "${COMPREPLY[@]}"; do printf '%s\\n' "$word"; done
            """
            var env = sandbox.baseEnvironment
            env["PATH"] = binDir + ":" + (env["PATH"] ?? "")
            let run = try Sandbox.execute("/bin/bash", ["-c", program], environment: env)
            #expect(run.status == 0, "\(run)")
            return run.lines
        }
        #expect(try complete(["recnotes", "play", "--store", sandbox.store, "Ideas/st"]) == ["Ideas/standup"])
        #expect(try complete(["recnotes", "record", "--store", sandbox.store, "W"]) == ["Work/"])
        #expect(try complete(["recnotes", "trash", "restore", "--store", sandbox.store, "Ideas/s"]).contains("Ideas/sub/"))
        #expect(try complete(["recnotes", "import", "--store", sandbox.store, sandbox.root + "/ta"]) == [sandbox.root + "/talk.wav"])
    }
}

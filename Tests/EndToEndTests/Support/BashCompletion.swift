import Foundation
import Testing

/// recnotes' generated bash completion, sourced into a real bash and asked what Tab offers
/// after `words` (the last one being completed).
struct BashCompletion {
    let sandbox: Sandbox
    let scriptPath: String

    init(_ sandbox: Sandbox) throws {
        self.sandbox = sandbox
        scriptPath = sandbox.root + "/recnotes.bash"
        let script = try sandbox.run(["--generate-completion-script", "bash"], store: false).stdout
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
    }

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
        let binDir = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        env["PATH"] = binDir + ":" + (env["PATH"] ?? "")
        let run = try Sandbox.execute("/bin/bash", ["-c", program], environment: env)
        #expect(run.status == 0, "\(run)")
        return run.lines
    }
}

import Foundation
import Testing

/// `make demo` prints the commands it runs; copied into a shell, they must run as shown.
@Suite("The demo script")
struct DemoScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/demo.sh").path

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/jq")))
    func printedCommandsAreShellQuoted() throws {
        var env = ProcessInfo.processInfo.environment
        env["RECNOTES_HOME"] = nil
        let run = try Sandbox.execute("/bin/bash", [Self.script, Sandbox.binary], environment: env)
        #expect(run.status == 0, "\(run.stderr)")
        let shown = run.stdout.replacingOccurrences(of: "\u{1B}[1m", with: "").replacingOccurrences(
            of: "\u{1B}[0m", with: "")
        #expect(shown.contains("$ recnotes mkdir 'Project X'\n"), "\(shown)")
        #expect(shown.contains("$ recnotes mv 'Project X' '/Ideas/Project Y'\n"))
        #expect(shown.contains("$ recnotes mkdir ' leading space'\n"))
        // Every shown command parses back into the words that ran.
        for line in shown.split(separator: "\n") where line.hasPrefix("$ recnotes ") && !line.contains("|") {
            let words = try Sandbox.execute(
                "/bin/bash", ["-c", "for w in \(line.dropFirst(11)); do printf '%s\\n' \"$w\"; done"], environment: env)
            #expect(words.status == 0, "\(line)")
            #expect(!words.stdout.contains("'"), "\(line) → \(words.stdout)")
        }
    }
}

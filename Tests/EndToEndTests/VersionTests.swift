import Foundation
import Testing

/// The version has one source, git (scripts/version.sh), and the binary says what it says.
@Suite("Version from git")
struct VersionTests {
    /// The repository this test was built from.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static func sh(_ script: String, in directory: String) throws -> String {
        let run = try Sandbox.execute(
            "/bin/sh", ["-c", "cd '\(directory)' && \(script)"], environment: ProcessInfo.processInfo.environment)
        #expect(run.status == 0, "\(script): \(run)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("recnotes --version says what scripts/version.sh says")
    func binaryAgrees() throws {
        let expected = try Self.sh("scripts/version.sh", in: Self.repository)
        let sandbox = try Sandbox()
        let run = try sandbox.run(["--version"], store: false)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("recnotes \(expected) ("), "\(run.stdout) vs \(expected)")
    }

    @Test("a tag vX.Y.Z sets the version; later commits and untagged history are marked")
    func tags() throws {
        let sandbox = try Sandbox()
        let clone = sandbox.root + "/clone"
        let git = "git -c user.name=t -c user.email=t@example.invalid"
        _ = try Self.sh(
            "git init -q '\(clone)' && mkdir '\(clone)/scripts' && cp '\(Self.repository)/scripts/version.sh' '\(clone)/scripts/'"
                + " && cd '\(clone)' && \(git) add . && \(git) commit -qm one", in: sandbox.root)
        let short = try Self.sh("git rev-parse --short=7 HEAD", in: clone)
        #expect(try Self.sh("scripts/version.sh", in: clone) == "0.0.0-\(short)")
        _ = try Self.sh("\(git) tag v1.2.3", in: clone)
        #expect(try Self.sh("scripts/version.sh", in: clone) == "1.2.3")
        _ = try Self.sh("\(git) commit -q --allow-empty -m two", in: clone)
        let later = try Self.sh("git rev-parse --short=7 HEAD", in: clone)
        #expect(try Self.sh("scripts/version.sh", in: clone) == "1.2.3+1.g\(later)")
        // Not a release tag: ignored.
        _ = try Self.sh("\(git) tag nightly", in: clone)
        #expect(try Self.sh("scripts/version.sh", in: clone) == "1.2.3+1.g\(later)")
        // The Swift source the build plugin compiles carries the same string.
        _ = try Self.sh("scripts/version.sh --swift out.swift", in: clone)
        #expect(try String(contentsOfFile: clone + "/out.swift", encoding: .utf8).contains("\"1.2.3+1.g\(later)\""))
    }
}

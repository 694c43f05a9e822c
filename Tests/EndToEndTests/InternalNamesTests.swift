import Foundation
import RecCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Errors name what the user knows: the input file (or stdin), the destination, the
/// recording by its path, the store. Never a file the store made for itself: an audio file
/// called by a UUID, or a temporary one (`audio/.import-5691-….stdin`, `.talk.flac.tmp-…`).
@Suite("Errors name no file of the store's own")
struct InternalNamesTests {
    let sandbox: Sandbox
    let source: String

    init() throws {
        sandbox = try Sandbox()
        source = sandbox.root + "/take.wav"
        try sandbox.write(source, wavBytes(frames: 96_000))
        try sandbox.succeed("mkdir", "/Ideas")
    }

    /// What is wrong with a failure's one line: the wrong subject, or a store's own file named.
    func problem(_ run: Run, subject: String, containing reason: String) -> String? {
        let lines = DiskFullTests.recnotesLines(run.stderr)
        guard run.status == 1, lines.count == 1, lines[0].hasPrefix("recnotes: \(subject): "),
            lines[0].contains(reason)
        else { return "expected one line 'recnotes: \(subject): …\(reason)…', status 1: \(run)" }
        for ownFile in ["/audio/", "audio/", ".import-", ".tmp-", "recnotes-export-"] where run.stderr.contains(ownFile)
        {
            return "names a file of the store's own (\(ownFile)): \(run.stderr)"
        }
        return nil
    }

    /// Runs in this sandbox under `ulimit -f blocks`, with `stdin` from a file when given.
    func limited(_ blocks: Int, _ arguments: [String], stdin: String? = nil) throws -> Run {
        var environment = sandbox.baseEnvironment
        environment["RECNOTES_HOME"] = sandbox.store
        return try DiskFullTests.limited(blocks, arguments, environment: environment, stdin: stdin)
    }

    @Test func anImportThatCannotBeWrittenNamesItsInput() throws {
        var notes: [String] = []
        // 100 KB: less than the 192 KB of audio, more than the store's files.
        for arguments in [["import", source, "--format", "wav"], ["import", source, "--keep"]] {
            if let problem = problem(try limited(200, arguments), subject: source, containing: "File too large") {
                notes.append("\(arguments): \(problem)")
            }
        }
        let piped = try limited(200, ["import", "-", "--format", "flac"], stdin: source)
        if let problem = problem(piped, subject: "stdin", containing: "File too large") {
            notes.append("import -: \(problem)")
        }
        #expect(try sandbox.run("ls", "/").stdout == "Ideas\n")
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))")
    }

    @Test func anExportThatCannotBeWrittenNamesItsDestination() throws {
        try sandbox.succeed("import", source, "--to", "/Ideas", "--name", "take")
        let destination = sandbox.root + "/out.flac"
        let run = try limited(20, ["export", "/Ideas/take", destination])
        #expect(problem(run, subject: destination, containing: "File too large") == nil, "\(run)")
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test func aRecordingWhoseAudioIsGoneIsNamedByItsPath() throws {
        try sandbox.succeed("import", source, "--to", "/Ideas", "--name", "take")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: sandbox.audioDirectory).first)
        try FileManager.default.removeItem(atPath: sandbox.audioDirectory + "/" + file)
        var notes: [String] = []
        for arguments in [["export", "/Ideas/take", "-"], ["play", "/Ideas/take"]] {
            if let problem = problem(try sandbox.run(arguments), subject: "/Ideas/take", containing: "its audio: ") {
                notes.append("\(arguments): \(problem)")
            }
        }
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))")
    }

    /// The issue's `…/audio/.import-5691-….stdin: interrupted`: Ctrl-C while stdin, already
    /// read whole, is being encoded.
    @Test func anImportInterruptedWhileEncodingStdinSaysStdin() throws {
        let cli = try AudioCLI()
        let long = cli.home + "/long.wav"
        try Data(wavBytes(frames: 48_000 * 600)).write(to: URL(fileURLWithPath: long))
        let (process, out, err) = cli.process(["import", "-", "--format", "opus", "--progress", "json"])
        process.standardInput = FileHandle(forReadingAtPath: long)
        try process.run()
        let errors = DrainedPipe(err)
        var collected = Data()
        var signalled = false
        while true {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            collected.append(chunk)
            if !signalled, String(decoding: collected, as: UTF8.self).contains("\"progress\"") {
                kill(process.processIdentifier, SIGINT)
                signalled = true
            }
        }
        process.waitUntilExit()
        let stderr = String(decoding: errors.wait(), as: UTF8.self)
        let run = Run(
            arguments: ["import", "-"], status: process.terminationStatus,
            stdout: String(decoding: collected, as: UTF8.self), stderr: stderr)
        #expect(signalled, "no progress event before the end: \(run)")
        #expect(problem(run, subject: "stdin", containing: "interrupted") == nil, "\(run)")
        let failed = run.lines.last { $0.contains("\"failed\"") } ?? ""
        #expect(!failed.contains(".import-") && !failed.contains("/audio/"), "\(failed)")
        #expect(cli.audioFiles().isEmpty, "\(cli.audioFiles())")
    }
}

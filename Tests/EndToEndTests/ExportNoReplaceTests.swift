import Foundation
import RecCore
import Testing

/// `export` never replaces a file without `--force`, as `mv` never replaces: one line, exit
/// 1, nothing written (the transcript beside the audio and `--markers` files too); stdout is
/// never refused.
@Suite("export and an existing file")
struct ExportNoReplaceTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        let take = sandbox.root + "/take.wav"
        try sandbox.write(take, wavBytes(frames: 4_800))
        try sandbox.succeed("import", take, "--name", "memo")
        try sandbox.succeed("mark", "/memo", "--at", "0:00.05", "start")
        let engine = sandbox.root + "/engine"
        try Data("#!/bin/sh\necho some words\n".utf8).write(to: URL(fileURLWithPath: engine))
        chmod(engine, 0o755)
        expectSuccess(try sandbox.run(["transcribe", "/memo"], environment: ["RECNOTES_TRANSCRIBER": engine]))
    }

    @Test func anExistingFileIsRefusedUnlessForced() throws {
        let out = sandbox.root + "/out.wav"
        let srt = sandbox.root + "/out.srt"
        let chapters = sandbox.root + "/chapters.cue"
        let mine = Array("mine, not a recording\n".utf8)
        for (arguments, file) in [
            (["export", "/memo", out], out), (["export", "/memo", out, "--format", "flac"], out),
            (
                ["export", "/memo", sandbox.root + "/other.wav", "--transcript"],
                srt.replacingOccurrences(of: "out", with: "other")
            ),
            (["export", "/memo", chapters, "--markers", "cue"], chapters),
        ] {
            try sandbox.write(file, mine)
            let refused = try sandbox.run(arguments)
            expectFailure(refused, status: 1, message: "recnotes: \(file): already exists; --force replaces it")
            #expect(sandbox.bytes(file) == mine, "\(arguments) replaced \(file)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/other.wav"), "\(arguments) wrote audio")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.root).filter {
                $0.contains(".tmp-")
            }
            #expect(leftovers.isEmpty, "\(leftovers)")

            expectSuccess(try sandbox.run(arguments + ["--force"]))
            #expect(sandbox.bytes(file) != mine, "\(arguments) --force did not replace \(file)")
            for written in [file, sandbox.root + "/other.wav"] { try? FileManager.default.removeItem(atPath: written) }
        }
        // stdout is not a file to protect.
        let streamed = try sandbox.run("export", "/memo", "-")
        #expect(streamed.status == 0 && streamed.stdout.hasPrefix("RIFF"), "\(streamed.stderr)")
    }
}

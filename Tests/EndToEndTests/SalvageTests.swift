import Foundation
import RecAudio
import RecCore
import Testing

/// A file cut short (a copy or a download that stopped) is refused by `import`, with one
/// line that offers `--salvage`; with it, what is readable comes in whole and a line says how
/// much. All or nothing still holds for the set of files.
@Suite("import --salvage")
struct SalvageTests {
    let sandbox: Sandbox
    /// 2 s of a ramp, then the file cut at 1.25 s plus one odd byte (half a sample).
    let whole: [UInt8]
    let truncated: String

    init() throws {
        sandbox = try Sandbox()
        whole = wavBytes(frames: 96_000)
        truncated = sandbox.root + "/cut.wav"
        try sandbox.write(truncated, Array(whole.prefix(44 + 60_000 * 2 + 1)))
    }

    func samples(_ path: String) throws -> [Int16] {
        let file = try SoundFile.open(path: path)
        var result = [Int16](repeating: 0, count: Int(file.frames))
        let n = try result.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, frames: $0.count) }
        return Array(result.prefix(n))
    }

    @Test func aTruncatedWAVIsRefusedWithTheOfferAndSalvagedWhenAsked() throws {
        let refused = try sandbox.run("import", truncated, "--format", "wav")
        expectFailure(
            refused, status: 1,
            message:
                "recnotes: \(truncated): the file is truncated (its header declares more audio than it holds); import --salvage keeps what is readable"
        )
        #expect(try sandbox.run("ls", "/").stdout.isEmpty)

        let salvaged = try sandbox.run("import", truncated, "--format", "wav", "--salvage")
        #expect(salvaged.status == 0, "\(salvaged)")
        #expect(
            salvaged.stderr
                == "recnotes: \(truncated): salvaged 1.25 s of the 2.00 s its header declares; the rest is not in the file\n"
        )
        let item = try #require(try sandbox.item(at: "/cut"))
        #expect(item["frames"] as? Int == 60_000)
        let stored = try samples(sandbox.audioDirectory + "/" + (item["file"] as? String ?? ""))
        let original = try samples(sandbox.root + "/whole.wav", writing: whole)
        #expect(stored == Array(original.prefix(60_000)))
        expectSuccess(try sandbox.run("fsck"))
    }

    func samples(_ path: String, writing bytes: [UInt8]) throws -> [Int16] {
        try sandbox.write(path, bytes)
        return try samples(path)
    }

    @Test func allOrNothingHoldsAndKeepCannotSalvage() throws {
        let good = sandbox.root + "/good.wav"
        try sandbox.write(good, whole)
        let garbage = sandbox.root + "/garbage.wav"
        try sandbox.write(garbage, Array("RIFF, but nothing else of a WAV".utf8))
        // The cut file, unsalvaged, keeps the good one out too.
        expectFailure(try sandbox.run("import", good, truncated), status: 1, containing: ["--salvage"])
        // Salvaging does not make an unreadable file readable: still none of them.
        expectFailure(try sandbox.run("import", good, truncated, garbage, "--salvage"), status: 1)
        #expect(try sandbox.run("ls", "/").stdout.isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: sandbox.audioDirectory)) ?? []).isEmpty)
        expectFailure(try sandbox.run("import", truncated, "--keep", "--salvage"), status: 64, containing: ["--keep"])
        // A file that needs nothing salvaged comes in as usual, and nothing is said.
        let both = try sandbox.run("import", good, truncated, "--salvage", "--format", "flac")
        #expect(both.status == 0 && both.stderr.split(separator: "\n").count == 1, "\(both)")
        #expect(both.stderr.contains("cut.wav: salvaged 1.25 s"), "\(both)")
        #expect(try sandbox.run("ls", "/").lines == ["cut", "good"])
    }

    /// FLAC cut mid-frame stops decoding with an error, where a WAV simply ends.
    @Test func aFLACThatStopsDecodingIsSalvagedUpToTheError() throws {
        let good = sandbox.root + "/good.wav"
        try sandbox.write(good, whole)
        try sandbox.succeed("import", good, "--format", "flac", "--name", "source")
        let flac = sandbox.root + "/whole.flac"
        try sandbox.succeed("export", "/source", flac)
        let bytes = try #require(sandbox.bytes(flac))
        let cut = sandbox.root + "/cut.flac"
        try sandbox.write(cut, Array(bytes.prefix(bytes.count * 2 / 3)))
        expectFailure(
            try sandbox.run("import", cut), status: 1, containing: ["import --salvage keeps what is readable"])
        let salvaged = try sandbox.run("import", cut, "--salvage", "--format", "wav")
        #expect(salvaged.status == 0, "\(salvaged)")
        #expect(salvaged.stderr.contains("cut.flac: salvaged "), "\(salvaged)")
        #expect(salvaged.stderr.contains("of the 2.00 s its header declares; decoding stopped there: "), "\(salvaged)")
        let item = try #require(try sandbox.item(at: "/cut"))
        let kept = item["frames"] as? Int ?? 0
        #expect(kept > 0 && kept < 96_000)
        let stored = try samples(sandbox.audioDirectory + "/" + (item["file"] as? String ?? ""))
        let original = try samples(sandbox.root + "/again.wav", writing: whole)
        #expect(stored.count == kept && stored == Array(original.prefix(kept)))
    }
}

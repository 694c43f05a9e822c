import Foundation
import Testing

/// `topics PATH` on a small library: three recordings whose transcripts (WebVTT from engine
/// scripts) share words; the one word only one of them says comes first, at its time.
@Suite("topics: what a recording is about")
struct TopicsCommandTests {
    func library() throws -> Sandbox {
        let cli = try Sandbox()
        let texts = [
            ("plans", "the plan for the team and the budget", "the plan for the quarter"),
            ("garden", "the plan for the garden and the team", "the weather was fine"),
            ("museum", "the team went to the zeppelin museum", "the zeppelin was huge, the budget small"),
        ]
        for (name, first, second) in texts {
            try cli.write(cli.root + "/\(name).wav", wavBytes(frames: 8 * 48_000))
            try cli.succeed("import", cli.root + "/\(name).wav", "--name", name)
            let engine = cli.root + "/\(name)-engine"
            let vtt = "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n\(first)\n\n00:00:04.500 --> 00:00:07.000\n\(second)\n"
            try Data("#!/bin/sh\ncat <<'VTT'\n\(vtt)VTT\n".utf8).write(to: URL(fileURLWithPath: engine))
            chmod(engine, 0o755)
            try cli.succeed("transcribe", name, "--engine", engine, "-q")
        }
        return cli
    }

    @Test func theWordOnlyOneSaysComesFirstWithItsTimes() throws {
        let cli = try library()
        let json = try #require(try cli.succeed("topics", "museum", "--json").json() as? [[String: Any]])
        #expect(json.first?["term"] as? String == "zeppelin", "\(json)")
        #expect(json.first?["count"] as? Int == 2)
        #expect(json.first?["times"] as? [Double] == [1.0, 4.5], "\(json)")
        #expect(!json.contains { ($0["term"] as? String ?? "").split(separator: " ").contains("the") })
        let text = try cli.succeed("topics", "museum", "--count", "1").stdout
        #expect(text == "zeppelin  2×  00:01 00:04\n", "\(text)")
    }

    @Test func badInputIsOneLine() throws {
        let cli = try library()
        try cli.succeed("mkdir", "/Empty")
        try cli.write(cli.root + "/quiet.wav", wavBytes(frames: 48_000))
        try cli.succeed("import", cli.root + "/quiet.wav", "--name", "quiet")
        for (arguments, message) in [
            (["topics", "/Empty"], "recnotes: /Empty: is a folder, not a recording"),
            (["topics", "museum", "--count", "0"], "recnotes: --count: must be at least 1"),
            (["topics", "nowhere"], nil),
            (["topics", "quiet"], nil),
        ] {
            let run = try cli.run(arguments)
            #expect(run.status != 0 && run.stderrLines.count == 1, "\(arguments): \(run)")
            if let message { #expect(run.stderr == message + "\n", "\(run)") }
        }
    }
}

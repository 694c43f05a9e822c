import Foundation
import Testing

/// `chapters PATH`: two talks on different subjects, spoken by espeak-ng one after the other
/// and transcribed by Whisper: the second chapter starts within 2 s of the join, and
/// `--apply` adds the chapters as markers, labelled with their words, which undo takes back.
@Suite("chapters: where a recording's subject changes")
struct ChaptersCommandTests {
    static var available: Bool {
        WhisperTests.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")
    }

    @Test(.enabled(if: available, "needs espeak-ng, sox and the Whisper wheels (scripts/install-deps.sh)"))
    func twoTalksSplitAtTheirJoin() throws {
        let cli = try Sandbox()
        try WhisperTests.install(into: cli.store)
        let talks = [
            "Boil the water for the pasta with plenty of salt. Add the pasta and stir it so that the pasta does not stick. Taste the pasta after eight minutes, then drain the pasta and keep some of the water for the sauce. The sauce needs garlic, olive oil and tomatoes. Cook the garlic slowly in the oil, add the tomatoes and let the sauce simmer. Toss the pasta in the sauce with basil and cheese, and serve the pasta hot.",
            "The rocket stands on the launch pad while the engineers load the fuel. The fuel tanks hold liquid oxygen and kerosene. The engines ignite three seconds before launch, and the rocket lifts off slowly. The first stage burns for two minutes, then the stage separates and falls back. The second stage carries the satellite into orbit, where the satellite opens its solar panels. The engineers watch the orbit from mission control.",
        ]
        var parts: [String] = []
        for (index, talk) in talks.enumerated() {
            let wav = cli.root + "/talk\(index).wav"
            _ = try Sandbox.execute(
                "/usr/bin/espeak-ng", ["-v", "en-us", "-s", "160", "-w", wav, talk], environment: [:])
            parts.append(wav)
        }
        let first = try Sandbox.execute("/usr/bin/soxi", ["-D", parts[0]], environment: [:])
        let join = try #require(Double(first.stdout.trimmingCharacters(in: .whitespacesAndNewlines))) + 0.75
        let both = cli.root + "/both.wav"
        // Three quarters of a second of pause at the join, as a speaker takes a breath.
        _ = try Sandbox.execute("/usr/bin/sox", [parts[0], both, "pad", "0", "0.75"], environment: [:])
        _ = try Sandbox.execute("/usr/bin/sox", [both, parts[1], cli.root + "/joined.wav"], environment: [:])
        try cli.succeed("import", cli.root + "/joined.wav", "--name", "talks")
        expectSuccess(try cli.run(["transcribe", "talks", "-q"], environment: ["RECNOTES_TRANSCRIBER": nil]))
        let chapters = try #require(try cli.succeed("chapters", "talks", "--json").json() as? [[String: Any]])
        #expect(chapters.count == 2, "\(chapters)")
        let second = try #require(chapters.last?["start"] as? Double)
        #expect(abs(second - join) <= 2, "\(second) against the join at \(join): \(chapters)")

        try cli.succeed("chapters", "talks", "--apply", "-q")
        let markers = try #require(try cli.succeed("info", "talks", "--json").object()["markers"] as? [[String: Any]])
        #expect(markers.count == chapters.count, "\(markers)")
        let labels = markers.compactMap { $0["label"] as? String }
        #expect(labels.first?.contains("pasta") == true, "\(labels)")
        // Applied again, nothing is added; undo takes them back.
        try cli.succeed("chapters", "talks", "--apply", "-q")
        #expect(
            (try cli.succeed("info", "talks", "--json").object()["markers"] as? [[String: Any]])?.count == markers.count
        )
        try cli.succeed("undo", "-q")
        let after = try cli.succeed("info", "talks", "--json").object()["markers"] as? [[String: Any]]
        #expect(after?.isEmpty ?? true, "\(String(describing: after))")
    }
}

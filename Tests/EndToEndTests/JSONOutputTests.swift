import Foundation
import Testing

/// `--json` of `find`, `ls -l` and `tree` byte for byte as the release before it was made to
/// write its bytes directly printed it: Tests/Fixtures/json-output holds a
/// generated store (200 items with notes, tags and markers, and notes that take every way a
/// snippet is cut: decomposed accents, CR LF, tabs and other breaks, emoji, capitals, a match
/// far into a long note) and what that release printed (`make.sh`).
@Suite("JSON output unchanged")
struct JSONOutputTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/json-output").path

    @Test(
        "find, ls -l and tree print the same JSON as before",
        arguments: [
            ("find-budget.json", ["find", "/", "--text", "budget", "--json"]),
            ("find-tag.json", ["find", "/", "--tag", "urgent", "--json"]),
            ("ls-root.json", ["ls", "-l", "/", "--json"]),
            ("tree.json", ["tree", "/", "--json"]),
        ])
    func unchanged(golden: String, arguments: [String]) throws {
        let sandbox = try Sandbox()
        try FileManager.default.copyItem(atPath: Self.fixture + "/store", toPath: sandbox.store)
        let expected = try String(contentsOfFile: Self.fixture + "/golden/" + golden, encoding: .utf8)
        // Twice: the first search makes find's index, the second answers from it.
        for _ in 0..<2 {
            let run = try sandbox.run(arguments)
            expectSuccess(run)
            let output = run.stdout.replacingOccurrences(of: sandbox.store, with: "STORE")
            #expect(output == expected, "\(arguments) differs from golden/\(golden)")
        }
    }
}

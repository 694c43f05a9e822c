import Foundation
import Testing

/// `make test-tsan` runs the suites tagged `.threads`. This toolchain's `swift test --filter`
/// matches test names only (a `tag:` filter selects nothing), so the Makefile names those
/// suites in TSAN_TESTS, and this test keeps the two the same, read from the sources: a
/// tagged suite renamed, added or moved that the regex no longer selects, or a suite the
/// regex selects that is not tagged, fails here, named.
@Suite("ThreadSanitizer's selection: the Makefile's regex selects the suites tagged .threads")
struct ThreadSanitizerSelectionTests {
    /// The package's root, found from this file's own path (Tests/RecSystemTests/…).
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every suite under Tests/: its test target (the folder) and type, and whether its
    /// `@Suite` has the tag.
    static func suites() throws -> [(target: String, type: String, threads: Bool)] {
        let tests = root.appending(path: "Tests").path
        var suites: [(String, String, Bool)] = []
        for relative in try FileManager.default.subpathsOfDirectory(atPath: tests) where relative.hasSuffix(".swift") {
            let text = try String(contentsOfFile: tests + "/" + relative, encoding: .utf8)
            let target = String(relative.prefix { $0 != "/" })
            var attribute: String?
            for line in text.split(separator: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("@Suite") {
                    attribute = trimmed
                } else if let suite = attribute, let type = declaredType(trimmed) {
                    suites.append((target, type, suite.contains(".tags(.threads)")))
                    attribute = nil
                }
            }
        }
        return suites
    }

    /// The name a line declares as a struct, class or enum, if it does.
    static func declaredType(_ line: String) -> String? {
        for keyword in ["struct ", "final class ", "class ", "enum "] where line.hasPrefix(keyword) {
            return String(line.dropFirst(keyword.count).prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }
        return nil
    }

    /// TSAN_TESTS's value in the Makefile.
    static func selection() throws -> String {
        let makefile = try String(contentsOfFile: root.appending(path: "Makefile").path, encoding: .utf8)
        let line = makefile.split(separator: "\n").first { $0.hasPrefix("TSAN_TESTS") }
        let value = line?.split(separator: "=", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
        return try #require(value, "no TSAN_TESTS in the Makefile")
    }

    @Test func theMakefileSelectsExactlyTheTaggedSuites() throws {
        let suites = try Self.suites()
        #expect(suites.count > 50, "the suites were not found under \(Self.root.path)/Tests")
        #expect(suites.filter(\.threads).count >= 5, "fewer suites tagged .threads than ThreadSanitizer ran")
        let regex = try Regex(Self.selection())
        for suite in suites {
            // A test's name as `swift test --filter` matches it.
            let name = "\(suite.target).\(suite.type)/aTest()"
            let selected = name.contains(regex)
            #expect(
                selected == suite.threads,
                "\(name): \(suite.threads ? "tagged .threads but not selected" : "selected but not tagged .threads")")
        }
    }
}

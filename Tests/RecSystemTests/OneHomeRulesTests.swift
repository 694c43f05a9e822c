import Foundation
import Testing

/// The "one home for each idea" rules of ARCHITECTURE.md that the compiler cannot keep: each
/// system call below appears in the source of one file only, and the library never prints.
/// Read from the sources themselves, so a second home fails here, naming the file.
@Suite("Architecture: one home for each idea, read from the sources")
struct OneHomeRulesTests {
    /// Sources/, found from this file's own path (Tests/RecSystemTests/…).
    static let sources = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Sources")

    /// Every Swift and C file under Sources/, as (path relative to Sources/, text without comments).
    static let files: [(path: String, code: String)] = {
        let root = sources.path
        let walker = FileManager.default.enumerator(atPath: root)
        var files: [(String, String)] = []
        while let relative = walker?.nextObject() as? String {
            guard relative.hasSuffix(".swift") || relative.hasSuffix(".c"),
                let text = try? String(contentsOfFile: root + "/" + relative, encoding: .utf8)
            else { continue }
            files.append((relative, withoutComments(text)))
        }
        return files.sorted { $0.0 < $1.0 }
    }()

    /// Line comments and doc comments dropped: a comment may name a call it explains.
    static func withoutComments(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard let range = line.range(of: "//") else { return String(line) }
            return String(line[..<range.lowerBound])
        }.joined(separator: "\n")
    }

    static func files(using call: String) -> [String] {
        files.filter { $0.code.contains(call) }.map(\.path)
    }

    @Test(arguments: [
        ("posix_spawn", "RecSystem/System/ProcessLaunch.swift"),
        ("pthread_create", "RecSystem/System/JoinableThread.swift"),
        ("tcsetattr", "recnotes/Terminal/RawMode.swift"),
        ("tcgetattr", "recnotes/Terminal/RawMode.swift"),
        ("waitpid(", "RecSystem/System/Process.swift"),
        ("pipe(", "RecSystem/System/SystemCall.swift"),
        ("== EINTR", "RecSystem/System/SystemCall.swift"),
        ("/proc/self/exe", "RecSystem/System/DetachedProcess.swift"),
        ("\\u{1B}[K", "recnotes/Terminal/LiveLine.swift"),
        ("pad(ms / 60_000 % 60", "RecValues/Transcripts/TranscriptRendering.swift"),
    ])
    func oneFileMakesThisCall(call: String, home: String) {
        #expect(Self.files.count > 50, "the sources were not found at \(Self.sources.path)")
        #expect(Self.files(using: call) == [home])
    }

    /// Whether a call was interrupted by a signal is the system layer's business alone.
    @Test func onlyTheSystemLayerLooksForEINTR() {
        let looking = Self.files.filter { !$0.path.hasPrefix("RecSystem/") && $0.code.contains("EINTR") }.map(\.path)
        #expect(looking == [])
    }

    /// Above the system layer, a file is opened through `FileSystem.withOpened` for the
    /// length of a call, or as an `OpenFile` kept past it: close-on-exec always, EINTR
    /// retried, closed once however the code that opened it ends. Never by a raw `open`.
    @Test func noRawOpenAboveTheSystemLayer() throws {
        let raw = try Regex(#"(^|[^.A-Za-z_])open\([^)]*O_(RDONLY|WRONLY|RDWR)"#)
        let opening = Self.files.filter { !$0.path.hasPrefix("RecSystem/") && $0.code.contains(raw) }.map(\.path)
        #expect(opening == [])
    }

    /// The library returns values and throws; only the CLI writes to the terminal.
    @Test func theLibraryNeverPrints() {
        let printing = Self.files.filter { $0.path.hasPrefix("Rec") && $0.code.contains("print(") }.map(\.path)
        #expect(printing == [])
    }

    /// Errors are told apart by their type, never by the words of their message.
    @Test func noErrorIsRecognisedByItsText() {
        let matching = Self.files.filter {
            $0.code.contains("reason.hasPrefix(") || $0.code.contains("description.hasPrefix(")
        }.map(\.path)
        #expect(matching == [])
    }
}

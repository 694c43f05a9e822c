import Foundation
import RecCore
import RecStore
import Testing

/// One command that must fail, and how.
struct FailingCommand: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var status: Int32
    /// The exact stderr line, or nil to check only `fragments`.
    var message: String?
    var fragments: [String] = []
    /// Run `cd` here first, so relative paths and the view state are in play.
    var from: String? = nil

    var testDescription: String { "recnotes " + arguments.map { $0.debugDescription }.joined(separator: " ") }
}

/// The store every error case runs against:
///
///     /A/            3f2a1111-…
///     /A/B/          3f2a2222-…
///     /A/rec         (recording, with audio)
///     /C/            (empty)
///     /D/B/
let errorCases: [FailingCommand] = [
    // Not found.
    .init(arguments: ["ls", "/nope"], status: 1, message: "recnotes: /nope: no such folder or recording"),
    .init(arguments: ["ls", "nope/deeper"], status: 1, message: "recnotes: nope/deeper: no such folder: /nope"),
    .init(arguments: ["tree", "nope"], status: 1, message: "recnotes: nope: no such folder or recording"),
    .init(arguments: ["cd", "nope"], status: 1, message: "recnotes: nope: no such folder or recording"),
    .init(arguments: ["cd", "B"], status: 1, message: "recnotes: B: no such folder or recording"),
    .init(arguments: ["cd", "nope"], status: 1, message: "recnotes: nope: no such folder or recording", from: "/A/B"),
    .init(arguments: ["info", "nope"], status: 1, message: "recnotes: nope: no such folder or recording"),
    .init(arguments: ["find", "nope"], status: 1, message: "recnotes: nope: no such folder or recording"),
    .init(arguments: ["rm", "nope"], status: 1, message: "recnotes: nope: no such folder or recording"),
    .init(arguments: ["rm", "-r", "C", "nope"], status: 1, message: "recnotes: nope: no such folder or recording"),
    .init(arguments: ["mv", "nope", "C"], status: 1, message: "recnotes: nope: no such folder or recording"),
    .init(arguments: ["mv", "C", "nope/x"], status: 1, message: "recnotes: nope/x: no such folder: /nope"),
    .init(arguments: ["ls", "@ffff"], status: 1, message: "recnotes: @ffff: no item has a UUID starting with ffff"),
    // Already exists.
    .init(arguments: ["mkdir", "A"], status: 1, message: "recnotes: A: already exists"),
    .init(arguments: ["mkdir", "/A/B"], status: 1, message: "recnotes: /A/B: already exists"),
    .init(arguments: ["mkdir", "B"], status: 1, message: "recnotes: B: already exists", from: "/A"),
    .init(arguments: ["mkdir", "new", "A"], status: 1, message: "recnotes: A: already exists"),
    .init(arguments: ["mkdir", "/"], status: 1, message: "recnotes: /: already exists"),
    .init(arguments: ["mkdir", "."], status: 1, message: "recnotes: .: already exists"),
    .init(arguments: ["mkdir", "A/rec"], status: 1, message: "recnotes: A/rec: already exists"),
    .init(arguments: ["mkdir", "-p", "A/rec"], status: 1, message: "recnotes: A/rec: already exists"),
    .init(arguments: ["mv", "C", "A/rec"], status: 1, message: "recnotes: A/rec: already exists"),
    .init(arguments: ["mv", "A/B", "D"], status: 1, message: "recnotes: /D/B: already exists"),
    .init(arguments: ["mv", "A/B", "A"], status: 1, message: "recnotes: A/B: already in /A"),
    // Missing parents, recordings used as folders.
    .init(
        arguments: ["mkdir", "nope/x"], status: 1,
        message: "recnotes: nope/x: no such folder: /nope (use -p to create it)"),
    .init(
        arguments: ["mkdir", "ok", "nope/x"], status: 1,
        message: "recnotes: nope/x: no such folder: /nope (use -p to create it)"),
    .init(arguments: ["mkdir", "A/rec/x"], status: 1, message: "recnotes: A/rec/x: /A/rec is not a folder"),
    .init(arguments: ["mkdir", "-p", "A/rec/x/y"], status: 1, message: "recnotes: A/rec/x/y: /A/rec is not a folder"),
    .init(arguments: ["ls", "A/rec/x"], status: 1, message: "recnotes: A/rec/x: /A/rec is not a folder"),
    .init(arguments: ["ls", "A/rec/"], status: 1, message: "recnotes: A/rec/: not a folder"),
    .init(arguments: ["cd", "A/rec"], status: 1, message: "recnotes: A/rec: not a folder"),
    .init(arguments: ["mv", "C", "A/rec/x"], status: 1, message: "recnotes: A/rec/x: /A/rec is not a folder"),
    // Not empty, the root.
    .init(
        arguments: ["rm", "A"], status: 1,
        message: "recnotes: A: folder is not empty (use -r to remove it and everything in it)"),
    .init(
        arguments: ["rm", "C", "A"], status: 1,
        message: "recnotes: A: folder is not empty (use -r to remove it and everything in it)"),
    .init(arguments: ["rm", "/"], status: 1, message: "recnotes: /: the root folder cannot be removed"),
    .init(arguments: ["rm", "-r", "/"], status: 1, message: "recnotes: /: the root folder cannot be removed"),
    .init(
        arguments: ["rm", "-r", ".."], status: 1, message: "recnotes: ..: the root folder cannot be removed", from: "/A"
    ),
    .init(arguments: ["mv", "/", "C"], status: 1, message: "recnotes: /: the root folder cannot be moved or renamed"),
    // Into itself.
    .init(
        arguments: ["mv", "A", "A"], status: 1,
        message: "recnotes: /A: cannot move a folder into itself or one of its subfolders"),
    .init(
        arguments: ["mv", "A", "A/B"], status: 1,
        message: "recnotes: /A: cannot move a folder into itself or one of its subfolders"),
    .init(
        arguments: ["mv", "A", "A/B/new name"], status: 1,
        message: "recnotes: /A: cannot move a folder into itself or one of its subfolders"),
    .init(
        arguments: ["mv", "C", "A", "A/B"], status: 1,
        message: "recnotes: /A: cannot move a folder into itself or one of its subfolders"),
    .init(
        arguments: ["mv", "C", "A/rec", "nope"], status: 1,
        message: "recnotes: nope: no such folder (moving several items needs an existing folder)"),
    // Ambiguous UUID prefix: the candidates are listed.
    .init(
        arguments: ["ls", "@3f2a"], status: 1,
        message: "recnotes: @3f2a: ambiguous UUID prefix, matching 2 items: @3f2a11110000 /A, @3f2a22220000 /A/B"),
    .init(arguments: ["rm", "-r", "@3f2a"], status: 1, message: nil, fragments: ["ambiguous UUID prefix", "/A/B"]),
    // Usage errors: bad names, bad prefixes, bad arguments.
    .init(
        arguments: ["mkdir", " lead"], status: 64, message: "recnotes: ' lead': a name cannot start with whitespace"),
    .init(
        arguments: ["mkdir", "trail "], status: 64, message: "recnotes: 'trail ': a name cannot end with whitespace"),
    .init(
        arguments: ["mkdir", "tab\there"], status: 64,
        message: "recnotes: tab\\u{9}here: a name cannot contain control characters"),
    .init(
        arguments: ["mkdir", "new\nline"], status: 64,
        message: "recnotes: new\\u{a}line: a name cannot contain control characters"),
    .init(
        arguments: ["mkdir", "del\u{7F}"], status: 64,
        message: "recnotes: del\\u{7f}: a name cannot contain control characters"),
    .init(
        arguments: ["mkdir", "c1\u{85}"], status: 64,
        message: "recnotes: c1\\u{85}: a name cannot contain control characters"),
    .init(
        arguments: ["mkdir", String(repeating: "é", count: 128)], status: 64,
        message:
            "recnotes: \(String(repeating: "é", count: 128)): a name is at most 255 bytes of UTF-8 (this one has 256)"),
    .init(arguments: ["mkdir", ""], status: 64, message: "recnotes: '': a path cannot be empty"),
    .init(
        arguments: ["mkdir", "ok", "bad "], status: 64, message: "recnotes: 'bad ': a name cannot end with whitespace"),
    .init(
        arguments: ["mv", "C", "bad\u{1}"], status: 64,
        message: "recnotes: bad\\u{1}: a name cannot contain control characters"),
    .init(arguments: ["mv", "C", " C"], status: 64, message: "recnotes: ' C': a name cannot start with whitespace"),
    .init(
        arguments: ["ls", "@3f2"], status: 64,
        message: "recnotes: @3f2: a UUID prefix needs 4 to 32 hex digits after '@'"),
    .init(
        arguments: ["ls", "@zzzz"], status: 64,
        message: "recnotes: @zzzz: a UUID prefix needs 4 to 32 hex digits after '@'"),
    .init(
        arguments: ["cd", "@"], status: 64, message: "recnotes: @: a UUID prefix needs 4 to 32 hex digits after '@'"),
    .init(arguments: ["ls", "--bogus"], status: 64, fragments: ["--bogus"]),
    .init(arguments: ["bogus"], status: 64),
    .init(arguments: ["ls", "--sort", "colour"], status: 64, fragments: ["colour"]),
    .init(arguments: ["find", "--type", "album"], status: 64, fragments: ["album"]),
    .init(arguments: ["mkdir"], status: 64, fragments: ["<paths>"]),
    .init(arguments: ["rm"], status: 64, fragments: ["<paths>"]),
    .init(
        arguments: ["mv", "A"], status: 64, fragments: ["recnotes: mv: needs at least one source and a destination"]),
    .init(arguments: ["cd", "A", "C"], status: 64, fragments: ["recnotes: C: unexpected argument"]),
    .init(arguments: ["info"], status: 64, fragments: ["<path>"]),
    .init(
        arguments: ["mkdir", "--store", "", "x"], status: 64,
        message: "recnotes: --store: the store directory cannot be empty"),
]

@Suite("Errors")
struct ErrorTests {
    static func makeStore() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.addFolder("A", in: "/", id: ItemID("3f2a1111-0000-4000-8000-000000000001")!)
        try sandbox.addFolder("B", in: "/A", id: ItemID("3f2a2222-0000-4000-8000-000000000002")!)
        try sandbox.addRecording("rec", in: "/A", duration: 2, audioBytes: 100)
        try sandbox.addFolder("C", in: "/")
        try sandbox.addFolder("D", in: "/")
        try sandbox.addFolder("B", in: "/D")
        return sandbox
    }

    @Test("each error is one stderr line with its exit status, and changes no file", arguments: errorCases)
    func failing(command: FailingCommand) throws {
        let sandbox = try Self.makeStore()
        if let from = command.from { expectSuccess(try sandbox.run("cd", from)) }
        let store = try #require(sandbox.storeBytes)
        let viewState = sandbox.viewStateBytes
        let listing = try sandbox.storeListing()
        let audio = try FileManager.default.contentsOfDirectory(atPath: sandbox.audioDirectory)

        // A case that passes its own --store gets no other.
        let result = try sandbox.run(command.arguments, store: !command.arguments.contains("--store"))
        expectFailure(result, status: command.status, message: command.message, containing: command.fragments)
        #expect(sandbox.storeBytes == store, "store.json changed")
        #expect(sandbox.viewStateBytes == viewState, "viewstate.json changed")
        #expect(try sandbox.storeListing() == listing, "files in the store changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.audioDirectory) == audio)
    }

    @Test("the valid neighbours of some error cases succeed")
    func neighbours() throws {
        let sandbox = try Self.makeStore()
        expectSuccess(try sandbox.run("mv", "D/B", "C"))
        expectSuccess(try sandbox.run("mv", "C", "D/../A/B/.."))
        #expect(try sandbox.item(at: "/A/C/B") != nil)
        expectSuccess(try sandbox.run("mkdir", "-p", "A/B"))
        expectSuccess(try sandbox.run("rm", "D"))
        expectSuccess(try sandbox.run("ls", "@3f2a1"))
    }

    @Test("an unknown subcommand is named in the message")
    func unknownSubcommand() throws {
        let sandbox = try Sandbox()
        expectFailure(
            try sandbox.run(["bogus"], store: false), status: 64,
            containing: ["recnotes: bogus: not a recnotes command"])
        expectFailure(try sandbox.run(["bogus"]), status: 64, containing: ["recnotes: bogus: not a recnotes command"])
        expectFailure(
            try sandbox.run(["--store=" + sandbox.store, "bogus"], store: false), status: 64,
            containing: ["recnotes: bogus: not a recnotes command"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.home + "/.local/share/recnotes/store.json"))
    }
}

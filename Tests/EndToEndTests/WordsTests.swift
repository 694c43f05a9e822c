import Foundation
import Testing

/// `recnotes words`: your words, listed sorted and once each, added and removed, refused in
/// one line when wrong, carried by sync with two machines' additions merged, and told to
/// Whisper as its prompt.
@Suite("words: your vocabulary")
struct WordsTests {
    @Test func addListRemove() throws {
        let cli = try Sandbox()
        #expect(try cli.succeed("words").stdout == "")
        try cli.succeed("words", "add", "Zürich", "Dashwood", "New  York")
        let again = try cli.run("words", "add", "zürich", "Barton")
        #expect(again.status == 0 && again.stderr == "recnotes: words: 1 word already there\n", "\(again)")
        #expect(try cli.succeed("words").lines == ["Barton", "Dashwood", "New York", "Zürich"])
        #expect(
            try cli.succeed("words", "list", "--json").stdout
                == "[\"Barton\", \"Dashwood\", \"New York\", \"Zürich\"]\n")
        try cli.succeed("words", "rm", "barton")
        let file = try String(contentsOfFile: cli.store + "/words.txt", encoding: .utf8)
        #expect(file == "Dashwood\nNew York\nZürich\n")
        // A word that is not one: one line, exit 1, nothing changed.
        let missing = try cli.run("words", "rm", "Dashwood", "Paris")
        #expect(missing.status == 1 && missing.stderr == "recnotes: words: \"Paris\" is not one of your words\n")
        #expect(try String(contentsOfFile: cli.store + "/words.txt", encoding: .utf8) == file)
        let empty = try cli.run("words", "add", " ")
        #expect(empty.status != 0 && empty.stderrLines.count == 1, "\(empty)")
    }

    @Test func syncCarriesAndMergesThem() throws {
        let laptop = try Sandbox()
        let hub = laptop.root + "/hub"
        try laptop.succeed("sync", "init", "--name", "laptop")
        try laptop.succeed("sync", "remote", "add", "hub", hub)
        try laptop.succeed("words", "add", "Dashwood")
        try laptop.succeed("sync", "-q")
        let phone = try Sandbox()
        try phone.succeed("sync", "clone", hub, "--name", "phone", "-q")
        #expect(try phone.succeed("words").lines == ["Dashwood"])
        // Both add at once: each keeps its own and gets the other's.
        try laptop.succeed("words", "add", "Barton")
        try phone.succeed("words", "add", "Zürich")
        try laptop.succeed("sync", "-q")
        try phone.succeed("sync", "-q")
        try laptop.succeed("sync", "-q")
        #expect(try laptop.succeed("words").lines == ["Barton", "Dashwood", "Zürich"])
        #expect(try phone.succeed("words").lines == ["Barton", "Dashwood", "Zürich"])
    }

    @Test(.enabled(if: WhisperTests.available, "needs the wheels (scripts/install-deps.sh)"))
    func whisperIsToldThem() throws {
        let cli = try Sandbox()
        try WhisperTests.install(into: cli.store)
        try cli.succeed("import", LiveWordsTests.librivox + "0880.wav", "--name", "talk")
        try cli.succeed("words", "add", "Dashwood", "Zürich")
        let log = cli.root + "/whisper.log"
        expectSuccess(
            try cli.run(
                ["transcribe", "talk", "-q"], environment: ["RECNOTES_TRANSCRIBER": nil, "RECNOTES_WHISPER_LOG": log]))
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains("prompt Dashwood, Zürich."), "\(lines)")
        #expect(try cli.run("transcript", "talk").stdout.contains("young man"))
    }
}

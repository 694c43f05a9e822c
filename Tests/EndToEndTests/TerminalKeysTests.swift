import Foundation
import RecCore
import Testing

/// The record screen at a real terminal: `script` gives recnotes a pseudo-terminal, the test
/// types into it. Keys are sent only after the screen shows what they answer, never on a timer.
@Suite("record and play at a terminal")
struct TerminalKeysTests {
    static var scriptInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/script") }

    final class Screen {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        private var seen = Data()

        /// `columns`: the pseudo-terminal's width, set with stty before recnotes starts.
        init(_ cli: AudioCLI, _ arguments: [String], columns: Int? = nil) throws {
            var command = ([AudioCLI.binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
            if let columns { command = "stty cols \(columns) rows 24; " + command }
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qfec", command, "/dev/null"]
            var env = cli.environment
            env["TERM"] = "xterm"
            process.environment = env
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
        }

        /// Where the last text waited for ended: each wait looks only at what came after.
        private var mark = 0

        /// Reads the screen until `text` appears after the last one waited for; false if the
        /// program ended first.
        func waitFor(_ text: String) -> Bool {
            let wanted = Data(text.utf8)
            while true {
                if let found = seen.range(of: wanted, in: mark..<seen.endIndex) {
                    mark = found.upperBound
                    return true
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return false }
                seen.append(chunk)
            }
        }

        func type(_ keys: String) {
            input.fileHandleForWriting.write(Data(keys.utf8))
        }

        func finish() -> (status: Int32, screen: String) {
            seen.append(output.fileHandleForReading.readDataToEndOfFile())
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: seen, as: UTF8.self))
        }
    }

    @Test(
        "space pauses and resumes, q stops, Enter at the prompt keeps the default name",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func saveWithDefaultName() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 480_000, amplitude: 0.5))
        let screen = try Screen(cli, ["record", "--format", "wav"])
        // A level on the meter: audio has arrived, so the recording is not empty.
        #expect(screen.waitFor("dBFS"))
        screen.type(" ")
        #expect(screen.waitFor("paused"))
        screen.type(" ")
        screen.type("q")
        #expect(screen.waitFor("Save recording as [Recording "))
        screen.type("\r")
        let (status, text) = screen.finish()
        #expect(status == 0, "\(text)")
        #expect(text.contains("Saved /Recording "))
        let recordings = try cli.recordings()
        #expect(recordings.count == 1)
        #expect((recordings.first?["name"] as? String)?.hasPrefix("Recording ") == true)
        #expect((recordings.first?["frames"] as? Int ?? 0) > 0)
    }

    @Test(
        "a typed name is used, and Esc at the prompt moves the recording to the trash, from where it comes back",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func typedNameAndDiscard() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 480_000, amplitude: 0.5))
        let named = try Screen(cli, ["record", "--format", "wav"])
        #expect(named.waitFor("●"))
        named.type("q")
        #expect(named.waitFor("Save recording as"))
        named.type("standup\r")
        #expect(named.finish().status == 0)
        #expect(try cli.recordings().map { $0["name"] as? String } == ["standup"])

        let discarded = try Screen(cli, ["record", "--format", "wav"])
        #expect(discarded.waitFor("●"))
        discarded.type("q")
        #expect(discarded.waitFor("Save recording as"))
        discarded.type("\u{1B}")
        let (status, text) = discarded.finish()
        #expect(status == 0, "\(text)")
        #expect(try cli.recordings().map { $0["name"] as? String } == ["standup"])
        // Not lost by one key: it is in the trash, audio included, and the screen says how
        // to bring it back, in words that can be pasted.
        let said = try #require(
            text.range(of: "Discarded to the trash; `recnotes trash restore '/Recording "), "\(text)")
        #expect(text[said.upperBound...].contains("'` brings it back."), "\(text)")
        #expect(cli.audioFiles().count == 2)
        let trash = try cli.run("trash")
        #expect(trash.stdout.contains("/Recording "), "\(trash.stdout)")
        let restoreCommand = text[said.lowerBound...].split(separator: "`")[1]
        let quotedPath = restoreCommand.dropFirst("recnotes trash restore ".count)
        #expect(quotedPath.hasPrefix("'") && quotedPath.hasSuffix("'"))
        let restored = try cli.run("trash", "restore", String(quotedPath.dropFirst().dropLast()))
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try cli.recordings().count == 2)
    }

    @Test(
        "keys typed ahead reach the name prompt in order: q and Esc in one go discard, q and a name save under it",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func keysTypedAheadReachThePrompt() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 480_000, amplitude: 0.5))
        // q and Esc in one write, before the prompt can appear.
        let discarded = try Screen(cli, ["record", "--format", "wav"])
        #expect(discarded.waitFor("●"))
        discarded.type("q\u{1B}")
        let (status, text) = discarded.finish()
        #expect(status == 0, "\(text)")
        #expect(text.contains("Discarded to the trash"), "\(text)")
        #expect(try cli.recordings().isEmpty)

        let named = try Screen(cli, ["record", "--format", "wav"])
        #expect(named.waitFor("●"))
        named.type("qahead\r")
        let saved = named.finish()
        #expect(saved.status == 0, "\(saved.screen)")
        #expect(try cli.recordings().map { $0["name"] as? String } == ["ahead"], "\(saved.screen)")
    }

    @Test(
        "the name prompt edits the line: Ctrl-W, Ctrl-U, Home, End, arrows, Delete",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func namePromptEditing() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 480_000, amplitude: 0.5))
        let screen = try Screen(cli, ["record", "--format", "wav"])
        #expect(screen.waitFor("●"))
        screen.type("q")
        #expect(screen.waitFor("Save recording as"))
        // "junk word" ⌃W → "junk " ⌃U → "" ; "tand" ⌃A "s" ⌃E "upX" ← ⌦… ← Delete → "standup"
        screen.type("junk word\u{17}\u{15}tand\u{01}s\u{05}upX\u{1B}[D\u{1B}[3~")
        screen.type("\u{1B}[H\u{1B}[C\u{1B}[F\r")
        let (status, text) = screen.finish()
        #expect(status == 0, "\(text)")
        #expect(try cli.recordings().map { $0["name"] as? String } == ["standup"])
    }

    /// Each redraw of the live line (what follows `\r ESC[K`), as the terminal shows it.
    static func drawnLines(_ screen: String) -> [String] {
        screen.components(separatedBy: "\r\u{1B}[K").dropFirst().map { segment in
            String(segment.prefix { !$0.isNewline })
        }
    }

    @Test(
        "the record meter and the play bar name the item, show the keys, and fit a 40-column terminal",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func linesFitTheTerminal() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 480_000, amplitude: 0.5))
        let wide = try Screen(
            cli, ["record", "A rather long name for a note", "--format", "wav", "--duration", "2"], columns: 120)
        #expect(wide.waitFor("A rather long name for a note  space pause · m mark · q stop"))
        #expect(wide.finish().status == 0)

        let narrow = try Screen(cli, ["play", "A rather long name for a note", "--paused"], columns: 40)
        #expect(narrow.waitFor("❚❚ 00:00:00 / 00:00:02"))
        narrow.type("q")
        let (status, text) = narrow.finish()
        #expect(status == 0, "\(text)")
        let lines = Self.drawnLines(text)
        #expect(!lines.isEmpty)
        for line in lines { #expect(StatusLine.visibleWidth(line) < 40, "\(line)") }
    }

    @Test(
        "import at a terminal shows its own line and says what it imported",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func importAtATerminal() throws {
        let cli = try AudioCLI()
        let wav = try PipelineTests.wav(cli, "talk.wav", AudioCLI.tone(frames: 96_000))
        let screen = try Screen(cli, ["import", wav, "--format", "flac"])
        let (status, text) = screen.finish()
        #expect(status == 0, "\(text)")
        #expect(text.contains("⇣ 00:00:"), "\(text)")
        #expect(text.contains("talk"), "\(text)")
        #expect(!text.contains("▶"), "\(text)")
        #expect(text.contains("Imported /talk (00:02)."), "\(text)")
    }

    @Test(
        "play: arrows seek 5 s while paused, space resumes from there",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func arrowsSeekAndSpaceResumes() throws {
        let cli = try AudioCLI()
        let rate = 48_000
        try cli.writeInput(AudioCLI.noise(frames: 20 * rate, seed: 7))
        #expect(try cli.run("record", "src", "--format", "wav", "--duration", "20").status == 0)
        let source = try AudioCLI.decode(cli.store + "/audio/" + (try cli.recordings().first?["file"] as? String ?? ""))
        // Started paused, so nothing reaches the (faster than real time) file sink before the keys.
        let screen = try Screen(cli, ["play", "src", "--paused"])
        #expect(screen.waitFor("❚❚ 00:00:00"))
        screen.type("\u{1B}[C")
        #expect(screen.waitFor("❚❚ 00:00:05"))
        screen.type("\u{1B}[C")
        #expect(screen.waitFor("❚❚ 00:00:10"))
        screen.type("\u{1B}[D")
        // Paused, the bar keeps the total time, the name and the state.
        #expect(screen.waitFor("❚❚ 00:00:05 / 00:00:20"))
        #expect(screen.waitFor("  src  paused"))
        screen.type(" ")
        let (status, text) = screen.finish()
        #expect(status == 0, "\(text)")
        let written = cli.outputSamples()
        #expect(written.count == source.count - 5 * rate)
        #expect(written == Array(source[(5 * rate)...]))
    }

    @Test(
        "record: m marks the moment, and the saved recording keeps the marker",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func markWhileRecording() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 480_000, amplitude: 0.5))
        let screen = try Screen(cli, ["record", "memo", "--format", "wav"])
        #expect(screen.waitFor("dBFS"))
        screen.type("m")
        #expect(screen.waitFor("marked 00:00:"))
        screen.type("q")
        let (status, text) = screen.finish()
        #expect(status == 0, "\(text)")
        let marks = try cli.run("marks", "memo", "--json")
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(marks.stdout.utf8)) as? [[String: Any]], "\(marks)")
        #expect(list.count == 1)
        #expect((list.first?["frame"] as? Int ?? 0) > 0)
    }

    @Test(
        "play: ] and [ go to the next and previous marker, m marks where the player is",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func markerKeysWhilePlaying() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 480_000))
        #expect(try cli.run("record", "talk", "--format", "wav", "--duration", "10").status == 0)
        #expect(try cli.run("mark", "talk", "--at", "2", "intro").status == 0)
        #expect(try cli.run("mark", "talk", "--at", "6").status == 0)
        let screen = try Screen(cli, ["play", "talk", "--paused"])
        #expect(screen.waitFor("00:00:00 / 00:00:10"))
        screen.type("]")
        #expect(screen.waitFor("00:00:02 / 00:00:10"))
        screen.type("]")
        #expect(screen.waitFor("00:00:06 / 00:00:10"))
        // Just after a marker, [ goes to the one before, then to the start.
        screen.type("[")
        #expect(screen.waitFor("00:00:02 / 00:00:10"))
        screen.type("[")
        #expect(screen.waitFor("00:00:00 / 00:00:10"))
        screen.type("]]")
        #expect(screen.waitFor("00:00:06 / 00:00:10"))
        screen.type("m")
        #expect(screen.waitFor("marked 00:00:06"))
        screen.type("q")
        let (status, text) = screen.finish()
        #expect(status == 0, "\(text)")
        // Paused all along: nothing was played.
        #expect(cli.outputSamples().isEmpty)
        let marks = try cli.run("marks", "talk", "--json")
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(marks.stdout.utf8)) as? [[String: Any]], "\(marks)")
        #expect(list.map { $0["frame"] as? Int } == [96_000, 288_000, 288_000])
    }

    @Test(
        "M asks for a marker's label while the audio goes on: the marker is where M was pressed; Esc drops it",
        .enabled(if: scriptInstalled), .timeLimit(.minutes(1)))
    func labelledMarkers() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 480_000, amplitude: 0.5))
        let recording = try Screen(cli, ["record", "memo", "--format", "wav"])
        #expect(recording.waitFor("dBFS"))
        recording.type("M")
        #expect(recording.waitFor("Marker label (Enter adds, Esc drops): "))
        recording.type("budget q3\r")
        #expect(recording.waitFor("marked 00:00:"))
        recording.type("q")
        #expect(recording.finish().status == 0)
        let saved = try cli.run("marks", "memo", "--json")
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(saved.stdout.utf8)) as? [[String: Any]], "\(saved)")
        #expect(list.map { $0["label"] as? String } == ["budget q3"])

        let intro = try cli.run("mark", "memo", "--at", "2", "intro")
        #expect(intro.status == 0, "\(intro)")
        let playing = try Screen(cli, ["play", "memo", "--paused", "--seek", "mark:intro"])
        #expect(playing.waitFor("❚❚ 00:00:02"))
        playing.type("M")
        #expect(playing.waitFor("Marker label (Enter adds, Esc drops): "))
        playing.type("oops\u{1B}")
        // Esc gives the live line back (a key typed within 30 ms of Esc would read as a sequence).
        #expect(playing.waitFor("❚❚ 00:00:02"))
        playing.type("M")
        #expect(playing.waitFor("Marker label (Enter adds, Esc drops): "))
        playing.type("x\u{7F}here\r")
        #expect(playing.waitFor("marked 00:00:02.00  here"))
        playing.type("q")
        #expect(playing.finish().status == 0)
        let marks = try cli.run("marks", "memo", "--json")
        let all = try #require(
            try JSONSerialization.jsonObject(with: Data(marks.stdout.utf8)) as? [[String: Any]], "\(marks)")
        // Paused at intro's frame: the labelled marker is exactly there; the dropped one is not kept.
        #expect(all.filter { $0["label"] as? String == "here" }.map { $0["frame"] as? Int } == [96_000])
        #expect(all.count == 3)
    }
}

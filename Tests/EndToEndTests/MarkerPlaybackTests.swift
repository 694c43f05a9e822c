import Foundation
import RecCore
import Testing

/// `play --seek '#N'` / `mark:LABEL` and `--until` in the same forms, on the file sink:
/// what reaches the device is exactly the source from the marker's frame.
@Suite("Markers: play from a marker to a marker")
struct MarkerPlaybackTests {
    /// A 3 s WAV recording of noise with markers at frames that are not whole
    /// milliseconds, so that only the marker's own frame can match.
    func recorded() throws -> (AudioCLI, [Int16], [Int]) {
        let cli = try AudioCLI()
        let input = AudioCLI.noise(frames: 144_000)
        try cli.writeInput(input)
        #expect(try cli.run("record", "src", "--format", "wav", "--duration", "3").status == 0)
        for (at, label) in [("1.23456", "Café intro"), ("2.500021", ""), ("0.5", "dup"), ("0.75", "dup")] {
            let mark = try cli.run(["mark", "src", "--at", at] + (label.isEmpty ? [] : [label]))
            #expect(mark.status == 0, "\(mark.stderr)")
        }
        let marks = try cli.run("marks", "src", "--json")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(marks.stdout.utf8)) as? [[String: Any]])
        let frames = list.compactMap { $0["frame"] as? Int }
        // In time order: dup 0.5, dup 0.75, intro 1.23456, unlabelled 2.500021.
        #expect(frames == [24_000, 36_000, 59_259, 120_001])
        return (cli, input, frames)
    }

    @Test func seekAndUntilByLabelAndNumberAreSampleExact() throws {
        let (cli, input, frames) = try recorded()
        // By label (case and accents ignored) to a number.
        let play = try cli.run("play", "src", "--seek", "mark:cafe INTRO", "--until", "#4")
        #expect(play.status == 0, "\(play.stderr)")
        #expect(Bool(cli.outputSamples() == Array(input[frames[2]..<frames[3]])))
        try? FileManager.default.removeItem(atPath: cli.output)
        // By number to the end; the exact label works too.
        #expect(try cli.run("play", "src", "--seek", "#4").status == 0)
        #expect(Bool(cli.outputSamples() == Array(input[frames[3]...])))
        try? FileManager.default.removeItem(atPath: cli.output)
        #expect(try cli.run("play", "src", "--until", "mark:Café intro").status == 0)
        #expect(Bool(cli.outputSamples() == Array(input[..<frames[2]])))
        try? FileManager.default.removeItem(atPath: cli.output)
        // A marker and a time mix.
        #expect(try cli.run("play", "src", "--seek", "#2", "--until", "1").status == 0)
        #expect(Bool(cli.outputSamples() == Array(input[frames[1]..<48_000])))
    }

    @Test(arguments: [
        (["--seek", "#9"], "recnotes: --seek #9: src has markers 1 to 4"),
        (["--seek", "#0"], "recnotes: --seek #0: a marker's number is # and a whole number from 1, such as #3"),
        (["--seek", "#x"], "recnotes: --seek #x: a marker's number is # and a whole number from 1, such as #3"),
        (["--seek", "#"], "recnotes: --seek #: a marker's number is # and a whole number from 1, such as #3"),
        (["--seek", "mark:"], "recnotes: --seek mark:: give the marker's label after 'mark:', such as mark:budget"),
        (["--seek", "mark:nope"], "recnotes: --seek mark:nope: no marker of src has this label"),
        (
            ["--seek", "mark:dup"],
            "recnotes: --seek mark:dup: several markers have this label (#1, #2); give its number"
        ),
        (["--until", "mark:nope"], "recnotes: --until mark:nope: no marker of src has this label"),
        (["--seek", "#3", "--until", "#2"], "recnotes: --until #2: must come after the start (00:00:01.23)"),
    ])
    func badMarkersAreUsageErrorsThatChangeNothing(arguments: [String], message: String) throws {
        let (cli, _, _) = try recorded()
        let store = FileManager.default.contents(atPath: cli.store + "/store.json")
        let state = FileManager.default.contents(atPath: cli.store + "/viewstate.json")
        let play = try cli.run(["play", "src"] + arguments)
        #expect(play.status == 64, "\(play.stderr)")
        #expect(play.stderr == message + "\n")
        #expect(cli.outputSamples().isEmpty)
        #expect(FileManager.default.contents(atPath: cli.store + "/store.json") == store)
        #expect(FileManager.default.contents(atPath: cli.store + "/viewstate.json") == state)
    }

    @Test func aRecordingWithoutMarkersAndOtherCommandsRefuseMarkerTimes() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: 48_000))
        #expect(try cli.run("record", "plain", "--format", "wav", "--duration", "1").status == 0)
        let none = try cli.run("play", "plain", "--seek", "#1")
        #expect(none.status == 64)
        #expect(none.stderr == "recnotes: --seek #1: plain has no markers\n")
        let at = try cli.run("mark", "plain", "--at", "#1")
        #expect(at.status == 64)
        #expect(
            at.stderr == "recnotes: --at #1: a marker (#N or mark:LABEL) is a time only for play --seek and --until\n")
        #expect(try cli.run("record", "d", "--duration", "#1").status == 64)
        #expect(cli.outputSamples().isEmpty)
    }
}

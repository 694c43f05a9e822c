import Foundation
import RecTestSupport
import Testing

@testable import RecAudio

/// libsndfile's texts ("System error : No such file or directory.", "Format not
/// recognised.") are said in recnotes' words: no "Error :" prefixes, no final period.
@Suite("libsndfile messages in our voice")
struct SoundFileMessageTests {
    func openError(_ path: String) -> AudioError? {
        do {
            _ = try SoundFile.open(path: path)
            return nil
        } catch let error as AudioError { return error } catch { return nil }
    }

    @Test func systemErrorsAreStrerrorAlone() {
        let error = openError("/nonexistent/x.wav")
        #expect(error?.reason == "No such file or directory")
        #expect(error?.description == "/nonexistent/x.wav: cannot read audio: No such file or directory")
    }

    @Test func anUnrecognisedFormatSaysWhatItMeans() throws {
        let path = NSTemporaryDirectory() + "recnotes-garbage-" + UUID().uuidString
        try Data(repeating: 0x41, count: 5000).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(openError(path)?.reason == "not an audio format recnotes can read")
    }

    @Test(
        "library texts lose their prefixes and periods",
        arguments: [
            ("System error : Permission denied.", Int32(2), "Permission denied"),
            (
                "Error : Opus only supports sample rates of 8000 and 48000.", Int32(0),
                "Opus only supports sample rates of 8000 and 48000"
            ),
            (
                "Supported file format but file is malformed.", Int32(3),
                "the file is damaged: its format is known but its contents are not valid"
            ),
            ("Supported file format but unsupported encoding.", Int32(4), "its audio encoding is not supported"),
            ("Unspecified internal error.", Int32(0), "libsndfile failed without saying why"),
        ])
    func reworded(raw: String, code: Int32, expected: String) {
        #expect(SoundFile.reason(raw, code: code) == expected)
    }
}

import Foundation
import RecAudio
import RecTestSupport
import RecValues
import Testing

@testable import RecTranscripts

/// Real human speech from `pocketsphinx-testdata` through the built-in engine. The
/// reference times are what `pocketsphinx_continuous -infile goforward.raw -time yes`
/// prints for the same audio and model: go 0.46, forward 0.64, ten 1.17, meters 1.53.
@Suite("Transcripts: PocketSphinx on real speech", .serialized)
struct PocketSphinxTests {
    static let data = "/usr/share/pocketsphinx/test/data"
    static let reference: [(word: String, start: Double)] = [
        ("go", 0.46), ("forward", 0.64), ("ten", 1.17), ("meters", 1.53),
    ]

    func goForward() throws -> SpeechAudio {
        try SpeechAudio.readRaw(path: Self.data + "/goforward.raw")
    }

    /// Every reference word is found, in order, within ±0.5 s of its reference time.
    func expectReference(_ transcript: Transcript, offset: Double, in segment: Transcript.Segment) {
        var words = segment.words[...]
        for (word, start) in Self.reference {
            guard let found = words.firstIndex(where: { $0.text == word }) else {
                Issue.record("\(word) not found in \"\(segment.text)\"")
                continue
            }
            #expect(
                abs(words[found].start - (start + offset)) <= 0.5,
                "\(word) at \(words[found].start), expected \(start + offset)")
            words = words[(found + 1)...]
        }
    }

    @Test func transcribesGoForward() throws {
        let audio = try goForward()
        #expect(abs(audio.duration - 2.786) < 0.01)
        let transcript = try PocketSphinxEngine().transcribe(audio)
        #expect(transcript.engine == "pocketsphinx")
        #expect(transcript.model == PocketSphinxEngine.modelDirectory + "/en-us")
        #expect(transcript.quality == .draft)
        let segment = try #require(transcript.segments.first)
        #expect(transcript.text == "go forward ten meters")
        expectReference(transcript, offset: 0, in: segment)
        for segment in transcript.segments {
            let start = try #require(segment.start)
            let end = try #require(segment.end)
            #expect(0 <= start && start < end && end <= audio.duration)
            for word in segment.words { #expect(start <= word.start && word.start < word.end && word.end <= end) }
        }
    }

    /// Times count from the start of the recording, across utterances: two seconds of
    /// silence, the phrase, three seconds of silence, the phrase again.
    @Test func timesCountFromTheStartAcrossUtterances() throws {
        let phrase = try goForward().samples
        let audio = SpeechAudio(
            samples: [Int16](repeating: 0, count: 32_000) + phrase + [Int16](repeating: 0, count: 48_000) + phrase)
        let transcript = try PocketSphinxEngine().transcribe(audio)
        try #require(transcript.segments.count == 2)
        #expect(transcript.segments.map(\.text) == ["go forward ten meters", "go forward ten meters"])
        expectReference(transcript, offset: 2, in: transcript.segments[0])
        expectReference(transcript, offset: 2 + Double(phrase.count) / 16_000 + 3, in: transcript.segments[1])
    }

    /// Any file the store holds: here 44.1 kHz stereo, decoded to 16 kHz mono first.
    @Test func decodesOtherRatesAndChannels() throws {
        let phrase = try goForward().samples
        let scratch = try TemporaryDirectory()
        let path = scratch.path + "/stereo.wav"
        var up = Resampler(from: 16_000, to: 44_100, channels: 1)
        let floats = phrase.map { Float($0) / 32768 }
        let upsampled = floats.withUnsafeBufferPointer { up.process($0) } + up.finish()
        let stereo = upsampled.flatMap { [Int16(max(-32768, min(32767, ($0 * 32768).rounded()))), 0] }
        let file = try SoundFile.create(path: path, format: .wav, rate: 44_100, channels: 2)
        try stereo.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: $0.count / 2) }
        try file.close()

        let audio = try SpeechAudio.decode(path: path)
        #expect(abs(audio.duration - Double(phrase.count) / 16_000) < 0.001)
        let transcript = try Transcription.transcribe(file: path, with: PocketSphinxEngine())
        let segment = try #require(transcript.segments.first)
        #expect(segment.words.map(\.text).contains("forward"))
        #expect(segment.words.map(\.text).contains("meters"))
    }

    /// A LibriVox sentence with its reference transcription: key words are found, and every
    /// time lies within the clip.
    @Test func transcribesReadSpeech() throws {
        let path = Self.data + "/librivox/sense_and_sensibility_01_austen_64kb-0870.wav"
        let audio = try SpeechAudio.decode(path: path)
        let transcript = try PocketSphinxEngine().transcribe(audio)
        let words = transcript.segments.flatMap(\.words)
        for key in ["john", "leisure", "consider", "much", "power"] {
            #expect(words.contains { $0.text == key }, "\(key) in \"\(transcript.text)\"")
        }
        for word in words { #expect(0 <= word.start && word.end <= audio.duration + 0.01) }
    }

    @Test func reportsAMissingModel() {
        do {
            _ = try PocketSphinxEngine(acousticModel: "/nonexistent/hmm").transcribe(SpeechAudio(samples: [0, 0]))
            Issue.record("no error")
        } catch {
            #expect(
                error.description
                    == "transcribe: pocketsphinx: acoustic model not found: /nonexistent/hmm (install pocketsphinx-en-us)"
            )
        }
    }

    @Test(arguments: [
        ("<s>", nil), ("</s>", nil), ("<sil>", nil), ("[NOISE]", nil), ("++UH++", nil), ("to(2)", "to"), ("mr", "mr"),
    ])
    func keepsOnlySpokenWords(word: String, spoken: String?) {
        #expect(PocketSphinxEngine.spokenWord(word) == spoken)
    }
}

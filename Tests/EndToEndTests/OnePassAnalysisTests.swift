import Foundation
import RecAudio
import RecCore
import RecStore
import RecValues
import Testing

/// Analysis must not slow saving: `import` and `record` store the analysis
/// measured from the samples they write, in the same pass (`BackgroundAnalysis`), and crash
/// recovery from the decode that counts the frames. Each stored analysis is held to the
/// reference, `AudioAnalysis.analyze(path:)` of the saved file: the same value for lossless
/// audio, and within the codec's difference for Opus (`AnalysisPassTests` measures it).
@Suite("The analysis stored in the same pass as the audio")
struct OnePassAnalysisTests {
    /// The stored analysis of `/name`, and the reference measured from its file now.
    static func storedAndReference(_ cli: AudioCLI, _ name: String) throws -> (AudioAnalysis, AudioAnalysis) {
        let location = StoreLocation(directory: cli.store)
        let store = try DocumentStore(location: location)
        let item = try #require(store.document.child(named: name, in: .root), "\(name) was saved")
        let info = try #require(item.recording)
        let stored = try #require(info.analysis, "\(name) has its analysis")
        return (stored, try info.measureAnalysis(path: location.audioPath(info.file)))
    }

    /// Lossless: equal. Opus, of 48 kHz speech or tones: the tolerances `AnalysisPassTests`
    /// states (what the codec changes; noise it changes more, see there).
    static func expectClose(_ stored: AudioAnalysis, _ reference: AudioAnalysis, lossy: Bool, _ what: String) {
        guard lossy else {
            #expect(stored == reference, "\(what)")
            return
        }
        #expect(stored.frames == reference.frames && stored.sampleRate == reference.sampleRate, "\(what)")
        #expect(abs(stored.level.peak - reference.level.peak) <= 1, "\(what): \(stored.level) / \(reference.level)")
        #expect(abs(stored.level.rms - reference.level.rms) <= 0.2, "\(what): \(stored.level) / \(reference.level)")
        if let a = stored.loudness, let b = reference.loudness {
            #expect(abs(a.integrated - b.integrated) <= 0.1, "\(what): \(a) / \(b)")
            #expect(abs(a.truePeak - b.truePeak) <= 1, "\(what): \(a) / \(b)")
        } else {
            Issue.record("\(what): no loudness")
        }
        #expect(stored.speech.count == reference.speech.count, "\(what): \(stored.speech) / \(reference.speech)")
        print("\(what): stored \(stored.level), \(stored.loudness.map { "\($0)" } ?? "-"); decoded \(reference.level)")
    }

    /// Speech (pocketsphinx-testdata) when installed, else bursts of tone; 16 kHz mono.
    static func speech() -> [Int16] {
        var samples: [Int16] = []
        for name in ["goforward", "numbers", "something"] {
            let path = "/usr/share/pocketsphinx/test/data/\(name).raw"
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            samples += data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        }
        if samples.isEmpty {
            for _ in 0..<3 {
                samples += AudioCLI.tone(rate: 16000, frames: 16000) + [Int16](repeating: 0, count: 16000)
            }
        }
        return samples
    }

    static func writeWAV(_ samples: [Int16], rate: Int, channels: Int, to path: String) throws {
        let file = try SoundFile.create(path: path, format: .wav, rate: rate, channels: channels)
        try samples.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: $0.count / channels) }
        try file.close()
    }

    @Test(arguments: [
        (["--format", "wav"], false), (["--format", "flac"], false), (["--keep"], false), ([], true),
    ])
    func importStoresTheReferenceAnalysis(options: [String], lossy: Bool) throws {
        let cli = try AudioCLI()
        let speech16k = cli.home + "/speech16k.wav"
        try Self.writeWAV(Self.speech(), rate: 16000, channels: 1, to: speech16k)
        // At 48 kHz, the rate recnotes records at (sox resamples).
        let input = cli.home + "/speech.wav"
        let sox = try LevelledExportTests.run("/usr/bin/sox", [speech16k, "-r", "48000", input])
        #expect(sox.status == 0, "\(sox.stderr)")
        let result = try cli.run(["import", input, "--name", "talk"] + options)
        #expect(result.status == 0, "\(result.stderr)")
        let (stored, reference) = try Self.storedAndReference(cli, "talk")
        #expect(!stored.speech.isEmpty)
        Self.expectClose(stored, reference, lossy: lossy, "import \(options)")
    }

    /// 44.1 kHz stereo to Opus goes through the resampler: measured at the stored rate.
    @Test func resampledImport() throws {
        let cli = try AudioCLI()
        let input = cli.home + "/stereo.wav"
        let mono =
            AudioCLI.tone(rate: 44100, frames: 44100) + [Int16](repeating: 0, count: 44100)
            + AudioCLI.tone(frequency: 300, rate: 44100, frames: 44100, amplitude: 0.2)
        try Self.writeWAV(mono.flatMap { [$0, $0 / 2] }, rate: 44100, channels: 2, to: input)
        let result = try cli.run("import", input, "--name", "talk")
        #expect(result.status == 0, "\(result.stderr)")
        let (stored, reference) = try Self.storedAndReference(cli, "talk")
        #expect(stored.sampleRate == 48000)
        Self.expectClose(stored, reference, lossy: true, "import 44.1 kHz stereo → Opus")
    }

    @Test(arguments: [("wav", false), ("flac", false), ("opus", true)])
    func recordStoresTheReferenceAnalysis(format: String, lossy: Bool) throws {
        let cli = try AudioCLI()
        let quiet = [Int16](repeating: 0, count: 48_000)
        // Tones at two levels (white noise at full band Opus changes by several dB of peak).
        try cli.writeInput(
            quiet + AudioCLI.tone(frames: 48_000) + quiet
                + AudioCLI.tone(frequency: 250, frames: 48_000, amplitude: 0.1) + quiet)
        let result = try cli.run("record", "talk", "--format", format, "--duration", "5")
        #expect(result.status == 0, "\(result.stderr)")
        let (stored, reference) = try Self.storedAndReference(cli, "talk")
        #expect(stored.frames == 5 * 48_000)
        Self.expectClose(stored, reference, lossy: lossy, "record --format \(format)")
    }

    /// Crash recovery has no live samples: it measures in the decode that counts the frames,
    /// before a file the dead writer left unfinished is rewritten; what is stored is the
    /// analysis of the file as rewritten.
    @Test(arguments: ["wav", "flac"])
    func recoveryStoresTheReferenceAnalysis(format: String) throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.tone(frames: 48_000) + AudioCLI.noise(frames: 48_000))
        let killed = try cli.runUntil(
            "\"seconds\": 1.5", thenSend: SIGKILL, ["record", "Crashed", "--format", format, "--progress", "json"])
        #expect(killed.status == SIGKILL)
        #expect(try cli.run("ls").stderr.contains("recovered an interrupted recording"))
        let (stored, reference) = try Self.storedAndReference(cli, "Crashed (recovered)")
        #expect(stored.frames >= 48_000)
        Self.expectClose(stored, reference, lossy: false, "recovered \(format)")
    }
}

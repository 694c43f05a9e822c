import Foundation
import RecAudio
import RecCore
import RecTestSupport
import RecTranscripts
import Testing

/// `export --denoise` and `play --denoise`, measured on real speech
/// (pocketsphinx-testdata's five LibriVox sentences, at 48 kHz, a second of silence before,
/// between and after them) mixed with white noise at 20 dB SNR (seeded), imported, and
/// exported with `--denoise` through recnotes. Then, on what was written:
/// - the noise floor in the speech-free seconds drops by at least 10 dB;
/// - the level of the speech stays within -4/+3 dB of the clean speech;
/// - PocketSphinx's word error rate (the built-in engine) is no worse than on the noisy audio
///   plus 0.10.
/// The figures go to the log (and, with sox noisered's beside them, to bench/RESULTS.md).
@Suite("play and export --denoise: the noise floor, the speech level and the words", .serialized)
struct DenoiseTests {
    static let librivox = "/usr/share/pocketsphinx/test/data/librivox"
    static let rate = 48_000
    static var ready: Bool { FileManager.default.fileExists(atPath: librivox + "/fileids") }

    /// The clean speech, the noisy mix, and where the sentences are (frames).
    struct Fixture {
        var clean: [Float]
        var noisy: [Float]
        var sentences: [Range<Int>]
        var reference: String
    }

    static func run(_ program: String, _ arguments: [String]) throws -> Data {
        try FinishedProgram.run(program, arguments, environment: ProcessInfo.processInfo.environment).stdout
    }

    static func fixture(seed: UInt64) throws -> Fixture {
        let ids = try String(contentsOfFile: librivox + "/fileids", encoding: .utf8).split(separator: "\n")
        let transcription = try String(contentsOfFile: librivox + "/transcription", encoding: .utf8)
        var clean = [Float](repeating: 0, count: rate)
        var sentences: [Range<Int>] = []
        var reference: [String] = []
        for id in ids {
            // sox resamples to 48 kHz (its own high-quality filter) and gives raw floats.
            let data = try run(
                "/usr/bin/sox",
                ["\(librivox)/\(id).wav", "-r", "\(rate)", "-t", "raw", "-e", "floating-point", "-b", "32", "-"])
            let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            sentences.append(clean.count..<(clean.count + samples.count))
            clean += samples
            clean += [Float](repeating: 0, count: rate)
            let line = String(transcription.split(separator: "\n").first { $0.hasSuffix("(\(id))") } ?? "")
            reference.append(
                line.replacing("<s>", with: "").replacing("</s>", with: "").replacing("(\(id))", with: ""))
        }
        // White noise 20 dB below the speech (its RMS over the sentences), Gaussian (Box-Muller).
        var speechPower = 0.0
        for range in sentences { for i in range { speechPower += Double(clean[i] * clean[i]) } }
        speechPower /= Double(sentences.reduce(0) { $0 + $1.count })
        let sigma = (speechPower / 100).squareRoot()
        var rng = SeededRandom(seed: seed)
        var noisy = clean
        var i = 0
        while i < noisy.count {
            let u = Double.random(in: Double.ulpOfOne..<1, using: &rng)
            let v = Double.random(in: 0..<1, using: &rng)
            let r = (-2 * log(u)).squareRoot() * sigma
            noisy[i] += Float(r * cos(2 * .pi * v))
            if i + 1 < noisy.count { noisy[i + 1] += Float(r * sin(2 * .pi * v)) }
            i += 2
        }
        return Fixture(clean: clean, noisy: noisy, sentences: sentences, reference: reference.joined(separator: " "))
    }

    static func write(_ samples: [Float], to path: String) throws {
        let file = try SoundFile.create(path: path, format: .wav, rate: rate, channels: 1)
        let ints = samples.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
        try ints.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: $0.count) }
        try file.close()
    }

    static func decibels(_ power: Double) -> Double { 10 * log10(max(power, 1e-20)) }

    /// The figures of `output` (16-bit samples, the fixture's length) against the fixture.
    struct Figures {
        /// How far the floor in the speech-free seconds dropped from the noisy audio's, dB.
        var floorDrop: Double
        /// The speech's level against the clean speech's, dB.
        var speechLevel: Double
    }

    static func figures(_ output: [Int16], _ fixture: Fixture) -> Figures {
        let out = output.map { Double($0) / 32768 }
        // Speech-free: the silences between the sentences, 0.1 s in from each side.
        var free = [Bool](repeating: true, count: fixture.clean.count)
        for range in fixture.sentences {
            for i in max(0, range.lowerBound - rate / 10)..<min(free.count, range.upperBound + rate / 10) {
                free[i] = false
            }
        }
        var noisyFloor = 0.0
        var outFloor = 0.0
        var count = 0
        for i in 0..<min(out.count, free.count) where free[i] {
            noisyFloor += Double(fixture.noisy[i] * fixture.noisy[i])
            outFloor += out[i] * out[i]
            count += 1
        }
        // The speech: the 20 ms windows in the sentences where the speech is above the noise.
        let window = rate / 50
        let noisePower: Double = {
            var sum = 0.0
            for i in 0..<fixture.clean.count {
                let n = Double(fixture.noisy[i] - fixture.clean[i])
                sum += n * n
            }
            return sum / Double(fixture.clean.count)
        }()
        var cleanSpeech = 0.0
        var outSpeech = 0.0
        for range in fixture.sentences {
            var start = range.lowerBound
            while start + window <= min(range.upperBound, out.count) {
                var c = 0.0
                var o = 0.0
                for i in start..<(start + window) {
                    c += Double(fixture.clean[i] * fixture.clean[i])
                    o += out[i] * out[i]
                }
                if c / Double(window) > noisePower {
                    cleanSpeech += c
                    outSpeech += o
                }
                start += window
            }
        }
        return Figures(
            floorDrop: decibels(noisyFloor / Double(count)) - decibels(outFloor / Double(count)),
            speechLevel: decibels(outSpeech) - decibels(cleanSpeech))
    }

    static func wordErrorRate(_ path: String, _ fixture: Fixture) throws -> Double {
        let transcript = try Transcription.transcribe(file: path, with: PocketSphinxEngine())
        return WordErrorRate.rate(reference: fixture.reference, hypothesis: transcript.text)
    }

    /// The issue's bars, on what `export --denoise` writes; the figures go to the log.
    @Test(.enabled(if: ready, "needs pocketsphinx-testdata"))
    func meetsTheBars() throws {
        let cli = try AudioCLI()
        let fixture = try Self.fixture(seed: SeededRandom.seed(26))
        let noisy = cli.home + "/noisy.wav"
        try Self.write(fixture.noisy, to: noisy)
        #expect(try cli.run("import", noisy, "--name", "talk", "--format", "flac").status == 0)
        let out = cli.home + "/denoised.wav"
        let export = try cli.run("export", "talk", out, "--denoise")
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.isEmpty, "nothing of the library's on stderr: \(export.stderr)")
        let denoised = try AudioCLI.decode(out)
        #expect(denoised.count == fixture.noisy.count, "every frame, no more")
        let figures = Self.figures(denoised, fixture)
        let noisyFigures = Self.figures(try AudioCLI.decode(noisy), fixture)
        let werNoisy = try Self.wordErrorRate(noisy, fixture)
        let werDenoised = try Self.wordErrorRate(out, fixture)
        print(
            "export --denoise, speech at 20 dB SNR (white noise): floor \(String(format: "%.1f", figures.floorDrop)) dB lower, speech \(String(format: "%+.2f", figures.speechLevel)) dB from clean (noisy: \(String(format: "%+.2f", noisyFigures.speechLevel))), WER \(String(format: "%.3f", werNoisy)) noisy → \(String(format: "%.3f", werDenoised)) denoised"
        )
        #expect(figures.floorDrop >= 10, "floor drop \(figures.floorDrop) dB")
        #expect((-4...3).contains(figures.speechLevel), "speech level \(figures.speechLevel) dB")
        #expect(werDenoised <= werNoisy + 0.10, "WER \(werNoisy) → \(werDenoised)")
    }

    /// `play --denoise` on the file device plays what `export --denoise` writes, sample for
    /// sample (the same suppressor, primed the same way, on the same 16-bit samples).
    @Test(.enabled(if: ready, "needs pocketsphinx-testdata"))
    func playsWhatExportWrites() throws {
        let cli = try AudioCLI()
        let fixture = try Self.fixture(seed: SeededRandom.seed(27))
        let noisy = cli.home + "/noisy.wav"
        try Self.write(Array(fixture.noisy.prefix(fixture.sentences[1].upperBound)), to: noisy)
        #expect(try cli.run("import", noisy, "--name", "talk", "--format", "flac").status == 0)
        let out = cli.home + "/denoised.wav"
        #expect(try cli.run("export", "talk", out, "--denoise").status == 0)
        let play = try cli.run("play", "talk", "--denoise")
        #expect(play.status == 0, "\(play.stderr)")
        let played = cli.outputSamples()
        let written = try AudioCLI.decode(out)
        #expect(played.count == written.count, "every frame, no more")
        #expect(played == written, "the same samples")
        #expect(played != (try AudioCLI.decode(noisy)), "denoised")
    }

    /// With --speed, --level, trim points and --seek: every frame there, at the speed.
    @Test(.enabled(if: ready, "needs pocketsphinx-testdata"))
    func combinesWithSpeedLevelTrimAndSeek() throws {
        let cli = try AudioCLI()
        let fixture = try Self.fixture(seed: SeededRandom.seed(28))
        let noisy = cli.home + "/noisy.wav"
        let frames = fixture.sentences[1].upperBound
        try Self.write(Array(fixture.noisy.prefix(frames)), to: noisy)
        #expect(try cli.run("import", noisy, "--name", "talk", "--format", "flac").status == 0)
        let fast = try cli.run("play", "talk", "--denoise", "--speed", "1.5", "--level")
        #expect(fast.status == 0, "\(fast.stderr)")
        #expect(abs(Double(cli.outputSamples().count) - Double(frames) / 1.5) <= 2, "\(cli.outputSamples().count)")
        let seek = try cli.run("play", "talk", "--denoise", "--seek", "2", "--speed", "1")
        #expect(seek.status == 0, "\(seek.stderr)")
        #expect(cli.outputSamples().count == frames - 2 * Self.rate)
        #expect(try cli.run("trim", "talk", "--in", "1", "--out", "-1").status == 0)
        let out = cli.home + "/trimmed.flac"
        let export = try cli.run("export", "talk", out, "--trimmed", "--denoise", "--level", "-20", "--speed", "2")
        #expect(export.status == 0, "\(export.stderr)")
        #expect(abs(Double(try AudioCLI.decode(out).count) - Double(frames - 2 * Self.rate) / 2) <= 2)
    }

    /// Without the library: one line, the usage of a missing library as --speed gives it, and
    /// nothing written or played.
    @Test func aMissingLibraryIsOneLine() throws {
        let cli = try AudioCLI()
        try cli.writeInput(AudioCLI.noise(frames: Self.rate))
        #expect(try cli.run("record", "-p", "memo", "--duration", "1").status == 0)
        cli.extraEnvironment["RECNOTES_SPEEXDSP"] = cli.home + "/missing/libspeexdsp.so.1"
        let out = cli.home + "/out.wav"
        for command in [["export", "memo", out, "--denoise"], ["play", "memo", "--denoise"]] {
            let run = try cli.run(command)
            #expect(run.status == 1, "\(command[0]): \(run.stderr)")
            #expect(
                run.stderr.hasPrefix(
                    "recnotes: --denoise: cannot load the speexdsp library (install libspeexdsp1): "),
                "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(cli.outputSamples().isEmpty)
    }
}

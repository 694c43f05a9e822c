import Foundation
import RecSystem
import RecTestSupport
import RecValues
import Testing

@testable import RecAudio

@Suite("Audio engine: ring buffer, levels", .tags(.threads))
struct AudioEngineBasicsTests {
    @Test func ringKeepsOrderAcrossThreadsAndWraps() throws {
        let ring = SampleRing(minimumCapacity: 1000)
        #expect(ring.capacity == 1024)
        let total = 200_000
        let producer = try JoinableThread {
            var next = 0
            var chunk = [Int16](repeating: 0, count: 97)
            while next < total {
                let n = min(chunk.count, total - next)
                for i in 0..<n { chunk[i] = Int16(truncatingIfNeeded: next + i) }
                var pushed = 0
                while pushed < n {
                    pushed += chunk.withUnsafeBufferPointer { ring.write($0.baseAddress! + pushed, count: n - pushed) }
                    if pushed < n { usleep(50) }
                }
                next += n
            }
        }
        var received = 0
        var buffer = [Int16](repeating: 0, count: 300)
        var inOrder = true
        while received < total {
            let n = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0.baseAddress!, count: 300, multiple: 2) }
            #expect(n % 2 == 0)
            for i in 0..<n where buffer[i] != Int16(truncatingIfNeeded: received + i) { inOrder = false }
            received += n
            if n == 0 { usleep(50) }
        }
        producer.join()
        #expect(inOrder)
        #expect(ring.count == 0)
    }

    @Test func ringRefusesWhatDoesNotFit() {
        let ring = SampleRing(minimumCapacity: 8)
        let samples = [Int16](repeating: 7, count: 12)
        #expect(samples.withUnsafeBufferPointer { ring.write($0.baseAddress!, count: 12) } == 8)
        #expect(samples.withUnsafeBufferPointer { ring.write($0.baseAddress!, count: 1) } == 0)
    }

    @Test func levelsOfKnownSignals() {
        var meter = LevelMeter()
        #expect(meter.level == .silence)
        let tone = TestSignal.tone(frames: 48000, amplitude: 0.5)
        tone.withUnsafeBufferPointer { meter.add($0.baseAddress!, count: $0.count) }
        #expect(abs(meter.level.peak - (-6.02)) < 0.05)
        #expect(abs(meter.level.rms - (-9.03)) < 0.05)
        #expect(!meter.level.isClipping)
    }
}

@Suite("Audio engine through ALSA file devices", .tags(.threads))
struct AudioEngineDeviceTests {
    @Test(arguments: [AudioFormat.flac, .wav])
    func recordIsBitExact(format: AudioFormat) throws {
        let scratch = try AudioScratch()
        let input = TestSignal.noise(frames: 48000 * 2, channels: 2)
        try scratch.writeInput(input)
        let recorder = try Recorder(
            device: "capture", rate: 48000, channels: 2, frameLimit: 90_000,
            configuration: scratch.configuration)
        let file = try SoundFile.create(
            path: scratch.path + "/rec." + format.fileExtension, format: format, rate: 48000, channels: 2)
        var events: [AudioEvent] = []
        let frames = try recorder.run(into: file) { events.append($0) }
        try file.close()
        #expect(frames == 90_000)
        let progress = events.compactMap { event -> Int64? in
            if case .progress(let p) = event { return p.position.frames }
            return nil
        }
        // One progress event per tenth of a second of audio, counted in frames.
        #expect(progress == (1...18).map { Int64($0 * 4800) })
        guard case .started = events.first, case .finished(let f)? = events.last else {
            Issue.record("events: \(events.map(\.name))")
            return
        }
        #expect(f.position.frames == 90_000)
        let decoded = try readAll(scratch.path + "/rec." + format.fileExtension)
        #expect(decoded == Array(input.prefix(90_000 * 2)))
    }

    @Test func twoTogglesTakenTogetherAreAPauseAndAResume() throws {
        let scratch = try AudioScratch()
        let input = TestSignal.noise(frames: 48000)
        try scratch.writeInput(input)
        let recorder = try Recorder(
            device: "capture", rate: 48000, channels: 1, frameLimit: 24_000,
            configuration: scratch.configuration)
        // Queued before the loop starts, so its first turn takes both at once.
        recorder.controls.submit(.toggle, sequence: 1)
        recorder.controls.submit(.toggle, sequence: 2)
        let file = try SoundFile.create(path: scratch.path + "/rec.wav", format: .wav, rate: 48000, channels: 1)
        var events: [AudioEvent] = []
        // A slow listener holds the turn between the pause and the resume while the capture
        // thread reads on: none of what it reads meanwhile may be dropped.
        let frames = try recorder.run(into: file) { event in
            events.append(event)
            if event.name == "paused" { usleep(50_000) }
        }
        try file.close()
        #expect(events.map(\.name).filter { $0 == "paused" || $0 == "resumed" } == ["paused", "resumed"])
        #expect(recorder.controls.state.applied == 2)
        #expect(recorder.controls.state.paused == false)
        #expect(frames == 24_000)
        #expect(try readAll(scratch.path + "/rec.wav") == Array(input.prefix(24_000)))
    }

    @Test func playFromASeekIsSampleAccurate() throws {
        let scratch = try AudioScratch()
        let source = TestSignal.noise(frames: 48000 * 3)
        let path = scratch.path + "/src.flac"
        let writer = try SoundFile.create(path: path, format: .flac, rate: 48000, channels: 1)
        try source.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: $0.count) }
        try writer.close()
        let file = try SoundFile.open(path: path)
        let player = try Player(file: file, device: "playback", configuration: scratch.configuration)
        var events: [AudioEvent] = []
        let (end, ending) = try player.run(from: 50_001, until: 120_000) { events.append($0) }
        #expect(ending == .completed)
        #expect(end.frames == 120_000)
        #expect(scratch.outputSamples() == Array(source[50_001..<120_000]))
        #expect(events.first?.name == "started")
        #expect(events.last?.name == "finished")
    }

    @Test(arguments: [AudioFormat.opus, .vorbis, .mp3])
    func lossyRoundTripKeepsTheTone(format: AudioFormat) throws {
        let scratch = try AudioScratch()
        let tone = TestSignal.tone(frames: 48000 * 2, amplitude: 0.5)
        let path = scratch.path + "/tone." + format.fileExtension
        let writer = try SoundFile.create(path: path, format: format, rate: 48000, channels: 1)
        try tone.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: $0.count) }
        try writer.close()
        let decoded = try readAll(path)
        let snr = TestSignal.snr(reference: tone, decoded: decoded)
        #expect(snr >= 20, "\(format): \(snr) dB")
    }

    @Test(arguments: [AudioFormat.flac, .wav])
    func losslessRoundTrip(format: AudioFormat) throws {
        let scratch = try AudioScratch()
        let signal = TestSignal.noise(frames: 30_011, channels: 2)
        let path = scratch.path + "/x." + format.fileExtension
        let writer = try SoundFile.create(path: path, format: format, rate: 44100, channels: 2)
        try signal.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: 30_011) }
        try writer.close()
        let reader = try SoundFile.open(path: path)
        #expect(reader.frames == 30_011 && reader.sampleRate == 44100 && reader.channels == 2)
        #expect(reader.audioFormat == format)
        #expect(try readAll(path) == signal)
    }

    @Test func missingDeviceNamesTheDeviceAndALSAsReason() {
        do {
            _ = try PCM(name: "no_such_device", direction: .capture, rate: 48000, channels: 1)
            Issue.record("opened a device that does not exist")
        } catch let error as AudioError {
            #expect(error.subject == .device("no_such_device"))
            #expect(error.recError.description.hasPrefix("audio device \"no_such_device\": cannot open for capture: "))
            #expect(error.recError.exitCode == 1)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func corruptFileIsAnError() throws {
        let scratch = try AudioScratch()
        let path = scratch.path + "/bad.flac"
        try Data(repeating: 0x41, count: 5000).write(to: URL(fileURLWithPath: path))
        #expect(throws: AudioError.self) { try SoundFile.open(path: path) }
    }

    func readAll(_ path: String) throws -> [Int16] {
        let file = try SoundFile.open(path: path)
        var result: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 4096 * file.channels)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, frames: 4096) }
            if n == 0 { break }
            result += buffer[0..<(n * file.channels)]
        }
        return result
    }
}

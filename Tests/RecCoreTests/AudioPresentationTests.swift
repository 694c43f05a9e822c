import RecValues
import Testing

@testable import RecAudio
@testable import RecCore

/// The engine's values as text: levels, progress, events, the voice gate's state, and the
/// names imported files get.
@Suite("Audio presentation")
struct AudioPresentationTests {
    @Test func presentationText() {
        #expect(Format.decibels(-12.34) == "-12.3 dBFS")
        #expect(Format.decibels(Level.floor) == "-inf dBFS")
        #expect(
            Format.loudness(Loudness(integrated: -18.25, range: 6.1, truePeak: -1.34))
                == "-18.3 LUFS, range 6.1 LU, true peak -1.3 dBTP")
        #expect(
            Format.loudness(Loudness(integrated: Loudness.gate, range: 0, truePeak: Level.floor))
                == "below -70.0 LUFS, range 0.0 LU, true peak -inf dBTP")
        #expect(
            Format.loudness(Loudness(integrated: -0.04, range: 0.5, truePeak: 0.3))
                == "0.0 LUFS, range 0.5 LU, true peak 0.3 dBTP")  // no "-0.0"
        #expect(Format.levelBar(0, width: 4) == "████")
        #expect(Format.levelBar(-30, width: 4) == "██░░")
        #expect(Format.levelBar(-100, width: 4) == "░░░░")
        #expect(Format.progressBar(0, width: 5) == "[>----]")
        #expect(Format.progressBar(0.5, width: 5) == "[==>--]")
        #expect(Format.progressBar(1, width: 5) == "[=====]")
        let t = Timestamp(millisecondsSinceEpoch: 0)
        #expect(Format.defaultRecordingName(t).hasPrefix("Recording 19"))
    }

    @Test func eventsAsJSONLines() {
        let p = AudioPosition(frames: 4800, sampleRate: 48000)
        let line = AudioEventJSON.line(
            .progress(.init(position: p, level: Level(peak: -6.02, rms: -9.03), bytes: 100, total: nil)))
        #expect(
            line
                == #"{"event": "progress", "frames": 4800, "seconds": 0.1, "peakDBFS": -6.02, "rmsDBFS": -9.03, "bytes": 100}"#
        )
        #expect(AudioEventJSON.line(.paused(p)) == #"{"event": "paused", "frames": 4800, "seconds": 0.1}"#)
    }

    @Test("what the live line says")
    func voiceLine() {
        #expect(Format.voice(VoiceState(waiting: true, silence: 12, silenceLimit: 5)) == "waiting for voice")
        #expect(Format.voice(VoiceState(waiting: false, silence: 3.4, silenceLimit: 5)) == "silence 00:03 / 00:05")
        #expect(Format.voice(VoiceState(waiting: false, silence: 0.4, silenceLimit: 5)) == nil)
        #expect(Format.voice(VoiceState(waiting: false, silence: 3, silenceLimit: nil)) == nil)
    }

    @Test func namesComeFromFileNames() {
        #expect(Importer.defaultName(for: "/tmp/Team Standup.flac") == "Team Standup")
        #expect(Importer.defaultName(for: "a.b.wav") == "a.b")
        #expect(Importer.defaultName(for: ".hidden") == ".hidden")
        #expect(Importer.defaultName(for: "noext") == "noext")
        #expect(AudioFormat(fileName: "x/y.OGG") == .vorbis)
        #expect(AudioFormat(fileName: "x.opus") == .opus)
        #expect(AudioFormat(fileName: "x.dir/noext") == nil)
    }
}

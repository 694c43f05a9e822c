import Foundation
import RecValues
import Testing

@testable import RecAudio

/// The speed changed while playing, through the player's mailbox as keys and
/// `recnotes speed` reach it: asked for from the event callback, so it lands at a known
/// point of a file device that runs faster than real time. No click: the largest step
/// between neighbouring samples stays within what the tone itself has.
@Suite("Speed changed mid-play (Player)")
struct PlayerSpeedChangeTests {
    static let rate = 48_000
    static let stretcherInstalled = FileManager.default.fileExists(
        atPath: "/usr/lib/x86_64-linux-gnu/libSoundTouchDll.so.1")

    /// A 3 s 440 Hz tone as WAV, and a player of it on the scratch's file device.
    static func player(_ scratch: AudioScratch, speed: PlaybackSpeed = .normal) throws -> (Player, [Int16]) {
        let tone = TestSignal.tone(frames: 3 * rate)
        let path = scratch.path + "/tone.wav"
        let writer = try SoundFile.create(path: path, format: .wav, rate: rate, channels: 1)
        try tone.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: $0.count) }
        try writer.close()
        let player = try Player(
            file: try SoundFile.open(path: path), device: "playback", configuration: scratch.configuration,
            speed: speed)
        return (player, tone)
    }

    static func largestStep(_ samples: [Int16]) -> Int {
        zip(samples, samples.dropFirst()).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// Plays the tone, asking for `changes` when the progress passes each of their times.
    static func play(
        _ player: Player, changes: [(seconds: Double, steps: Int?)]
    ) throws -> (events: [AudioEvent], end: AudioPosition) {
        var events: [AudioEvent] = []
        var pending = changes
        let (end, ending) = try player.run(from: 0, until: Int64(3 * rate)) { event in
            events.append(event)
            if case .progress(let p) = event, let next = pending.first, p.position.seconds >= next.seconds {
                pending.removeFirst()
                player.changeSpeed(by: next.steps)
            }
        }
        #expect(ending == .completed)
        #expect(pending.isEmpty)
        return (events, end)
    }

    static func speedEvents(_ events: [AudioEvent]) -> [(AudioPosition, PlaybackSpeed)] {
        events.compactMap { if case .speedChanged(let p, let s) = $0 { (p, s) } else { nil } }
    }

    /// From 1× (no stretcher) to 2× at 1 s: the stretcher is made on the audio thread and
    /// fed the rest of the chunk; the first second plays as it is, the other two in one.
    @Test(.enabled(if: stretcherInstalled))
    func fromOneToTwoStartsTheStretcherWithoutAClick() throws {
        let scratch = try AudioScratch()
        let (player, tone) = try Self.player(scratch)
        #expect(player.stretch == nil)
        let (events, end) = try Self.play(player, changes: [(1, 4)])
        #expect(player.stretch?.speed == PlaybackSpeed(factor: 2))
        let changed = Self.speedEvents(events)
        #expect(changed.map(\.1) == [PlaybackSpeed(factor: 2)!])
        // Where the listener was: at most the device's buffer (0.5 s) behind what was written.
        let at = try #require(changed.first?.0.seconds)
        #expect(at > 0.4 && at <= 1.1, "\(at) s")
        #expect(end.frames == Int64(3 * Self.rate))
        let written = scratch.outputSamples()
        let expected = Double(Self.rate) * (1 + 2.0 / 2)
        #expect(abs(Double(written.count) - expected) <= expected * 0.05, "\(written.count) frames")
        // What was written at 1× before the change is the tone itself, sample for sample.
        #expect(Array(written.prefix(Self.rate / 2)) == Array(tone.prefix(Self.rate / 2)))
        let step = Self.largestStep(written)
        #expect(step <= Self.largestStep(tone) * 5 / 4, "largest step \(step), the tone's \(Self.largestStep(tone))")
        // Progress goes on in the recording's time: a tenth of a second each, to the end.
        let progress = events.compactMap { if case .progress(let p) = $0 { p.position.frames } else { nil } }
        #expect(progress == (1...30).map { Int64($0 * Self.rate / 10) })
    }

    /// Already stretched: 1.5× slowed to 0.75× at 1 s, then back to 1× at 2 s (the
    /// stretcher stays, at 1×, so what it holds is not lost).
    @Test(.enabled(if: stretcherInstalled))
    func aRunningStretcherChangesWithoutAClick() throws {
        let scratch = try AudioScratch()
        let (player, tone) = try Self.player(scratch, speed: PlaybackSpeed(factor: 1.5)!)
        let (events, end) = try Self.play(player, changes: [(1, -3), (2, nil)])
        #expect(Self.speedEvents(events).map(\.1) == [PlaybackSpeed(factor: 0.75)!, .normal])
        #expect(player.stretch?.speed == .normal)
        #expect(end.frames == Int64(3 * Self.rate))
        let written = scratch.outputSamples()
        let expected = Double(Self.rate) * (1 / 1.5 + 1 / 0.75 + 1)
        #expect(abs(Double(written.count) - expected) <= expected * 0.05, "\(written.count) frames")
        let step = Self.largestStep(written)
        #expect(step <= Self.largestStep(tone) * 5 / 4, "largest step \(step), the tone's \(Self.largestStep(tone))")
    }

    /// Steps are held inside 0.25-4 and a change to the speed it has is no event.
    @Test(.enabled(if: stretcherInstalled))
    func stepsStopAtTheEnds() throws {
        let scratch = try AudioScratch()
        let (player, _) = try Self.player(scratch, speed: PlaybackSpeed(factor: 3.75)!)
        let (events, _) = try Self.play(player, changes: [(0.5, 1), (1, 1), (2, nil)])
        #expect(Self.speedEvents(events).map(\.1) == [PlaybackSpeed(factor: 4)!, .normal])
    }
}

import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// One effect of the chain the player, the exporter and the transcriber send audio through
/// (`AudioChain`): fed interleaved frames in order, it appends what it has ready, and at the
/// end (`finish`) what it still holds.
///
/// Float samples are full scale ±1 (the exporter's); 16-bit ones are the player's and the
/// transcriber's. An effect that works on floats alone takes 16-bit audio through them:
/// scaled by 2^15 each way, rounded and clipped.
package protocol AudioProcessor: AnyObject {
    func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float])
    /// What is still held; then the effect starts afresh, as after `reset`.
    func finish(into output: inout [Float])
    func process(_ input: UnsafeBufferPointer<Int16>, into output: inout [Int16])
    func finish(into output: inout [Int16])
    /// Forgets what was fed (a seek or a pause of the player): the next frame starts afresh.
    func reset()
}

extension AudioProcessor {
    package func process(_ input: UnsafeBufferPointer<Int16>, into output: inout [Int16]) {
        var out: [Float] = []
        input.map { Float($0) / 32768 }.withUnsafeBufferPointer { process($0, into: &out) }
        AudioChain.append(out, to: &output)
    }

    package func finish(into output: inout [Int16]) {
        var out: [Float] = []
        finish(into: &out)
        AudioChain.append(out, to: &output)
    }
}

/// What a playback or an export does to the audio, resolved from its options (and the
/// recording's stored enhancement): `AudioChain` makes the effects' order out of it.
package struct AudioEffects {
    /// `--denoise`: the suppressor, primed by its user (it learns the noise from what is about
    /// to play or be written).
    package var denoise: Denoiser?
    /// `--speed`: at 1× no stretcher is made (and SoundTouch is not opened).
    package var speed: PlaybackSpeed
    /// `--gain`, dB; nil or 0 changes nothing.
    package var gain: Double?
    /// `--level`: the leveller to the target loudness, at the output's rate.
    package var level: Leveller?

    package init(denoise: Denoiser? = nil, speed: PlaybackSpeed = .normal, gain: Double? = nil, level: Leveller? = nil)
    {
        self.denoise = denoise
        self.speed = speed
        self.gain = gain
        self.level = level
    }
}

/// The effects in their one order: denoise → stretch → resample → gain → level.
///
/// The suppressor first, so that it learns the noise as recorded (`Denoiser` says why); the
/// stretcher at the source's rate, before a resampler, so that its analysis sees the audio as
/// recorded; the leveller last, at the output's rate, so that nothing after its limiter raises
/// a peak again. The gain comes just before it: with `--level` too, the limiter still holds
/// the peaks (the loudness lands that many dB from the target); alone, it is last, and what
/// would pass full scale is clipped there.
///
/// Each effect gives back as many frames as it is fed (the stretcher as many as the speed
/// makes, the resampler as the rates do), late by its own latency, which `finish` gives back.
package final class AudioChain {
    package let denoise: Denoiser?
    /// Also made while playing, at a first speed change from 1× (`Player`).
    package var stretch: TimeStretch? { didSet { stages = order() } }
    package let gain: Gain?
    package let level: Leveller?
    private let resample: Resampling?
    private var stages: [any AudioProcessor] = []
    /// What each stage gave, kept between calls (their capacity is reused).
    private var floats: [[Float]] = []
    private var shorts: [[Int16]] = []

    /// `rate` and `channels`: the source's. `resampler`: to the output's rate, when it differs.
    package init(_ effects: AudioEffects, rate: Int, channels: Int, resampler: Resampler? = nil) throws(RecError) {
        denoise = effects.denoise
        stretch =
            effects.speed.isNormal ? nil : try TimeStretch(rate: rate, channels: channels, speed: effects.speed)
        resample = resampler.map(Resampling.init)
        gain = effects.gain.flatMap { $0 == 0 ? nil : Gain(decibels: $0, clipping: effects.level == nil) }
        level = effects.level
        stages = order()
    }

    private func order() -> [any AudioProcessor] {
        let all: [(any AudioProcessor)?] = [denoise, stretch, resample, gain, level]
        return all.compactMap { $0 }
    }

    /// No effect: the frames can go from the file to the device (or the target) as they are.
    package var isEmpty: Bool { stages.isEmpty }

    package func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        run(input, finishing: false, into: &output, scratch: &floats)
    }

    /// What every effect still holds, through the ones after it; then each starts afresh.
    package func finish(into output: inout [Float]) {
        run(UnsafeBufferPointer(start: nil, count: 0), finishing: true, into: &output, scratch: &floats)
    }

    package func process(_ input: UnsafeBufferPointer<Int16>, finishing: Bool = false, into output: inout [Int16]) {
        run(input, finishing: finishing, into: &output, scratch: &shorts)
    }

    package func finish(into output: inout [Int16]) {
        run(UnsafeBufferPointer(start: nil, count: 0), finishing: true, into: &output, scratch: &shorts)
    }

    /// A seek or a pause: every effect forgets what it was fed.
    package func reset() {
        for stage in stages { stage.reset() }
    }

    /// `input` through each stage in turn; with `finishing`, each stage's `finish` follows its
    /// last input, and what it gives goes on through the stages after it.
    private func run<Sample: AudioSample>(
        _ input: UnsafeBufferPointer<Sample>, finishing: Bool, into output: inout [Sample], scratch: inout [[Sample]]
    ) {
        guard !stages.isEmpty else { return output.append(contentsOf: input) }
        while scratch.count < stages.count { scratch.append([]) }
        for (index, stage) in stages.enumerated() {
            var out = scratch[index]
            scratch[index] = []
            out.removeAll(keepingCapacity: true)
            if index == 0 {
                Sample.process(stage, input, into: &out)
            } else {
                scratch[index - 1].withUnsafeBufferPointer { Sample.process(stage, $0, into: &out) }
            }
            if finishing { Sample.finish(stage, into: &out) }
            scratch[index] = out
        }
        output.append(contentsOf: scratch[stages.count - 1])
    }

    /// Floats (full scale ±1) to 16-bit samples, rounded and clipped.
    static func append(_ samples: [Float], to output: inout [Int16]) {
        output.reserveCapacity(output.count + samples.count)
        for x in samples { output.append(Int16(max(-32768, min(32767, (x * 32768).rounded())))) }
    }
}

/// The two sample types a chain carries, and which of an effect's methods takes each.
protocol AudioSample {
    static func process(_ stage: any AudioProcessor, _ input: UnsafeBufferPointer<Self>, into output: inout [Self])
    static func finish(_ stage: any AudioProcessor, into output: inout [Self])
}

extension Float: AudioSample {
    static func process(_ stage: any AudioProcessor, _ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        stage.process(input, into: &output)
    }
    static func finish(_ stage: any AudioProcessor, into output: inout [Float]) { stage.finish(into: &output) }
}

extension Int16: AudioSample {
    static func process(_ stage: any AudioProcessor, _ input: UnsafeBufferPointer<Int16>, into output: inout [Int16]) {
        stage.process(input, into: &output)
    }
    static func finish(_ stage: any AudioProcessor, into output: inout [Int16]) { stage.finish(into: &output) }
}

/// `--gain DB`: every sample times one factor. `clipping` (when nothing comes after it):
/// what would pass full scale is held at it, rather than left to wrap in an encoder.
package final class Gain: AudioProcessor {
    package let factor: Float
    let clipping: Bool

    package init(decibels: Double, clipping: Bool = true) {
        factor = Float(pow(10, decibels / 20))
        self.clipping = clipping
    }

    package func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        output.reserveCapacity(output.count + input.count)
        if clipping {
            for x in input { output.append(max(-1, min(1, x * factor))) }
        } else {
            for x in input { output.append(x * factor) }
        }
    }

    package func process(_ input: UnsafeBufferPointer<Int16>, into output: inout [Int16]) {
        output.reserveCapacity(output.count + input.count)
        for x in input { output.append(Int16(max(-32768, min(32767, (Float(x) * factor).rounded())))) }
    }

    package func finish(into output: inout [Float]) {}
    package func finish(into output: inout [Int16]) {}
    package func reset() {}
}

/// The resampler as a stage of the chain (the exporter's, for a target that cannot take the
/// source's rate).
final class Resampling: AudioProcessor {
    private var resampler: Resampler

    init(_ resampler: Resampler) { self.resampler = resampler }

    func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        output += resampler.process(input)
    }

    func finish(into output: inout [Float]) { output += resampler.finish() }

    func reset() {
        resampler = Resampler(
            from: resampler.inputRate, to: resampler.outputRate, channels: resampler.channels)
    }
}

extension Denoiser: AudioProcessor {
    package func process(_ input: UnsafeBufferPointer<Int16>, into output: inout [Int16]) {
        process(input, finishing: false, into: &output)
    }

    package func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        process(input, finishing: false, into: &output)
    }
}

extension TimeStretch: AudioProcessor {
    package func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        guard let start = input.baseAddress, !input.isEmpty else { return }
        process(start, frames: input.count / channels, into: &output)
    }

    package func process(_ input: UnsafeBufferPointer<Int16>, into output: inout [Int16]) {
        guard let start = input.baseAddress, !input.isEmpty else { return }
        process(start, frames: input.count / channels, into: &output)
    }
}

extension Leveller: AudioProcessor {}

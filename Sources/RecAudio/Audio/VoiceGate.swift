/// What `record --start-on-voice`, `--pre-roll` and `--stop-on-silence` ask of a `Recorder`.
package struct VoiceTrigger: Equatable, Sendable {
    /// Write nothing until the detector hears speech; then start `preRoll` seconds before
    /// the onset it reports.
    package var startOnVoice: Bool
    package var preRoll: Double
    /// Stop once this many seconds of continuous silence have passed (after speech, or from
    /// the start if there is none).
    package var stopOnSilence: Double?
    /// The detector's settings (`--silence-threshold`).
    package var detector: VoiceActivityConfiguration

    package init(
        startOnVoice: Bool = false, preRoll: Double = 0.5, stopOnSilence: Double? = nil,
        detector: VoiceActivityConfiguration = .init()
    ) {
        self.startOnVoice = startOnVoice
        self.preRoll = preRoll
        self.stopOnSilence = stopOnSilence
        self.detector = detector
    }
}

/// Where a gated recording is, for the progress line and the NDJSON events.
package struct VoiceState: Equatable, Sendable {
    /// `--start-on-voice` and no speech yet: nothing is being written.
    package var waiting: Bool
    /// Seconds since the last speech (since the start, before any).
    package var silence: Double
    /// `--stop-on-silence`: the silence that stops the recording.
    package var silenceLimit: Double?
}

/// The stage between the capture ring and the file when a `VoiceTrigger` is set. It runs on
/// the writer's thread, on the frames the capture thread delivered, and decides which of
/// them the file gets: none while waiting for voice (the last few seconds are held back, so
/// that the pre-roll can still be written), then all of them, up to the frame at which the
/// silence has lasted long enough. It knows nothing of stores or files.
struct VoiceGate {
    let trigger: VoiceTrigger
    let channels: Int
    let rate: Int
    private(set) var detector: VoiceActivityDetector
    let preRollFrames: Int64
    let stopFrames: Int64?
    /// Frames held back while waiting, interleaved: the captured frames `heldStart..<captured`.
    private var held: [Int16] = []
    private var heldStart: Int64 = 0
    let heldCapacity: Int64
    /// Frames the gate has been given.
    private(set) var captured: Int64 = 0
    /// The captured frame the file starts at, once it does.
    private(set) var fileStart: Int64?
    /// Set once the silence ran out: the file ends here (in captured frames).
    private(set) var stoppedAt: Int64?

    init(trigger: VoiceTrigger, rate: Int, channels: Int) {
        self.trigger = trigger
        self.rate = rate
        self.channels = channels
        detector = VoiceActivityDetector(sampleRate: rate, channels: channels, configuration: trigger.detector)
        preRollFrames = Int64((max(trigger.preRoll, 0) * Double(rate)).rounded())
        stopFrames = trigger.stopOnSilence.map { Int64(($0 * Double(rate)).rounded()) }
        heldCapacity = preRollFrames + detector.lookback + Int64(rate)
        if !trigger.startOnVoice { fileStart = 0 }
    }

    var isWaiting: Bool { fileStart == nil }
    var isStopped: Bool { stoppedAt != nil }

    var state: VoiceState {
        VoiceState(
            waiting: isWaiting, silence: Double(detector.silenceRun) / Double(rate), silenceLimit: trigger.stopOnSilence
        )
    }

    /// What the file gets of the frames just captured.
    enum Pass {
        /// Nothing (still waiting for voice, or stopped).
        case nothing
        /// The first `frames` of them.
        case frames(Int)
        /// Speech started: these held-back samples (the pre-roll and what followed,
        /// this chunk included) start the file.
        case held([Int16])
    }

    /// Decides what of `count` captured frames at `samples` goes to the file. Once the
    /// silence has lasted `stopOnSilence`, nothing more does.
    mutating func pass(_ samples: UnsafePointer<Int16>, frames count: Int) -> Pass {
        guard !isStopped, count > 0 else { return .nothing }
        if isWaiting {
            let events = detector.feed(samples, frames: count)
            hold(samples, frames: count)
            captured += Int64(count)
            guard
                let onset = events.lazy.compactMap({
                    if case .speechStarted(let at) = $0 { return at } else { return nil }
                }).first
            else {
                return .nothing
            }
            let start = max(onset - preRollFrames, heldStart)
            fileStart = start
            let opening = Array(held[(Int(start - heldStart) * channels)...])
            held = []
            return .held(opening)
        }
        guard let stopFrames else {
            _ = detector.feed(samples, frames: count)
            captured += Int64(count)
            return .frames(count)
        }
        // Up to each of the detector's block boundaries (it has seen every captured frame,
        // so they fall at multiples of its block), so that the file ends at the block where
        // the silence has lasted long enough, however the audio was cut into chunks.
        let block = Int64(detector.blockFrames)
        var offset = 0
        while offset < count {
            let n = min(Int(block - (captured + Int64(offset)) % block), count - offset)
            _ = detector.feed(samples + offset * channels, frames: n)
            offset += n
            if detector.silenceRun >= stopFrames {
                stoppedAt = captured + Int64(offset)
                break
            }
        }
        captured += Int64(offset)
        return .frames(offset)
    }

    /// Where the speech region that ended last ends (its last active block plus the
    /// detector's post-roll), in frames of the file; nil if the file holds no speech.
    var speechEndInFile: Int64? {
        guard let fileStart, detector.frames > detector.silenceRun else { return nil }
        let end = detector.frames - detector.silenceRun + Int64(trigger.detector.postRoll * Double(rate))
        return end > fileStart ? min(end, detector.frames) - fileStart : nil
    }

    private mutating func hold(_ samples: UnsafePointer<Int16>, frames count: Int) {
        held.append(contentsOf: UnsafeBufferPointer(start: samples, count: count * channels))
        let excess = Int64(held.count / channels) - heldCapacity
        if excess > 0 {
            held.removeFirst(Int(excess) * channels)
            heldStart += excess
        }
    }
}

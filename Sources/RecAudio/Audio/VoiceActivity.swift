#if canImport(Glibc)
    import Glibc
#endif

// Voice activity: where in a stream of Int16 frames someone is speaking.
//
// recnotes must never cut speech and never throw audio away, so when in doubt this says
// "speech": silence is only what is clearly the room's own sound. The cues (energy in a voice
// band and a fricative band, each against its own minimum-statistic noise floor that also
// steps at once to a steady new room level), the margin, onset, hangover and post-roll, and
// why each is what it is, are in docs/design/voice-activity.md.
//
// It is a pure function of the samples: no clock, no randomness, and the same frames give the
// same events however they are split into chunks (blocks are cut by frame count, and a
// partial block waits for the next chunk or for `finish()`).

/// What a `VoiceActivityDetector` decides, in frames of its input.
package struct VoiceActivityConfiguration: Equatable, Sendable {
    /// How far (dB) a band must rise above its noise floor for a block to count as speech.
    package var margin: Double = 4
    /// If set, a fixed level (dBFS, of the speech bands) replaces the adaptive floor.
    package var silenceThreshold: Double?
    /// Below this level (dBFS, of the speech bands) nothing is speech, whatever the floor: the
    /// floor of digital silence is -inf and dither is not a voice.
    package var minimumLevel: Double = -72
    /// Seconds of audio kept before the first active block of a region.
    package var preRoll: Double = 0.25
    /// Seconds of silence after its last active block that end a region (shorter pauses
    /// between words stay inside it). Decides *when* a region is over, not where it ends.
    package var hangover: Double = 0.5
    /// Seconds a region keeps after its last active block: where it ends.
    package var postRoll: Double = 0.15
    /// Seconds over which the noise floor is the minimum.
    package var floorWindow: Double = 2.4
    /// Seconds a band's level must hold within `steadyRange` dB for the floor to step up to it
    /// at once, if it is below `steadyCeiling` (dBFS, of the band).
    package var steadyWindow: Double = 0.4
    package var steadyRange: Double = 6
    package var steadyCeiling: Double = -40
    /// An onset is `onsetBlocks` active 10 ms blocks among the last `onsetWindow`.
    package var onsetBlocks: Int = 2
    package var onsetWindow: Int = 3

    package init(silenceThreshold: Double? = nil) {
        self.silenceThreshold = silenceThreshold
    }
}

/// What happened in the stream, at which frame (of the input, counting from 0).
package enum VoiceActivityEvent: Equatable, Sendable {
    /// Speech starts at this frame (already including the pre-roll, so it is in the past when
    /// reported: at most `lookback` frames before the frames fed so far).
    case speechStarted(at: Int64)
    /// Speech ended at this frame (the last active block plus the post-roll; reported once
    /// the hangover has passed, so it is in the past).
    case speechEnded(at: Int64)
}

/// A second-order IIR section (RBJ cookbook), transposed direct form II.
struct Biquad: Sendable {
    var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    var z1 = 0.0, z2 = 0.0

    enum Kind { case lowPass, highPass }

    init(_ kind: Kind, frequency: Double, q: Double, rate: Int) {
        let f = min(frequency, 0.45 * Double(rate))
        let w = 2 * Double.pi * f / Double(rate)
        let alpha = sin(w) / (2 * q)
        let c = cos(w)
        let a0 = 1 + alpha
        switch kind {
        case .lowPass:
            b0 = (1 - c) / 2 / a0
            b1 = (1 - c) / a0
            b2 = b0
        case .highPass:
            b0 = (1 + c) / 2 / a0
            b1 = -(1 + c) / a0
            b2 = b0
        }
        a1 = -2 * c / a0
        a2 = (1 - alpha) / a0
    }

    @inline(__always)
    mutating func run(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}

/// The minimum of a band's smoothed energy over a sliding window, kept as sub-window minima,
/// that also steps up at once to a quiet level that has held steady for a short window.
struct NoiseFloor: Sendable {
    private var ring: [Double]
    private var next = 0
    private var current = Double.infinity
    private var filled = 0
    private let subLength: Int
    private var smoothed = -1.0
    /// The last `steadyBlocks` smoothed energies, oldest overwritten first.
    private var recent: [Double]
    private var recentNext = 0
    private var recentCount = 0
    private let steadyRatio: Double, steadyCeiling: Double

    init(
        windowBlocks: Int, subLength: Int, steadyBlocks: Int = 40, steadyRatio: Double = 4, steadyCeiling: Double = 1e-4
    ) {
        self.subLength = max(subLength, 1)
        ring = [Double](repeating: .infinity, count: max(windowBlocks / self.subLength - 1, 1))
        recent = [Double](repeating: 0, count: max(steadyBlocks, 1))
        self.steadyRatio = steadyRatio
        self.steadyCeiling = steadyCeiling
    }

    /// Adds one block's energy (linear, mean square) and returns the floor (linear), and
    /// whether it stepped up to a steady level in this block.
    mutating func add(_ energy: Double) -> (floor: Double, steppedUp: Bool) {
        // Smoothing over ~3 blocks: the minimum of raw 10 ms energies sits well below the mean
        // of the noise; of smoothed ones, close to it.
        smoothed = smoothed < 0 ? energy : smoothed + 0.3 * (energy - smoothed)
        current = min(current, smoothed)
        filled += 1
        var floor = current
        for m in ring where m < floor { floor = m }
        recent[recentNext] = smoothed
        recentNext = (recentNext + 1) % recent.count
        recentCount = min(recentCount + 1, recent.count)
        var steppedUp = false
        if recentCount == recent.count {
            var low = Double.infinity
            var high = 0.0
            for e in recent {
                low = min(low, e)
                high = max(high, e)
            }
            // A level that has not moved by more than `steadyRatio` for the whole short window,
            // quiet enough to be a room (speech moves by 10 dB and more from syllable to
            // syllable; a held vowel or tone at speaking level is above the ceiling), and 2 dB
            // or more above the floor: the room's new level. Forget the quieter past.
            if low > 0, high <= low * steadyRatio, high <= steadyCeiling, low > floor * 1.6 {
                for i in ring.indices { ring[i] = low }
                current = low
                floor = low
                steppedUp = true
            }
        }
        if filled == subLength {
            ring[next] = current
            next = (next + 1) % ring.count
            current = .infinity
            filled = 0
        }
        return (floor, steppedUp)
    }
}

/// The streaming detector: feed it the interleaved Int16 frames a recorder captures or a
/// player plays, in chunks of any size; it returns the events those frames complete.
package struct VoiceActivityDetector: Sendable {
    package let sampleRate: Int
    package let channels: Int
    package let configuration: VoiceActivityConfiguration
    /// Frames in one analysis block (10 ms).
    package let blockFrames: Int

    /// Whether the stream is in a speech region now (onset confirmed, hangover not run out).
    package private(set) var isSpeech = false
    /// Frames fed so far.
    package private(set) var frames: Int64 = 0
    /// The voice band's noise floor now, dBFS.
    package var noiseFloor: Double { Self.decibels(lastFloor) }

    private var voiceLow: Biquad, voiceHigh1: Biquad, voiceHigh2: Biquad, fricative: Biquad
    private var voiceFloor: NoiseFloor, fricativeFloor: NoiseFloor
    private var lastFloor = 0.0
    private var voiceSum = 0.0, fricativeSum = 0.0, blockFill = 0
    private var blockIndex: Int64 = 0
    /// Bit i set: block (blockIndex - 1 - i) was active.
    private var recentActive: UInt64 = 0
    /// End frame of the last active block; the end of the last region.
    private var lastActiveEnd: Int64 = 0
    private var lastRegionEnd: Int64 = 0
    /// The open region's first active block and its start (with the pre-roll).
    private var regionOnset: Int64 = 0, regionStart: Int64 = 0
    private var sawActive = false
    /// The two bands' energies of the last blocks, newest last (at most `historyBlocks`): when
    /// a floor steps up, they are judged again against it.
    private var history: [(voice: Double, fricative: Double, confirmed: Bool)] = []
    private let historyBlocks: Int
    private let preRollFrames: Int64, hangoverFrames: Int64, postRollFrames: Int64
    private let steadyRatio: Double
    private let activeThreshold: Double?, minimumEnergy: Double, marginFactor: Double

    package init(sampleRate: Int, channels: Int = 1, configuration: VoiceActivityConfiguration = .init()) {
        self.sampleRate = max(sampleRate, 1)
        self.channels = max(channels, 1)
        self.configuration = configuration
        blockFrames = max(self.sampleRate / 100, 1)
        // 4th-order Butterworth high-pass at 300 Hz, 2nd-order low-pass at 3400 Hz: the voice
        // band. 2nd-order high-pass at 3400 Hz: the fricative band.
        voiceHigh1 = Biquad(.highPass, frequency: 300, q: 0.5412, rate: self.sampleRate)
        voiceHigh2 = Biquad(.highPass, frequency: 300, q: 1.3066, rate: self.sampleRate)
        voiceLow = Biquad(.lowPass, frequency: 3400, q: 0.7071, rate: self.sampleRate)
        fricative = Biquad(.highPass, frequency: 3400, q: 0.7071, rate: self.sampleRate)
        let windowBlocks = Int(configuration.floorWindow * 100)
        let steadyBlocks = max(Int(configuration.steadyWindow * 100), 1)
        let steady = (
            blocks: steadyBlocks, ratio: pow(10, configuration.steadyRange / 10),
            ceiling: pow(10, configuration.steadyCeiling / 10)
        )
        voiceFloor = NoiseFloor(
            windowBlocks: windowBlocks, subLength: 20, steadyBlocks: steady.blocks, steadyRatio: steady.ratio,
            steadyCeiling: steady.ceiling)
        fricativeFloor = NoiseFloor(
            windowBlocks: windowBlocks, subLength: 20, steadyBlocks: steady.blocks, steadyRatio: steady.ratio,
            steadyCeiling: steady.ceiling)
        historyBlocks = 2 * steadyBlocks
        steadyRatio = steady.ratio
        history.reserveCapacity(historyBlocks + 1)
        preRollFrames = Int64(configuration.preRoll * Double(self.sampleRate))
        hangoverFrames = Int64(configuration.hangover * Double(self.sampleRate))
        postRollFrames = Int64(configuration.postRoll * Double(self.sampleRate))
        activeThreshold = configuration.silenceThreshold.map { pow(10, $0 / 10) }
        minimumEnergy = pow(10, configuration.minimumLevel / 10)
        marginFactor = pow(10, configuration.margin / 10)
    }

    /// Frames of silence since the last active block (or since the start, before any speech).
    /// During the hangover this grows while `isSpeech` is still true.
    package var silenceRun: Int64 { frames - (sawActive ? lastActiveEnd : 0) }

    /// How far back (frames) from the frames fed so far a `speechStarted` event can point:
    /// a recorder that starts on voice keeps this much audio in hand.
    package var lookback: Int64 { preRollFrames + Int64((configuration.onsetWindow + 1) * blockFrames) }

    /// Feeds `count` frames of interleaved samples; returns the events they complete.
    package mutating func feed(_ samples: UnsafePointer<Int16>, frames count: Int) -> [VoiceActivityEvent] {
        var events: [VoiceActivityEvent] = []
        var h1 = voiceHigh1
        var h2 = voiceHigh2
        var lp = voiceLow
        var hf = fricative
        var voice = voiceSum
        var fric = fricativeSum
        var fill = blockFill
        let channels = self.channels
        let blockFrames = self.blockFrames
        let scale = 1 / (32768 * Double(channels))
        var p = samples
        for _ in 0..<max(count, 0) {
            var x = 0.0
            if channels == 1 {
                x = Double(p.pointee) * scale
            } else {
                var sum: Int32 = 0
                for c in 0..<channels { sum += Int32(p[c]) }
                x = Double(sum) * scale
            }
            p += channels
            let v = lp.run(h2.run(h1.run(x)))
            let f = hf.run(x)
            voice += v * v
            fric += f * f
            fill += 1
            if fill == blockFrames {
                endBlock(voice: voice / Double(fill), fricative: fric / Double(fill), frames: fill, events: &events)
                voice = 0
                fric = 0
                fill = 0
            }
        }
        voiceHigh1 = h1
        voiceHigh2 = h2
        voiceLow = lp
        fricative = hf
        voiceSum = voice
        fricativeSum = fric
        blockFill = fill
        return events
    }

    package mutating func feed(_ samples: [Int16]) -> [VoiceActivityEvent] {
        samples.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return [] }
            return feed(base, frames: buffer.count / channels)
        }
    }

    /// The end of the stream: decides the partial last block and closes an open region at
    /// the last frame (or earlier, if its hangover runs out before).
    package mutating func finish() -> [VoiceActivityEvent] {
        var events: [VoiceActivityEvent] = []
        if blockFill > 0 {
            let fill = blockFill
            endBlock(
                voice: voiceSum / Double(fill), fricative: fricativeSum / Double(fill), frames: fill, events: &events)
            voiceSum = 0
            fricativeSum = 0
            blockFill = 0
        }
        if isSpeech {
            isSpeech = false
            lastRegionEnd = min(lastActiveEnd + postRollFrames, frames)
            events.append(.speechEnded(at: lastRegionEnd))
        }
        return events
    }

    private mutating func endBlock(
        voice: Double, fricative fricativeEnergy: Double, frames count: Int,
        events: inout [VoiceActivityEvent]
    ) {
        let blockStart = frames
        frames += Int64(count)
        let (voiceFloorNow, voiceStepped) = voiceFloor.add(voice)
        let (fricativeFloorNow, fricativeStepped) = fricativeFloor.add(fricativeEnergy)
        lastFloor = voiceFloorNow
        func isActive(_ v: Double, _ f: Double) -> Bool {
            if let threshold = activeThreshold { return v > threshold || f > threshold }
            return (v > minimumEnergy && v > voiceFloorNow * marginFactor)
                || (f > minimumEnergy && f > fricativeFloorNow * marginFactor)
        }
        let active = isActive(voice, fricativeEnergy)
        blockIndex += 1
        recentActive = (recentActive << 1) | (active ? 1 : 0)
        let window = min(configuration.onsetWindow, 63)
        let mask: UInt64 = (1 << UInt64(window)) - 1
        let confirmed = active && (recentActive & mask).nonzeroBitCount >= configuration.onsetBlocks
        history.append((voice, fricativeEnergy, confirmed))
        if history.count > historyBlocks { history.removeFirst() }
        if confirmed {
            lastActiveEnd = frames
            sawActive = true
        } else if (voiceStepped || fricativeStepped) && activeThreshold == nil {
            // The room got louder and has held steady (a quiet room after a quieter clip, a
            // fan): the blocks at its new level were "active" only against the old floor.
            // The last speech is the newest block still active against the new one; the
            // region ends there, not where the new level began to be learnt.
            // Walking back: blocks at the new level are the room; a block active against the
            // new floor is speech; a block well below the new level (in a band that stepped)
            // is from before the change, and what was speech then still is.
            let again = history.map { isActive($0.voice, $0.fricative) }
            let ratio = steadyRatio
            func older(_ block: (voice: Double, fricative: Double, confirmed: Bool)) -> Bool {
                (voiceStepped && block.voice * ratio < voiceFloorNow)
                    || (fricativeStepped && block.fricative * ratio < fricativeFloorNow)
            }
            var end = frames - Int64(history.count * blockFrames)
            var past = false
            for i in history.indices.reversed() {
                let blockEnd = frames - Int64((history.count - 1 - i) * blockFrames)
                if !past && again[i] {
                    let from = max(i - configuration.onsetWindow + 1, 0)
                    if again[from...i].filter({ $0 }).count >= configuration.onsetBlocks {
                        end = blockEnd
                        break
                    }
                }
                past = past || older(history[i])
                if past && history[i].confirmed {
                    end = blockEnd
                    break
                }
            }
            if end < lastActiveEnd {
                lastActiveEnd = max(end, lastRegionEnd)
                recentActive = 0
                if isSpeech && end <= regionOnset {
                    // Nothing of the open region is left: it was the new level's own onset.
                    // An empty region, which SpeechRegions drops.
                    isSpeech = false
                    events.append(.speechEnded(at: regionStart))
                }
            }
        }
        if !isSpeech {
            let recent = recentActive & mask
            if confirmed {
                // The oldest active block in the onset window starts the region.
                let oldest = Int64(63 - recent.leadingZeroBitCount)
                let firstActiveStart = blockStart - oldest * Int64(blockFrames)
                let start = max(firstActiveStart - preRollFrames, lastRegionEnd, 0)
                isSpeech = true
                regionOnset = firstActiveStart
                regionStart = start
                events.append(.speechStarted(at: start))
            }
        } else if frames - lastActiveEnd >= hangoverFrames {
            isSpeech = false
            lastRegionEnd = min(lastActiveEnd + postRollFrames, frames)
            events.append(.speechEnded(at: lastRegionEnd))
        }
    }

    /// `Level.floor`, repeated so that this file stands alone (bench/vad.sh compiles it
    /// without the rest of RecCore); a test holds the two equal.
    static let decibelFloor = -96.0

    static func decibels(_ energy: Double) -> Double {
        energy > 0 ? max(10 * log10(energy), decibelFloor) : decibelFloor
    }
}

/// Speech regions, as frame ranges, collected from a detector's events. Regions that touch are
/// joined.
package struct SpeechRegions: Equatable, Sendable {
    package private(set) var regions: [Range<Int64>] = []
    private var openStart: Int64?

    package init() {}

    package mutating func add(_ events: [VoiceActivityEvent]) {
        for event in events {
            switch event {
            case .speechStarted(let frame):
                openStart = frame
            case .speechEnded(let frame):
                guard let start = openStart else { continue }
                openStart = nil
                if let last = regions.last, last.upperBound >= start {
                    regions[regions.count - 1] = last.lowerBound..<max(frame, last.upperBound)
                } else if frame > start {
                    regions.append(start..<frame)
                }
            }
        }
    }

    /// Frames of speech in all.
    package var frames: Int64 { regions.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    /// The silences of `span` longer than `minimum` frames (before the first region, between
    /// regions, after the last): what `play --skip-silence` jumps over.
    package static func silences(between regions: [Range<Int64>], in span: Range<Int64>, longerThan minimum: Int64)
        -> [Range<Int64>]
    {
        var gaps: [Range<Int64>] = []
        var at = span.lowerBound
        for region in regions + [span.upperBound..<span.upperBound] {
            let gap = at..<max(at, min(region.lowerBound, span.upperBound))
            if gap.count > minimum { gaps.append(gap) }
            at = max(at, region.upperBound)
            if at >= span.upperBound { break }
        }
        return gaps
    }
}

package enum VoiceActivity {
    /// The speech regions of interleaved samples, fed in chunks of 8192 frames.
    package static func speechRegions(
        samples: [Int16], sampleRate: Int, channels: Int = 1,
        configuration: VoiceActivityConfiguration = .init()
    ) -> [Range<Int64>] {
        var detector = VoiceActivityDetector(sampleRate: sampleRate, channels: channels, configuration: configuration)
        var regions = SpeechRegions()
        let channels = detector.channels
        samples.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let total = buffer.count / channels
            var at = 0
            while at < total {
                let n = min(8192, total - at)
                regions.add(detector.feed(base + at * channels, frames: n))
                at += n
            }
        }
        regions.add(detector.finish())
        return regions.regions
    }

}

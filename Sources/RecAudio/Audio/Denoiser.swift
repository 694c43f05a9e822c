import CSpeexDSP
import RecSystem

/// Lowers steady background noise (fans, hum, hiss) under speech (`play --denoise`,
/// `export --denoise`): speexdsp's preprocessor, a spectral suppressor that tracks
/// the noise's spectrum and takes it out, at most `suppression` dB, one state per channel.
/// Its automatic gain is off (loudness is `--level`'s job), and so are its voice detection and
/// dereverberation.
///
/// Where it sits (the player's and the exporter's chains): file → trim → denoise → speed →
/// level. First, so that it learns the noise as recorded: the stretcher's overlaps would
/// smear the noise's spectrum, and the leveller's gain would move its level. Before the
/// leveller also because the limiter must be last (nothing after it may raise a peak). The
/// leveller's gain still comes from the stored loudness of the noisy audio: denoising shifts
/// the speech's level by a fraction of a dB (the speech level in `DenoiseTests` and
/// bench/RESULTS.md), well inside `--level`'s 1 LU.
///
/// Fed interleaved frames at the file's rate (any rate: the frame is the 2-, 3-, 5-smooth size
/// nearest 20 ms, which the library's FFT takes fast), it gives back the same number of frames,
/// `latency` (one frame) late: `finish` gives the last ones. The library works on 16-bit
/// samples; float input is rounded to them and back.
package final class Denoiser {
    package let rate: Int
    package let channels: Int
    /// Samples per channel the library takes at a time; also the latency.
    package let frame: Int
    /// How far the noise is brought down at most, dB. Tuned on the bench (speech at
    /// 20 dB SNR in white noise, bench/denoise.sh and `DenoiseTests`; bench/RESULTS.md): at
    /// -12 the floor drops by about 11.5 dB (the bar is 10) and PocketSphinx's word error rate
    /// on the sentences is no worse than on the noisy ones; deeper suppression lowers the
    /// floor further (-15: 13.5 dB, -20: 16.6 dB) but costs words (+0.14 WER at -15 and -20,
    /// past the bar's 0.10). The speech level moves by 0.2 dB at any of them. (speexdsp's
    /// other controls do not change the audio with AGC off: its VAD's probabilities only
    /// decide what `speex_preprocess_run` returns.)
    package static let suppression = -12
    /// Audio fed before the first output to learn the noise from (`prime`): without it, the
    /// suppressor needs about a second to find the floor, and lets that second's noise through.
    package static let primingSeconds = 1.0

    private let states: [OpaquePointer]
    /// The frame being gathered (interleaved) and how many frames of it are filled.
    private var gathered: [Int16]
    private var filled = 0
    /// One channel's samples, for the library.
    private var lane: [Int16]
    /// Frames fed since the start (or `reset`) and frames given back; the first `frame` out
    /// are the library's delay, dropped.
    private var fed = 0
    private var given = 0
    private var produced = 0

    /// The shared object to open: `RECNOTES_SPEEXDSP` names another (a build of its own, one
    /// outside the library path); by default the system's.
    package static var libraryPath: String? { Environment.value("RECNOTES_SPEEXDSP") }

    /// Opens speexdsp on first use; `subject` names what needed it, for the message.
    package static func load(for subject: String) throws(RecError) {
        var why = [CChar](repeating: 0, count: 512)
        guard csp_load(libraryPath, &why, why.count) == 0 else {
            let reason = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .failure(subject, "cannot load the speexdsp library (install libspeexdsp1): \(reason)")
        }
    }

    /// The frame size for `rate`: the size nearest 20 ms whose only prime factors are 2, 3
    /// and 5, the shorter of two as near (48 kHz: 960; 44.1 kHz: 864; 16 kHz: 320).
    static func frameSize(rate: Int) -> Int {
        let target = max(rate / 50, 16)
        func smooth(_ n: Int) -> Bool {
            var n = n
            for p in [2, 3, 5] { while n % p == 0 { n /= p } }
            return n == 1
        }
        var offset = 0
        while true {
            if smooth(target - offset) { return target - offset }
            if smooth(target + offset) { return target + offset }
            offset += 1
        }
    }

    package init(rate: Int, channels: Int, subject: String = "--denoise") throws(RecError) {
        try Self.load(for: subject)
        guard rate > 0, channels > 0 else {
            throw .failure(subject, "cannot denoise \(channels) channels at \(rate) Hz")
        }
        let frame = Self.frameSize(rate: rate)
        var states: [OpaquePointer] = []
        for _ in 0..<channels {
            guard let state = csp_new(Int32(frame), Int32(rate), Int32(Self.suppression)) else {
                for state in states { csp_delete(state) }
                throw .failure(subject, "speexdsp cannot denoise at \(rate) Hz")
            }
            states.append(state)
        }
        self.rate = rate
        self.channels = channels
        self.frame = frame
        self.states = states
        gathered = [Int16](repeating: 0, count: frame * channels)
        lane = [Int16](repeating: 0, count: frame)
    }

    deinit { for state in states { csp_delete(state) } }

    /// Frames between a frame fed and the same frame given back.
    package var latency: Int { frame }

    /// Lets the suppressor learn the noise from `input` (interleaved, from where the output
    /// will start) without giving anything back; then it starts afresh as to what it gives.
    package func prime(_ input: UnsafeBufferPointer<Int16>) {
        var ignored: [Int16] = []
        process(input, into: &ignored)
        filled = 0
        fed = 0
        given = 0
        produced = 0
    }

    /// Reads up to `primingSeconds` of `file` from `start` (at most up to `end`) to `prime`,
    /// and leaves the file positioned at `start`.
    package func prime(from file: SoundFile, at start: Int64, end: Int64) throws {
        let frames = Int(min(Int64(Double(rate) * Self.primingSeconds), max(end - start, 0)))
        if frames > 0 {
            try file.seek(to: start)
            var samples = [Int16](repeating: 0, count: frames * channels)
            let read = try samples.withUnsafeMutableBufferPointer {
                try file.read(into: $0.baseAddress!, frames: frames)
            }
            samples.withUnsafeBufferPointer { prime(UnsafeBufferPointer(rebasing: $0[..<(read * channels)])) }
        }
        try file.seek(to: start)
    }

    /// Forgets the frames fed (a seek or a pause of the player) but keeps what it learnt of the
    /// noise, which is the recording's and still holds: no second of noise let through again.
    /// The library's one frame of overlap from before is in the first frame given, which is
    /// dropped as its delay.
    package func reset() {
        filled = 0
        fed = 0
        given = 0
        produced = 0
    }

    /// Feeds interleaved 16-bit frames (the player's); what is ready is appended to `output`,
    /// and with `finishing` the last frames too.
    package func process(_ input: UnsafeBufferPointer<Int16>, finishing: Bool = false, into output: inout [Int16]) {
        let frames = input.count / channels
        var done = 0
        while done < frames {
            let n = min(frame - filled, frames - done)
            for i in 0..<(n * channels) { gathered[filled * channels + i] = input[done * channels + i] }
            filled += n
            done += n
            fed += n
            if filled == frame { run(into: &output) }
        }
        if finishing { finish(into: &output) }
    }

    /// The same for float frames (the exporter's, full scale ±1).
    package func process(_ input: UnsafeBufferPointer<Float>, finishing: Bool = false, into output: inout [Float]) {
        let samples = input.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
        var out: [Int16] = []
        samples.withUnsafeBufferPointer { process($0, finishing: finishing, into: &out) }
        output.reserveCapacity(output.count + out.count)
        for s in out { output.append(Float(s) / 32768) }
    }

    /// The frames still inside: silence is fed behind them until every frame fed has come
    /// out. Then it starts afresh, as after `reset`.
    package func finish(into output: inout [Int16]) {
        while given < fed {
            for i in (filled * channels)..<(frame * channels) { gathered[i] = 0 }
            filled = frame
            run(into: &output)
        }
        reset()
    }

    package func finish(into output: inout [Float]) {
        var out: [Int16] = []
        finish(into: &out)
        output.reserveCapacity(output.count + out.count)
        for s in out { output.append(Float(s) / 32768) }
    }

    /// Denoises the gathered frame, channel by channel, and gives what is owed of it: the
    /// first frame out (the delay) is dropped, and nothing beyond the frames fed is given.
    private func run(into output: inout [Int16]) {
        for c in 0..<channels {
            for i in 0..<frame { lane[i] = gathered[i * channels + c] }
            lane.withUnsafeMutableBufferPointer { csp_run(states[c], $0.baseAddress!) }
            for i in 0..<frame { gathered[i * channels + c] = lane[i] }
        }
        filled = 0
        let start = produced
        produced += frame
        // Output frames start..<produced are the library's; output frame k is input frame k - frame.
        let first = max(start, frame)
        let last = min(produced, fed + frame)
        guard first < last else { return }
        output.reserveCapacity(output.count + (last - first) * channels)
        for k in first..<last {
            let i = k - start
            for c in 0..<channels { output.append(gathered[i * channels + c]) }
        }
        given += last - first
    }
}

/// A recording's loudness by EBU R128 (ITU-R BS.1770), measured with libebur128 in the same
/// pass as the rest of its `AudioAnalysis`: what `info` shows and what a level
/// target (`--level`) is reached from. Every figure is a finite number, so it stays one in
/// JSON: silence, which R128's gates leave nothing of, reads as `Loudness.gate` and a range
/// of 0, and a silent true peak as `Level.floor`.
package struct Loudness: Equatable, Sendable {
    /// Integrated loudness, LUFS (gated over the whole recording).
    package var integrated: Double
    /// Loudness range, LU (EBU Tech 3342): how much the short-term loudness varies.
    package var range: Double
    /// True peak, dBTP: the highest peak between the samples too (4× oversampled).
    package var truePeak: Double

    package init(integrated: Double, range: Double, truePeak: Double) {
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
    }

    /// R128's absolute gate: blocks quieter than this are not counted, so nothing quieter
    /// can be measured; a recording with nothing above it reads as this.
    package static let gate = -70.0

    /// As the meter gives them (integrated -infinity for silence, a linear true peak), made
    /// finite and rounded to 0.01 as the store keeps them, so that a loudness measured and one
    /// read back from store.json are the same value.
    package static func measured(integrated: Double, range: Double, truePeakLinear: Double) -> Loudness {
        func hundredths(_ value: Double) -> Double { (value * 100).rounded() / 100 }
        return Loudness(
            integrated: hundredths(integrated.isFinite ? max(integrated, gate) : gate),
            range: hundredths(range.isFinite ? max(range, 0) : 0),
            truePeak: hundredths(Level.decibels(truePeakLinear)))
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// Peak and RMS level of a stretch of audio, in dBFS (0 is full scale). Silence reads as
/// `Level.floor`, so every value stays a finite number in JSON.
package struct Level: Equatable, Sendable {
    package static let floor = -96.0

    package var peak: Double
    package var rms: Double

    package init(peak: Double, rms: Double) {
        self.peak = peak
        self.rms = rms
    }

    package static let silence = Level(peak: floor, rms: floor)

    package static func decibels(_ linear: Double) -> Double {
        linear > 0 ? max(20 * log10(linear), floor) : floor
    }

    /// At or above this the signal has (almost certainly) been clipped.
    package var isClipping: Bool { peak >= -0.1 }
}

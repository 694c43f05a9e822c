#if canImport(Glibc)
    import Glibc
#endif

/// Peak and RMS level of a stretch of audio, in dBFS (0 is full scale). Silence reads as
/// `Level.floor`, so every value stays a finite number in JSON.
public struct Level: Equatable, Sendable {
    public static let floor = -96.0

    public var peak: Double
    public var rms: Double

    public init(peak: Double, rms: Double) {
        self.peak = peak
        self.rms = rms
    }

    public static let silence = Level(peak: floor, rms: floor)

    public static func decibels(_ linear: Double) -> Double {
        linear > 0 ? max(20 * log10(linear), floor) : floor
    }

    /// At or above this the signal has (almost certainly) been clipped.
    public var isClipping: Bool { peak >= -0.1 }
}

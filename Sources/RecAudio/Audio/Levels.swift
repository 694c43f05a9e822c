import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Accumulates samples and reports their level. Frame-counted, never timed.
package struct LevelMeter: Sendable {
    private var peak: Int32 = 0
    private var sumOfSquares: Double = 0
    private var samples = 0

    package init() {}

    package mutating func add(_ buffer: UnsafePointer<Int16>, count: Int) {
        // Integer sums, so the loop vectorises: the meter sees every sample of a recording,
        // and a Double accumulator made it the writer's largest cost after the codec.
        var p: Int32 = peak
        var sum: Int64 = 0
        for i in 0..<count {
            let s = Int32(buffer[i])
            p = max(p, s < 0 ? -s : s)
            sum &+= Int64(s &* s)
        }
        peak = p
        sumOfSquares += Double(sum)
        samples += count
    }

    /// Adds another meter's samples, as if they had been added here.
    package mutating func merge(_ other: LevelMeter) {
        peak = max(peak, other.peak)
        sumOfSquares += other.sumOfSquares
        samples += other.samples
    }

    package var level: Level {
        guard samples > 0 else { return .silence }
        return Level(
            peak: Level.decibels(Double(peak) / 32768),
            rms: Level.decibels((sumOfSquares / Double(samples)).squareRoot() / 32768))
    }

    /// The linear peak, 0...1.
    package var linearPeak: Double { Double(peak) / 32768 }

    package mutating func reset() { self = LevelMeter() }
}

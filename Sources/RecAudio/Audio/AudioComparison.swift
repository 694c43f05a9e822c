#if canImport(Glibc)
    import Glibc
#endif

/// How close decoded audio is to what was encoded: for judging lossy round trips (tests,
/// benchmarks), where the samples cannot match exactly and the codec adds a delay.
package enum AudioComparison {
    /// Signal-to-noise ratio of `decoded` against `reference` in dB, after finding the codec
    /// delay (the lag, up to `maxLag` frames, that best lines the two up). `skip` frames at
    /// each end are left out, where encoders fade in and pad.
    package static func snr(reference: [Int16], decoded: [Int16], maxLag: Int = 4000, skip: Int = 4800) -> Double {
        let length = min(reference.count, decoded.count) - maxLag - skip * 2
        guard length > 0 else { return -.infinity }
        var best = -Double.infinity
        var bestLag = 0
        for lag in 0...maxLag {
            var dot = 0.0
            var i = skip
            while i < skip + length {
                dot += Double(reference[i]) * Double(decoded[i + lag])
                i += 7
            }
            if dot > best {
                best = dot
                bestLag = lag
            }
        }
        var signal = 0.0
        var noise = 0.0
        for i in skip..<(skip + length) {
            let r = Double(reference[i])
            let d = Double(decoded[i + bestLag])
            signal += r * r
            noise += (r - d) * (r - d)
        }
        return 10 * log10(signal / max(noise, 1e-9))
    }
}

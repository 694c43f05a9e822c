#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on a clock that only goes forward (CLOCK_MONOTONIC): for pacing, timeouts and
/// throttling, which must not follow wall-clock jumps. Never for audio positions, which
/// are counted in frames.
package enum MonotonicClock {
    package static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

// Kept apart from VoiceActivity.swift, which needs nothing but Swift and Glibc, so that
// bench/vad.sh can compile the detector alone and time it without the rest of RecCore.
extension VoiceActivity {
    /// The speech regions of a sound file, decoded once.
    package static func speechRegions(path: String, configuration: VoiceActivityConfiguration = .init()) throws
        -> [Range<Int64>]
    {
        let file = try SoundFile.open(path: path)
        var detector = VoiceActivityDetector(
            sampleRate: file.sampleRate, channels: file.channels, configuration: configuration)
        var regions = SpeechRegions()
        let chunk = 8192
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * file.channels)
        defer { buffer.deallocate() }
        while true {
            let n = try file.read(into: buffer, frames: chunk)
            if n == 0 { break }
            regions.add(detector.feed(buffer, frames: n))
        }
        regions.add(detector.finish())
        return regions.regions
    }
}

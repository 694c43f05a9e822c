import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// WAV on a stream that cannot seek: the header is written first, declaring `frames`, and
/// exactly that many frames follow (cut, or padded with silence, should decoding give a
/// different count). 16-bit, or 24-bit when the source holds more than 16 bits.
package enum WAVStream {
    package static func header(frames: Int64, rate: Int, channels: Int, bits: Int) -> [UInt8] {
        let blockAlign = channels * bits / 8
        let dataBytes = min(UInt64(max(frames, 0)) * UInt64(blockAlign), UInt64(UInt32.max - 36))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44)
        func le(_ value: UInt64, _ count: Int) {
            for i in 0..<count { bytes.append(UInt8((value >> (8 * UInt64(i))) & 0xFF)) }
        }
        bytes += Array("RIFF".utf8)
        le(36 + dataBytes, 4)
        bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8)
        le(16, 4)
        le(1, 2)
        le(UInt64(channels), 2)
        le(UInt64(rate), 4)
        le(UInt64(rate * blockAlign), 4)
        le(UInt64(blockAlign), 2)
        le(UInt64(bits), 2)
        bytes += Array("data".utf8)
        le(dataBytes, 4)
        return bytes
    }

    package static func write(
        _ source: SoundFile, to fd: Int32, frames: Int64, progress: TranscodeProgress, cancel: CancelFlag
    )
        throws
    {
        let channels = source.channels
        let wide = source.isHighResolution
        let bits = wide ? 24 : 16
        let head = header(frames: frames, rate: source.sampleRate, channels: channels, bits: bits)
        try head.withUnsafeBytes { try writeFully(fd, $0.baseAddress!, $0.count, name: "-") }
        let chunk = 16384
        let frameBytes = channels * bits / 8
        let out = UnsafeMutableRawPointer.allocate(byteCount: chunk * frameBytes, alignment: 16)
        defer { out.deallocate() }
        let ints = UnsafeMutablePointer<Int32>.allocate(capacity: chunk * channels)
        defer { ints.deallocate() }
        var remaining = frames
        while remaining > 0 {
            if cancel.isCancelled { throw RecError.failure(source.path, "interrupted") }
            let want = Int(min(Int64(chunk), remaining))
            var n: Int
            if wide {
                n = try source.read(into: ints, frames: want)
                let bytes = out.assumingMemoryBound(to: UInt8.self)
                for i in 0..<(n * channels) {
                    let v = UInt32(bitPattern: ints[i])
                    bytes[3 * i] = UInt8((v >> 8) & 0xFF)
                    bytes[3 * i + 1] = UInt8((v >> 16) & 0xFF)
                    bytes[3 * i + 2] = UInt8(v >> 24)
                }
            } else {
                // x86-64 and arm64 are little-endian, as WAV is: the samples go out as they are.
                n = try source.read(into: out.assumingMemoryBound(to: Int16.self), frames: want)
            }
            if n == 0 {
                // The file decoded to fewer frames than declared: silence keeps the header true.
                n = want
                memset(out, 0, n * frameBytes)
            }
            try writeFully(fd, out, n * frameBytes, name: "-")
            remaining -= Int64(n)
            if wide {
                progress.advance(n, int: ints, channels: channels)
            } else {
                progress.advance16(n, out.assumingMemoryBound(to: Int16.self), channels: channels)
            }
        }
    }
}

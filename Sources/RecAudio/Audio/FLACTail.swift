import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A FLAC file whose writer stopped mid-frame (the disk filled): libFLAC could not finish
/// it, so its STREAMINFO states no length, and its last frame is cut short, which decoders
/// report as an error at the end (libsndfile's "lost sync", `flac -t`, sox). Finishing it
/// in place needs no room: the cut frame is truncated away at its header (found by its
/// number and its CRC-8), and STREAMINFO is given the length that decodes. The MD5 there
/// becomes 0 ("not computed"), as the encoder's covered samples that are gone.
///
/// Only what does not decode is removed: the header found must be a valid frame header
/// whose number is the first frame not decoded; otherwise the file is left as it is.
package enum FLACTail {
    /// Finishes `path`, of which `frames` frames decode (a whole number of blocks).
    /// Returns whether the file was changed.
    @discardableResult
    package static func finish(path: String, decodedFrames frames: Int64) -> Bool {
        FileSystem.withOpened(path, O_RDWR) { fd -> Bool in
            var info = stat()
            guard fstat(fd, &info) == 0 else { return false }
            let size = Int64(info.st_size)
            guard let stream = streamInfo(fd), let cut = partialFrame(fd, size: size, stream: stream, frames: frames)
            else { return false }
            guard ftruncate(fd, off_t(cut)) == 0 else { return false }
            // Sample rate (20 bits), channels (3), bits (5) and the total (36 bits), then the MD5.
            var fields = (stream.packed & ~((1 << 36) - 1)) | (UInt64(frames) & ((1 << 36) - 1))
            var bytes = [UInt8](repeating: 0, count: 8 + 16)
            for i in (0..<8).reversed() {
                bytes[i] = UInt8(fields & 0xFF)
                fields >>= 8
            }
            let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(stream.packedOffset)) }
            fsync(fd)
            return written == bytes.count
        } ?? false
    }

    struct StreamInfo {
        var blockSize: Int64
        var fixedBlocks: Bool
        /// Where the audio's first frame starts, after the metadata.
        var framesStart: Int64
        /// The 64 bits of sample rate, channels, bits and total samples, and where they are.
        var packed: UInt64
        var packedOffset: Int64
    }

    private static func read(_ fd: Int32, _ count: Int, at offset: Int64) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, count, off_t(offset)) }
        return n == count ? bytes : nil
    }

    static func streamInfo(_ fd: Int32) -> StreamInfo? {
        guard let magic = read(fd, 4, at: 0), magic == Array("fLaC".utf8) else { return nil }
        var offset: Int64 = 4
        var stream: StreamInfo?
        while true {
            guard let header = read(fd, 4, at: offset) else { return nil }
            let length = Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3])
            if header[0] & 0x7F == 0 {
                guard length >= 34, let body = read(fd, 34, at: offset + 4) else { return nil }
                let minimum = Int64(body[0]) << 8 | Int64(body[1])
                let maximum = Int64(body[2]) << 8 | Int64(body[3])
                let packed = body[10..<18].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                stream = StreamInfo(
                    blockSize: maximum, fixedBlocks: minimum == maximum, framesStart: 0, packed: packed,
                    packedOffset: offset + 4 + 10)
            }
            offset += 4 + length
            if header[0] & 0x80 != 0 { break }
        }
        stream?.framesStart = offset
        return stream
    }

    /// The offset of the header of the frame that holds sample `frames`: searched from the
    /// end (a frame is at most tens of kilobytes), checked by its CRC-8 and its number.
    static func partialFrame(_ fd: Int32, size: Int64, stream: StreamInfo, frames: Int64) -> Int64? {
        let window: Int64 = 1 << 20
        let start = max(stream.framesStart, size - window)
        guard start < size, let tail = read(fd, Int(size - start), at: start) else { return nil }
        var i = tail.count - 2
        while i >= 0 {
            if tail[i] == 0xFF, tail[i + 1] & 0xFE == 0xF8,
                let header = FrameHeader(tail[i...]), header.startsAt(sample: frames, stream: stream)
            {
                return start + Int64(i)
            }
            i -= 1
        }
        return nil
    }

    /// A frame header as the FLAC format describes it (the sync code, the block size and
    /// sample rate codes, the number in UTF-8-like coding, and a CRC-8 over all of it).
    struct FrameHeader {
        var variableBlocks: Bool
        var number: Int64

        init?(_ bytes: ArraySlice<UInt8>) {
            let b = Array(bytes.prefix(16))
            guard b.count >= 6 else { return nil }
            variableBlocks = b[1] & 1 == 1
            let blockCode = b[2] >> 4
            let rateCode = b[2] & 0x0F
            let channels = b[3] >> 4
            let sampleSize = (b[3] >> 1) & 0x07
            guard blockCode != 0, rateCode != 15, channels < 11, sampleSize != 3, sampleSize != 7, b[3] & 1 == 0
            else { return nil }
            // The number: like UTF-8, the leading ones of the first byte give the length.
            var index = 4
            let lead = b[index]
            var extra = 0
            var value: Int64
            if lead & 0x80 == 0 {
                value = Int64(lead)
            } else {
                var mask: UInt8 = 0x40
                while lead & mask != 0 && extra < 6 {
                    extra += 1
                    mask >>= 1
                }
                guard extra >= 1 else { return nil }
                value = Int64(lead & (mask &- 1))
            }
            index += 1
            for _ in 0..<extra {
                guard index < b.count, b[index] & 0xC0 == 0x80 else { return nil }
                value = value << 6 | Int64(b[index] & 0x3F)
                index += 1
            }
            number = value
            if blockCode == 6 { index += 1 } else if blockCode == 7 { index += 2 }
            if rateCode == 12 { index += 1 } else if rateCode == 13 || rateCode == 14 { index += 2 }
            guard index < b.count, Self.crc8(b[0..<index]) == b[index] else { return nil }
        }

        func startsAt(sample: Int64, stream: StreamInfo) -> Bool {
            if variableBlocks { return number == sample }
            return stream.fixedBlocks && stream.blockSize > 0 && sample % stream.blockSize == 0
                && number == sample / stream.blockSize
        }

        /// CRC-8, polynomial x^8 + x^2 + x + 1, as FLAC's frame headers use.
        static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 {
            var crc: UInt8 = 0
            for byte in bytes {
                crc ^= byte
                for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
            }
            return crc
        }
    }
}

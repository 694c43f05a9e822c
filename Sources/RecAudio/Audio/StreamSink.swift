import CAudio
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Where a `Recorder` writes: a sound file in the store, or a stream for another program.
package protocol AudioSink: AnyObject {
    /// For events and messages: a file's path, or `-` for standard output.
    var path: String { get }
    func write(_ samples: UnsafePointer<Int16>, frames: Int) throws
    func sync()
    func close() throws
}

extension SoundFile: AudioSink {}

/// Live audio on a file descriptor that may not seek (a pipe): raw samples, or WAV whose
/// header is written first. The header declares `frames` when the length is known in advance
/// (`--duration`); otherwise the largest length, which readers such as sox and ffmpeg treat
/// as "until the end of the stream".
package final class StreamSink: AudioSink {
    package enum Container: Equatable, Sendable {
        case wav
        case raw(RawEncoding)
    }

    package let path: String
    private let fd: Int32
    private let container: Container
    private let channels: Int
    private var scratch: [UInt8] = []

    package init(fd: Int32, path: String = "-", container: Container, rate: Int, channels: Int, frames: Int64?) throws {
        self.fd = fd
        self.path = path
        self.container = container
        self.channels = channels
        if container == .wav {
            let declared = frames ?? Int64(UInt32.max) / Int64(2 * channels)
            let header = WAVStream.header(frames: declared, rate: rate, channels: channels, bits: 16)
            try header.withUnsafeBytes { try writeFully(fd, $0.baseAddress!, $0.count, name: path) }
        }
    }

    package func write(_ samples: UnsafePointer<Int16>, frames: Int) throws {
        let count = frames * channels
        switch container {
        case .wav, .raw(.s16):
            try writeFully(fd, samples, count * 2, name: path)
        case .raw(.s32):
            scratch.removeAll(keepingCapacity: true)
            scratch.reserveCapacity(count * 4)
            for i in 0..<count {
                withUnsafeBytes(of: (Int32(samples[i]) << 16).littleEndian) { scratch.append(contentsOf: $0) }
            }
            try scratch.withUnsafeBytes { try writeFully(fd, $0.baseAddress!, $0.count, name: path) }
        case .raw(.f32):
            scratch.removeAll(keepingCapacity: true)
            scratch.reserveCapacity(count * 4)
            for i in 0..<count {
                withUnsafeBytes(of: (Float(samples[i]) / 32768).bitPattern.littleEndian) {
                    scratch.append(contentsOf: $0)
                }
            }
            try scratch.withUnsafeBytes { try writeFully(fd, $0.baseAddress!, $0.count, name: path) }
        }
    }

    /// A pipe has nothing to sync; the reader has the bytes already.
    package func sync() {}

    package func close() throws {}
}

/// FLAC on a file descriptor that may not seek, through libsndfile's virtual I/O. When the
/// encoder finishes, libFLAC seeks back to rewrite the stream header; on a pipe that cannot
/// be done, and through a plain descriptor libsndfile appended the header as trailing garbage.
/// Here the seek is refused and anything written after a refused seek is dropped. The result
/// is what `flac -c` writes: a valid stream whose header leaves the total length unset.
package final class PipeFLACSink: AudioSink {
    package let path: String
    private let fd: Int32
    private let channels: Int
    private var handle: OpaquePointer?
    fileprivate var written: Int64 = 0
    /// Set once a seek was refused: what follows is a rewrite of earlier bytes.
    fileprivate var rewriting = false
    fileprivate var failure: Int32 = 0

    package init(fd: Int32, path: String = "-", rate: Int, channels: Int) throws {
        self.fd = fd
        self.path = path
        self.channels = channels
        var info = SF_INFO()
        info.samplerate = Int32(clamping: rate)
        info.channels = Int32(clamping: channels)
        info.format = AudioFormat.flac.sndfileFormat
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in Unmanaged<PipeFLACSink>.fromOpaque(user!).takeUnretainedValue().written },
            seek: { offset, whence, user in
                let sink = Unmanaged<PipeFLACSink>.fromOpaque(user!).takeUnretainedValue()
                // Only "where am I" can be answered on a pipe.
                if (whence == SEEK_CUR && offset == 0) || (whence == SEEK_SET && offset == sink.written) {
                    return sink.written
                }
                sink.rewriting = true
                return -1
            },
            read: { _, _, _ in 0 },
            write: { pointer, count, user in
                let sink = Unmanaged<PipeFLACSink>.fromOpaque(user!).takeUnretainedValue()
                if sink.rewriting { return count }
                do throws(Errno) {
                    try System.writeAll(sink.fd, UnsafeRawBufferPointer(start: pointer, count: Int(count)))
                } catch {
                    sink.failure = error.rawValue
                    return 0
                }
                sink.written += count
                return count
            },
            tell: { user in Unmanaged<PipeFLACSink>.fromOpaque(user!).takeUnretainedValue().written }
        )
        guard let handle = sf_open_virtual(&io, Int32(SFM_WRITE), &info, Unmanaged.passUnretained(self).toOpaque())
        else {
            throw AudioError.sndfile(path, "cannot write FLAC", nil)
        }
        self.handle = handle
    }

    package func write(_ samples: UnsafePointer<Int16>, frames: Int) throws {
        guard let handle else { throw AudioError(.file(path), "write failed", reason: "stream is closed") }
        let done = sf_writef_short(handle, samples, sf_count_t(frames))
        if failure != 0 { throw AudioError(.file(path), "write failed", reason: systemReason(failure)) }
        if done != sf_count_t(frames) { throw AudioError.sndfile(path, "write failed", handle) }
    }

    /// Pushes out what the encoder holds, so a reader hears audio up to now.
    package func sync() {
        if let handle { sf_write_sync(handle) }
    }

    package func close() throws {
        guard let handle else { return }
        sf_close(handle)
        self.handle = nil
        if failure != 0 { throw AudioError(.file(path), "write failed", reason: systemReason(failure)) }
    }

    deinit { try? close() }
}

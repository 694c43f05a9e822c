import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A sink that also appends what is written to it, as one channel of signed 16-bit samples
/// at the recording's rate, to a raw file: the live transcriber's queue. The transcriber
/// reads the file as it grows, so however far it falls behind, what waits for it is on
/// disk, not in the recorder's memory, and the writer never waits for it.
///
/// The tap never endangers the recording: if it cannot be written (a full disk), it is
/// closed and given up, `failed` is set, and the recording goes on; what is not tapped is
/// transcribed later from the recording itself.
package final class SpeechTap: AudioSink {
    package let sink: AudioSink
    package let tapPath: String
    private let channels: Int
    private var tap: OpenFile?
    private var mono: [Int16] = []
    package private(set) var failed = false

    /// Creates (or empties) the tap file at `tapPath`; nil (errno saying why) if it cannot.
    package init?(_ sink: AudioSink, channels: Int, tapPath: String) {
        guard let tap = OpenFile(tapPath, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600) else { return nil }
        self.sink = sink
        self.channels = max(channels, 1)
        self.tapPath = tapPath
        self.tap = tap
    }

    package var path: String { sink.path }

    package func write(_ samples: UnsafePointer<Int16>, frames: Int) throws {
        try sink.write(samples, frames: frames)
        guard let tap, frames > 0 else { return }
        do {
            if channels == 1 {
                try tap.withDescriptor { fd throws(Errno) in
                    try System.writeAll(fd, UnsafeRawBufferPointer(start: samples, count: frames * 2))
                }
            } else {
                // The channels averaged, as the transcriber hears a recording.
                if mono.count < frames { mono = [Int16](repeating: 0, count: frames) }
                for frame in 0..<frames {
                    var sum = 0
                    for channel in 0..<channels { sum += Int(samples[frame * channels + channel]) }
                    mono[frame] = Int16(sum / channels)
                }
                try mono.withUnsafeBytes { bytes in
                    try tap.withDescriptor { fd throws(Errno) in
                        try System.writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[..<(frames * 2)]))
                    }
                }
            }
        } catch {
            failed = true
            self.tap = nil
        }
    }

    package func sync() { sink.sync() }

    package func close() throws {
        tap = nil
        try sink.close()
    }
}

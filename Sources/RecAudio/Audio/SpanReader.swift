import RecValues

/// An edited recording read as one file: its edit list's spans played from their takes, with
/// the crossfades at the joins (`EditList.render`, the one place that says how a join
/// sounds). It reads and seeks as `SoundFile` does, in frames of the edited recording, so a
/// reader of a recording can be given either. Each take is opened on first use by `open`, and
/// read on from where it was left when the next piece follows on (a seek in a compressed
/// take costs a decode from its page).
package final class SpanReader {
    package let list: EditList
    package let sampleRate: Int
    package let channels: Int
    /// The next frame `read` returns.
    package private(set) var position: Int64 = 0
    private let open: (EditList.Take) throws -> SoundFile
    private var files: [Int: SoundFile] = [:]
    /// Where each open take's next read starts.
    private var positions: [Int: Int64] = [:]

    /// `sampleRate` and `channels` are the recording's; a take that differs is refused when it
    /// is first read.
    package init(
        list: EditList, sampleRate: Int, channels: Int, open: @escaping (EditList.Take) throws -> SoundFile
    ) {
        self.list = list
        self.sampleRate = sampleRate
        self.channels = channels
        self.open = open
    }

    package var frames: Int64 { list.frames }

    package func seek(to frame: Int64) {
        position = min(max(frame, 0), list.frames)
    }

    /// Reads up to `frames` frames from `position`; 0 at the end.
    package func read(into samples: UnsafeMutablePointer<Int16>, frames: Int) throws -> Int {
        let range = position..<min(position + Int64(max(frames, 0)), list.frames)
        guard !range.isEmpty else { return 0 }
        let rendered = try list.render(range, channels: channels) { take, wanted in try self.read(take, wanted) }
        for (i, sample) in rendered.enumerated() {
            samples[i] = Int16(max(-32768, min(32767, sample.rounded())))
        }
        position = range.upperBound
        return range.count
    }

    /// Frames `wanted` of take `index`, interleaved, as Float.
    private func read(_ index: Int, _ wanted: Range<Int64>) throws -> [Float] {
        let file = try take(index)
        // Unknown until this read is done: a failure part way leaves the file anywhere.
        if positions.removeValue(forKey: index) != wanted.lowerBound { try file.seek(to: wanted.lowerBound) }
        var buffer = [Int16](repeating: 0, count: wanted.count * channels)
        var done = 0
        while done < wanted.count {
            let n = try buffer.withUnsafeMutableBufferPointer {
                try file.read(into: $0.baseAddress! + done * channels, frames: wanted.count - done)
            }
            guard n > 0 else {
                throw AudioError(
                    .file(file.path), "cannot read audio",
                    reason: "the take ends at frame \(wanted.lowerBound + Int64(done)), before \(wanted.upperBound)")
            }
            done += n
        }
        positions[index] = wanted.upperBound
        return buffer.map(Float.init)
    }

    private func take(_ index: Int) throws -> SoundFile {
        if let file = files[index] { return file }
        let file = try open(list.takes[index])
        guard file.sampleRate == sampleRate, file.channels == channels else {
            throw AudioError(
                .file(file.path), "cannot read audio",
                reason:
                    "the take is \(file.sampleRate) Hz with \(file.channels) channels, the recording \(sampleRate) Hz with \(channels)"
            )
        }
        files[index] = file
        positions[index] = 0
        return file
    }
}

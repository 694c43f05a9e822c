import RecSystem
import RecValues

extension DocumentCodec {
    /// A new `store.json` as a splice makes it: runs of the old file's bytes, as they are,
    /// between bytes written anew (`w`). It is written to the disk with the old runs copied
    /// by the kernel from the old file (`write(to:from:)`), so that a change to one item of
    /// a store of megabytes neither builds nor writes the whole file through memory; or made
    /// in memory (`bytes`) where the whole document is at hand anyway.
    ///
    /// `old` must stay valid (mapped, or an array's buffer) for as long as this is used.
    struct SplicedFile {
        enum Run: Equatable {
            /// Bytes of the old file.
            case old(Range<Int>)
            /// Bytes of `w`.
            case new(Range<Int>)
        }

        let old: UnsafeBufferPointer<UInt8>
        /// The bytes written anew, in order; those not yet in `runs` are the file's last.
        var w: JSONWriter
        private(set) var runs: [Run] = []
        /// `w.bytes` from here on are not in `runs` yet.
        private var pending = 0
        private var copied = 0

        init(old: UnsafeBufferPointer<UInt8>) {
            self.old = old
            w = JSONWriter(capacity: 4096)
        }

        /// The new file's length so far: where the next byte goes.
        var count: Int { copied + w.bytes.count }

        /// The old file's bytes `range`, next. Bytes written anew just before that are the
        /// old file's own between the last run copied and this one (the comma between two
        /// siblings' subtrees) join them, so that a run of untouched siblings is one copy.
        mutating func copy(_ range: Range<Int>) {
            guard !range.isEmpty else { return }
            let written = w.bytes.count - pending
            if case .old(let last)? = runs.last, range.lowerBound == last.upperBound + written,
                w.bytes[pending...].elementsEqual(old[last.upperBound..<range.lowerBound])
            {
                w.bytes.removeLast(written)
                runs[runs.count - 1] = .old(last.lowerBound..<range.upperBound)
                copied += written + range.count
                return
            }
            finish()
            runs.append(.old(range))
            copied += range.count
        }

        /// Puts the bytes written since the last copy in `runs`; called when the file is whole.
        mutating func finish() {
            guard w.bytes.count > pending else { return }
            runs.append(.new(pending..<w.bytes.count))
            pending = w.bytes.count
        }

        /// The new file in memory.
        var bytes: [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count)
            for run in runs {
                switch run {
                case .old(let range): bytes.append(contentsOf: UnsafeBufferPointer(rebasing: old[range]))
                case .new(let range): bytes.append(contentsOf: w.bytes[range])
                }
            }
            return bytes
        }

        /// Writes the new file into `fd` (at its offset), the old runs copied from `source`,
        /// the old file open for reading (`old` its bytes). `path` names the file written,
        /// for an error.
        func write(to fd: Int32, from source: Int32, path: String) throws {
            for run in runs {
                switch run {
                case .old(let range):
                    try FileSystem.copyRange(from: source, at: range.lowerBound, count: range.count, to: fd, path: path)
                case .new(let range):
                    try w.bytes.withUnsafeBytes {
                        try FileSystem.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[range]), path: path)
                    }
                }
            }
        }
    }
}

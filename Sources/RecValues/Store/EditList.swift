/// A recording as an edit list over immutable takes: each take an audio file written once and
/// never changed, the recording the ordered spans of them it plays. A recording made by
/// `record` is one take and one span; appending, inserting, replacing and cutting change only
/// the spans (and add a take), so no audio is ever rewritten and every take stays until the
/// recording leaves the trash. Positions are frames of the edited recording; see
/// docs/design/edit-list.md.
package struct EditList: Equatable, Hashable, Sendable {
    /// An audio file of the recording (its name in `audio/`) and its length in frames.
    package struct Take: Equatable, Hashable, Sendable {
        package var file: String
        package var frames: Int64

        package init(file: String, frames: Int64) {
            self.file = file
            self.frames = frames
        }
    }

    /// Frames `start..<start + frames` of take `take` (an index into `takes`).
    package struct Span: Equatable, Hashable, Sendable {
        package var take: Int
        package var start: Int64
        package var frames: Int64

        package init(take: Int, start: Int64, frames: Int64) {
            self.take = take
            self.start = start
            self.frames = frames
        }

        package var end: Int64 { start + frames }
    }

    /// What an operation did to the recording's positions, in the order done: what marks a
    /// moment (a marker, a trim point, a word's time) follows it with `moved(_:)`.
    package enum Change: Equatable, Hashable, Sendable {
        /// `frames` new frames at `at`; what was at `at` or after moves on by `frames`.
        case inserted(at: Int64, frames: Int64)
        /// The frames of `range` are gone; what was after moves back by their count.
        case removed(Range<Int64>)

        /// Where the frame at `frame` is after this change; nil when it was removed.
        package func moved(_ frame: Int64) -> Int64? {
            switch self {
            case .inserted(let at, let frames): return frame >= at ? frame + frames : frame
            case .removed(let range):
                if frame < range.lowerBound { return frame }
                if frame >= range.upperBound { return frame - Int64(range.count) }
                return nil
            }
        }
    }

    /// Every take the recording has had, in the order made; spans name them by index, so a
    /// take no span plays any longer is still here.
    package private(set) var takes: [Take]
    /// In playing order; none empty, and no two neighbours contiguous in the same take.
    package private(set) var spans: [Span]
    /// Where each span starts in the recording, and at the end its length: `spans.count + 1`
    /// entries, for a binary search from a frame to its span.
    private var starts: [Int64]

    /// A recording of one take, played whole: what every recording made by `record` is.
    package init(take: Take) {
        takes = [take]
        spans = take.frames > 0 ? [Span(take: 0, start: 0, frames: take.frames)] : []
        starts = []
        index()
    }

    /// An edit list as stored; nil when a span names no take or lies outside its take.
    package init?(takes: [Take], spans: [Span]) {
        for span in spans {
            guard takes.indices.contains(span.take), span.start >= 0, span.frames > 0,
                span.end <= takes[span.take].frames
            else { return nil }
        }
        self.takes = takes
        self.spans = spans
        starts = []
        merge()
        index()
    }

    /// The recording's length in frames.
    package var frames: Int64 { starts.last ?? 0 }

    /// Whether it is one take played whole: a recording as `record` made it.
    package var isWholeTake: Bool {
        spans.count == 1 && spans[0].start == 0 && spans[0].frames == takes[spans[0].take].frames
    }

    /// Where span `index` starts in the recording.
    package func start(ofSpan index: Int) -> Int64 { starts[index] }

    /// The span that plays frame `frame` and how far into it the frame is; nil past the end.
    /// O(log n) in the spans.
    package func locate(_ frame: Int64) -> (span: Int, offset: Int64)? {
        guard frame >= 0, frame < frames else { return nil }
        let span = (0..<spans.count).partitionPoint { starts[$0 + 1] <= frame }
        return (span, frame - starts[span])
    }

    /// What plays `range` of the recording, in order: each take's frames and where they go.
    package func pieces(of range: Range<Int64>) -> [(take: Int, frames: Range<Int64>, at: Int64)] {
        let range = range.clamped(to: 0..<frames)
        guard !range.isEmpty, var (index, offset) = locate(range.lowerBound) else { return [] }
        var pieces: [(take: Int, frames: Range<Int64>, at: Int64)] = []
        var at = range.lowerBound
        while at < range.upperBound, index < spans.count {
            let span = spans[index]
            let count = min(span.frames - offset, range.upperBound - at)
            pieces.append((span.take, (span.start + offset)..<(span.start + offset + count), at))
            at += count
            index += 1
            offset = 0
        }
        return pieces
    }

    /// The frames where one span meets the next: where a reader crossfades.
    package var joins: [Int64] { Array(starts.dropFirst().dropLast()) }

    /// Half the length of the crossfade at each join: 5 ms of 48 kHz, short enough that no
    /// word is blurred, long enough that no click is heard.
    package static let crossfade: Int64 = 240

    /// The frames of the recording's `range`, `channels` interleaved, read from the takes by
    /// `read(take, frames)` (which answers those frames of that take, interleaved): the spans'
    /// audio back to back, except within `crossfade` frames of each join. Where both sides'
    /// takes have audio past the join (a cut inside a take, a replacement), what came before
    /// plays on past its span's end and fades out as what comes after fades in from before its
    /// span's start, so the two blend; where either has none (a take's own start or end), the
    /// one before fades out to the join and the one after fades in from it. The length never
    /// changes: a position means the same frame with or without the crossfades.
    package func render(
        _ range: Range<Int64>, channels: Int, crossfade: Int64 = EditList.crossfade,
        read: (Int, Range<Int64>) throws -> [Float]
    ) rethrows -> [Float] {
        let range = range.clamped(to: 0..<frames)
        var out: [Float] = []
        out.reserveCapacity(range.count * channels)
        for piece in pieces(of: range) { out += try read(piece.take, piece.frames) }
        guard crossfade > 0 else { return out }
        for (i, join) in joins.enumerated() {
            let (before, after) = (spans[i], spans[i + 1])
            let half = min(crossfade, before.frames / 2, after.frames / 2)
            let window = (join - half)..<(join + half)
            let shown = window.clamped(to: range)
            guard half > 0, !shown.isEmpty else { continue }
            let blends = before.end + half <= takes[before.take].frames && after.start >= half
            let outgoing = try read(before.take, (before.end - half)..<(before.end + (blends ? half : 0)))
            let incoming = try read(after.take, (after.start - (blends ? half : 0))..<(after.start + half))
            for frame in shown {
                let at = Int(frame - window.lowerBound)
                for channel in 0..<channels {
                    let sample: Float
                    if blends {
                        let gain = Float((Double(at) + 0.5) / Double(2 * half))
                        let index = at * channels + channel
                        sample = outgoing[index] * (1 - gain) + incoming[index] * gain
                    } else if frame < join {
                        sample =
                            outgoing[at * channels + channel] * Float((Double(half - Int64(at)) - 0.5) / Double(half))
                    } else {
                        let into = at - Int(half)
                        sample = incoming[into * channels + channel] * Float((Double(into) + 0.5) / Double(half))
                    }
                    out[Int(frame - range.lowerBound) * channels + channel] = sample
                }
            }
        }
        return out
    }

    // MARK: Operations

    /// Adds `take` (frames must be above 0) at the end: `record --append`.
    package mutating func append(_ take: Take) -> [Change] {
        insert(take, at: frames)
    }

    /// Adds `take` at `frame` (0...frames): `record --insert --at`.
    package mutating func insert(_ take: Take, at frame: Int64) -> [Change] {
        precondition(frame >= 0 && frame <= frames, "an insertion outside the recording")
        guard take.frames > 0 else { return [] }
        takes.append(take)
        let new = Span(take: takes.count - 1, start: 0, frames: take.frames)
        let position = split(at: frame)
        spans.insert(new, at: position)
        merge()
        index()
        return [.inserted(at: frame, frames: take.frames)]
    }

    /// `take` in place of what follows `frame`, for as long as it lasts (the recording grows
    /// when it runs past the end): `record --replace --from`.
    package mutating func replace(from frame: Int64, with take: Take) -> [Change] {
        precondition(frame >= 0 && frame <= frames, "a replacement outside the recording")
        let removed = frame..<min(frame + take.frames, frames)
        var changes = removed.isEmpty ? [] : cut(removed)
        changes += insert(take, at: frame)
        return changes
    }

    /// Removes `range` (within 0..<frames): `cut --from --to`.
    package mutating func cut(_ range: Range<Int64>) -> [Change] {
        precondition(range.lowerBound >= 0 && range.upperBound <= frames, "a cut outside the recording")
        guard !range.isEmpty else { return [] }
        let first = split(at: range.lowerBound)
        let last = split(at: range.upperBound)
        spans.removeSubrange(first..<last)
        merge()
        index()
        return [.removed(range)]
    }

    /// Splits the span that `frame` falls inside, so that a span starts there; returns the
    /// index of the span starting at `frame` (`spans.count` at the end). Leaves `starts`
    /// stale: the caller indexes again.
    private mutating func split(at frame: Int64) -> Int {
        guard let (index, offset) = locate(frame) else { return spans.count }
        guard offset > 0 else { return index }
        let span = spans[index]
        spans[index].frames = offset
        spans.insert(Span(take: span.take, start: span.start + offset, frames: span.frames - offset), at: index + 1)
        starts.insert(starts[index] + offset, at: index + 1)
        return index + 1
    }

    /// Neighbours that continue each other in the same take become one span: a join only
    /// where the audio really jumps.
    private mutating func merge() {
        var merged: [Span] = []
        merged.reserveCapacity(spans.count)
        for span in spans where span.frames > 0 {
            if let last = merged.last, last.take == span.take, last.end == span.start {
                merged[merged.count - 1].frames += span.frames
            } else {
                merged.append(span)
            }
        }
        spans = merged
    }

    private mutating func index() {
        var starts = [Int64](repeating: 0, count: spans.count + 1)
        for (i, span) in spans.enumerated() { starts[i + 1] = starts[i] + span.frames }
        self.starts = starts
    }
}

extension Array where Element == EditList.Change {
    /// Where `frame` is after all these changes; nil once one removed it.
    package func moved(_ frame: Int64) -> Int64? {
        var frame = frame
        for change in self {
            guard let next = change.moved(frame) else { return nil }
            frame = next
        }
        return frame
    }
}

import Foundation
import PropertyBased
import RecValues
import Testing

/// The edit list against the plainest model there is: an array with one element a frame,
/// each the identity of the take frame it plays (take × 1000 + frame). Random appends,
/// inserts, replacements, cuts and undos are done to both; the rendered audio must be the
/// array's, frame for frame (apart from the crossfades at the joins), and a marker must stay
/// on the frame it marked, or go with it when that frame is cut.
@Suite("edit list: spans over immutable takes")
struct EditListTests {
    /// A take's frames are worth their identity (the number in the take's file name × 1000,
    /// plus the frame), so a rendering says where each frame came from.
    static func read(_ takes: [EditList.Take], channels: Int = 1) -> (Int, Range<Int64>) -> [Float] {
        { take, frames in
            frames.flatMap { frame -> [Float] in
                let value = Float(number(of: takes[take]) * 1000 + Int(frame))
                return channels == 1 ? [value] : [value, -value]
            }
        }
    }

    static func number(of take: EditList.Take) -> Int { Int(take.file.dropFirst(4).dropLast(5))! }

    /// Where two renderings first differ, for a message that fits on a screen.
    static func firstDifference(_ a: [Float], _ b: [Float]) -> String? {
        guard a != b else { return nil }
        guard a.count == b.count else { return "\(a.count) samples, not \(b.count)" }
        let at = a.indices.first { a[$0] != b[$0] }!
        return "sample \(at) is \(a[at]), not \(b[at])"
    }

    struct Marker {
        var identity: Int
        var frame: Int64
    }

    @Test("random edits and undos render as the same edits of an array; markers stay on their frames")
    func randomEditsMatchTheArray() {
        var random = Xoshiro(seed: (21, 34, 55, 89))
        for round in 0..<120 {
            var takeCount = 0
            func newTake() -> (EditList.Take, [Int]) {
                let frames = Int.random(in: 1...300, using: &random)
                defer { takeCount += 1 }
                let take = EditList.Take(file: "take\(takeCount).opus", frames: Int64(frames))
                return (take, (0..<frames).map { takeCount * 1000 + $0 })
            }
            let (first, firstFrames) = newTake()
            var list = EditList(take: first)
            var model = firstFrames
            var markers: [Marker] = []
            var history: [(EditList, [Int], [Marker])] = []
            for step in 0..<25 {
                let context = "round \(round), step \(step)"
                // A marker on a random frame now and then, known by the frame it marks.
                if !model.isEmpty && Bool.random(using: &random) {
                    let frame = Int.random(in: 0..<model.count, using: &random)
                    markers.append(Marker(identity: model[frame], frame: Int64(frame)))
                }
                var changes: [EditList.Change] = []
                switch Int.random(in: 0..<6, using: &random) {
                case 0:
                    history.append((list, model, markers))
                    let (take, frames) = newTake()
                    changes = list.append(take)
                    model += frames
                case 1:
                    history.append((list, model, markers))
                    let (take, frames) = newTake()
                    let at = Int.random(in: 0...model.count, using: &random)
                    changes = list.insert(take, at: Int64(at))
                    model.insert(contentsOf: frames, at: at)
                case 2:
                    history.append((list, model, markers))
                    let (take, frames) = newTake()
                    let at = Int.random(in: 0...model.count, using: &random)
                    changes = list.replace(from: Int64(at), with: take)
                    model.replaceSubrange(at..<min(at + frames.count, model.count), with: frames)
                case 3, 4:
                    guard !model.isEmpty else { continue }
                    history.append((list, model, markers))
                    let a = Int.random(in: 0..<model.count, using: &random)
                    let b = Int.random(in: (a + 1)...model.count, using: &random)
                    changes = list.cut(Int64(a)..<Int64(b))
                    model.removeSubrange(a..<b)
                default:
                    guard let last = history.popLast() else { continue }
                    (list, model, markers) = last
                    changes = []
                }
                markers = markers.compactMap { marker in
                    let moved = changes.moved(marker.frame)
                    let expected = model.firstIndex(of: marker.identity).map(Int64.init)
                    #expect(
                        moved == expected,
                        "\(context): a marker at \(marker.frame) went to \(String(describing: moved))")
                    return moved.map { Marker(identity: marker.identity, frame: $0) }
                }
                check(list, against: model, context, using: &random)
            }
        }
    }

    func check(_ list: EditList, against model: [Int], _ context: String, using random: inout Xoshiro) {
        #expect(list.frames == Int64(model.count), "\(context)")
        let read = Self.read(list.takes)
        let plain = list.render(0..<list.frames, channels: 1, crossfade: 0, read: read)
        if let difference = Self.firstDifference(plain, model.map(Float.init)) {
            Issue.record("\(context): \(difference)")
        }
        // Stereo: both channels, in order.
        let stereo = list.render(0..<list.frames, channels: 2, crossfade: 0, read: Self.read(list.takes, channels: 2))
        if let difference = Self.firstDifference(stereo, model.flatMap { [Float($0), -Float($0)] }) {
            Issue.record("\(context), stereo: \(difference)")
        }
        // With crossfades: the same outside 8 frames of each join.
        let faded = list.render(0..<list.frames, channels: 1, crossfade: 8, read: read)
        #expect(faded.count == model.count, "\(context)")
        for (frame, identity) in model.enumerated()
        where !list.joins.contains(where: { ($0 - 8)..<($0 + 8) ~= Int64(frame) }) && faded[frame] != Float(identity) {
            Issue.record("\(context): frame \(frame) is \(faded[frame]), not \(identity)")
            break
        }
        // Any stretch of it read on its own (a seek) is that stretch of the whole.
        if !model.isEmpty {
            let a = Int.random(in: 0..<model.count, using: &random)
            let b = Int.random(in: a...model.count, using: &random)
            let part = list.render(Int64(a)..<Int64(b), channels: 1, crossfade: 8, read: read)
            if let difference = Self.firstDifference(part, Array(faded[a..<b])) {
                Issue.record("\(context): \(a)..<\(b): \(difference)")
            }
            let (span, offset) = list.locate(Int64(a))!
            let found = list.spans[span]
            #expect(
                Self.number(of: list.takes[found.take]) * 1000 + Int(found.start + offset) == model[a],
                "\(context): locate(\(a))")
        }
        // No two neighbouring spans continue each other: each join is a real jump.
        for (a, b) in zip(list.spans, list.spans.dropFirst()) {
            #expect(!(a.take == b.take && a.end == b.start), "\(context): \(a) then \(b)")
        }
    }

    @Test("a stored list is checked: a span outside its take, or of no take, is refused")
    func storedListsAreChecked() {
        let takes = [EditList.Take(file: "a.opus", frames: 100), EditList.Take(file: "b.opus", frames: 50)]
        let good = EditList(
            takes: takes, spans: [.init(take: 1, start: 10, frames: 40), .init(take: 0, start: 0, frames: 100)])
        #expect(good?.frames == 140 && good?.joins == [40])
        #expect(EditList(takes: takes, spans: [.init(take: 1, start: 10, frames: 41)]) == nil)
        #expect(EditList(takes: takes, spans: [.init(take: 2, start: 0, frames: 1)]) == nil)
        #expect(EditList(takes: takes, spans: [.init(take: 0, start: -1, frames: 5)]) == nil)
        #expect(EditList(takes: takes, spans: [.init(take: 0, start: 0, frames: 0)]) == nil)
        // Two spans that continue each other are one.
        let continued = EditList(
            takes: takes, spans: [.init(take: 0, start: 0, frames: 60), .init(take: 0, start: 60, frames: 40)])
        #expect(continued?.spans.count == 1 && continued?.isWholeTake == true)
    }

    @Test("across a join the largest step between samples is within 5/4 of the material's own")
    func joinsDoNotClick() {
        let rate = 48_000.0
        func tone(_ frequency: Double, _ frames: Int, phase: Double = 0) -> [Float] {
            (0..<frames).map { Float(0.5 * sin(phase + 2 * Double.pi * frequency * Double($0) / rate)) }
        }
        let audio = [tone(440, 48_000), tone(660, 30_000, phase: 1.3)]
        var list = EditList(take: .init(file: "a.opus", frames: 48_000))
        _ = list.append(.init(file: "b.opus", frames: 30_000))
        // A cut inside the first take where its tone is half a cycle out (71.5 cycles go), and the
        // second take appended.
        _ = list.cut(12_345..<20_145)
        let rendered = list.render(0..<list.frames, channels: 1) { take, frames in
            Array(audio[take][Int(frames.lowerBound)..<Int(frames.upperBound)])
        }
        func largestStep(_ samples: ArraySlice<Float>) -> Float {
            zip(samples, samples.dropFirst()).map { abs($1 - $0) }.max() ?? 0
        }
        let own = audio.map { largestStep($0[...]) }.max()!
        #expect(list.joins.count == 2)
        for join in list.joins.map(Int.init) {
            let around = largestStep(rendered[(join - 600)..<(join + 600)])
            #expect(around <= own * 5 / 4, "step \(around) at \(join) against \(own)")
        }
        // Without the crossfade, the cut is a click.
        let hard = list.render(0..<list.frames, channels: 1, crossfade: 0) { take, frames in
            Array(audio[take][Int(frames.lowerBound)..<Int(frames.upperBound)])
        }
        let join = Int(list.joins[0])
        #expect(largestStep(hard[(join - 600)..<(join + 600)]) > own * 5 / 4)
    }
}

// What the tests of every layer share: a scratch directory, a small store, a seeded generator.
import Foundation
import RecStore
import RecSystem
import RecValues

#if canImport(Testing)
    import Testing
#endif

/// A fresh directory under the system temporary directory, removed when the value goes away.
package final class TemporaryDirectory {
    package let path: String

    package init() throws {
        path = NSTemporaryDirectory() + "recnotes-unit-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    package var location: StoreLocation { StoreLocation(directory: path) }

    package func bytes(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + name).map { [UInt8]($0) }
    }

    package func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    package func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/" + name)
    }
}

/// A small deterministic generator (SplitMix64): every random test prints its seed, and the same
/// seed replays the same cases.
package struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed from `$RECNOTES_TEST_SEED`, else `fallback`.
    package static func seed(_ fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["RECNOTES_TEST_SEED"].flatMap { UInt64($0) } ?? fallback
    }
}

/// A small document with UUIDs chosen so that prefixes can be unique or ambiguous:
///
///     /                         00000000-…
///     ├── Home/                 a0b1c2d3-…
///     └── Work/                 3f2a1111-…
///         └── Ideas/            3f2a2222-…
///             └── standup       beef0000-…   (recording)
package enum Fixture {
    package static let work = ItemID("3f2a1111-0000-4000-8000-000000000001")!
    package static let ideas = ItemID("3f2a2222-0000-4000-8000-000000000002")!
    package static let home = ItemID("a0b1c2d3-0000-4000-8000-000000000003")!
    package static let standup = ItemID("beef0000-0000-4000-8000-000000000004")!
    package static let created = Timestamp(millisecondsSinceEpoch: 1_700_000_000_000)

    /// With an analysis (of silence, its loudness too), as every recording saved since store
    /// version 5 has.
    package static func info(_ id: ItemID, duration: Double = 12.5, format: AudioFormat = .opus) -> RecordingInfo {
        let frames = Int64(duration * 48000)
        return RecordingInfo(
            duration: duration, frames: frames, sampleRate: 48000, channels: 1,
            format: format, file: "\(id).\(format.fileExtension)",
            analysis: AudioAnalysis(
                frames: frames, sampleRate: 48000, level: .silence,
                peaks: [Double](repeating: 0, count: AudioAnalysis.waveformPoints),
                loudness: Loudness(integrated: Loudness.gate, range: 0, truePeak: Level.floor)))
    }

    package static func build(into tx: inout DocumentStore.Transaction) throws {
        try tx.add(.folder(id: work, name: "Work", parent: .root, created: created))
        try tx.add(.folder(id: home, name: "Home", parent: .root, created: created))
        try tx.add(.folder(id: ideas, name: "Ideas", parent: work, created: created))
        try tx.add(.recording(id: standup, name: "standup", parent: ideas, created: created, info: info(standup)))
    }

    package static func document() throws -> Document {
        var tx = DocumentStore.Transaction(document: Document())
        try build(into: &tx)
        return tx.document
    }
}

extension Fixture {
    /// Names that the JSON writer must escape or that sort unlike their bytes, beside plain ones.
    package static let randomNames = ["memo", "Memo 2", "memo 10", "idée", "say \"hi\"", "back\\slash", "日本", "mic 🎙"]

    /// Adds `count` random folders and recordings, a few levels deep, some with a note, tags,
    /// markers or trim points; returns the folders (the root first) and the recordings.
    @discardableResult
    package static func addRandomItems(
        _ count: Int, into tx: inout DocumentStore.Transaction, using rng: inout SeededRandom
    ) throws -> (folders: [ItemID], recordings: [ItemID]) {
        var folders: [ItemID] = [.root]
        var recordings: [ItemID] = []
        for n in 0..<count {
            let parent = folders.randomElement(using: &rng)!
            let name = "\(randomNames.randomElement(using: &rng)!) \(n)"
            let created = Timestamp(millisecondsSinceEpoch: 1_700_000_000_000 + Int64(rng.next() % 1_000_000_000))
            if rng.next() % 4 == 0 {
                let folder = Item.folder(id: randomID(using: &rng), name: name, parent: parent, created: created)
                try tx.add(folder)
                folders.append(folder.id)
            } else {
                let id = randomID(using: &rng)
                var item = Item.recording(
                    id: id, name: name, parent: parent, created: created,
                    info: info(id, duration: Double(rng.next() % 10_000) / 100 + 1))
                item.annotations = randomAnnotations(recording: true, using: &rng)
                try tx.add(item)
                recordings.append(id)
            }
        }
        return (folders, recordings)
    }

    /// A version-4 UUID from `rng`.
    package static func randomID(using rng: inout SeededRandom) -> ItemID {
        ItemID(
            high: (rng.next() & ~0xF000) | 0x4000, low: (rng.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }

    /// A random note, tags and (for a recording) markers and trim points, often none.
    package static func randomAnnotations(recording: Bool, using rng: inout SeededRandom) -> Annotations {
        var annotations = Annotations()
        if rng.next() % 2 == 0 {
            annotations.note = "note \(rng.next() % 100)\n\t\(randomNames.randomElement(using: &rng)!)"
        }
        // As every change leaves them: sorted, each once.
        annotations.tags = Set((0..<rng.next() % 4).map { _ in "t\(rng.next() % 6)" }).sorted()
        guard recording else { return annotations }
        for _ in 0..<rng.next() % 4 {
            annotations.markers.append(Marker(frame: Int64(rng.next() % 48000), label: "m\(rng.next() % 3)"))
        }
        if rng.next() % 5 == 0 { annotations.trim = TrimPoints(inFrame: 10, outFrame: 4000 + Int64(rng.next() % 100)) }
        return annotations
    }
}

// What needs Swift Testing: a release build (which builds this target too) has no Testing module.
#if canImport(Testing)
    /// Runs `body` and returns the RecError it threw; records an issue if it threw nothing or
    /// something else.
    @discardableResult
    package func recError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> RecError? {
        do {
            try body()
            Issue.record("expected a RecError, nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as RecError {
            return error
        } catch {
            Issue.record("expected a RecError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// The reason a corrupt store.json is refused; records an issue if it decodes.
    package func corruptReason(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            _ = try bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0) }
            Issue.record("decoded without error", sourceLocation: sourceLocation)
        } catch let corrupt as DocumentCodec.Corrupt {
            return corrupt.reason
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    package func corruptReason(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        corruptReason(Array(text.utf8), sourceLocation: sourceLocation)
    }

    /// The engine's side of `fsck` for a store that holds no audio file: the check must never
    /// need it, so each question records an issue (RecStore's tests run without the engine).
    package struct NoAudioInspection: AudioInspection {
        package init() {}

        package func check(path: String) throws {
            Issue.record("fsck opened \(path), in a store without audio")
        }

        package func recordingInfo(path: String, file: String) -> RecordingInfo? {
            Issue.record("fsck measured \(path), in a store without audio")
            return nil
        }

        package func analyzed(_ info: RecordingInfo, path: String) -> RecordingInfo {
            Issue.record("fsck analysed \(path), in a store without audio")
            return info
        }

        package func loudnessUnavailable() -> String? {
            Issue.record("fsck asked for the loudness meter, in a store without audio")
            return nil
        }
    }

    /// ffmpeg's `ebur128` filter, an implementation of EBU R128 other than the one recnotes
    /// uses (libebur128): what the loudness figures are checked against, in any layer's tests.
    package enum FFmpegLoudness {
        package static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }

        /// Integrated (LUFS), range (LU) and true peak (dBFS, ffmpeg's name for dBTP) of `path`.
        package static func measure(_ path: String) throws -> (integrated: Double, range: Double, truePeak: Double) {
            let text = String(
                decoding: try FinishedProgram.run(
                    try #require(ffmpeg),
                    ["-nostats", "-nostdin", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"],
                    environment: ProcessInfo.processInfo.environment
                ).stderr, as: UTF8.self)
            // The summary is last; each figure is the number after its label there.
            let summary = try #require(text.range(of: "Summary:", options: .backwards).map { text[$0.upperBound...] })
            func figure(_ label: String) throws -> Double {
                let line = try #require(
                    summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) })
                let number = try #require(line.split(separator: " ").dropFirst().first { Double($0) != nil }, "\(line)")
                return Double(number)!
            }
            return (try figure("I:"), try figure("LRA:"), try figure("Peak:"))
        }
    }
#endif

/// Word error rate, as bench/wer.awk counts it: (substitutions + deletions + insertions) over
/// the reference's words, by word-level Levenshtein distance, both texts normalised as the
/// bench's `normalize` does (lower case; pronunciation variants' `(2)` and everything but
/// letters and apostrophes dropped).
package enum WordErrorRate {
    package static func words(_ text: String) -> [Substring] {
        let cleaned = text.lowercased().replacing(/\(\d*\)/, with: "").map {
            $0.isASCII && $0.isLetter || $0 == "'" ? $0 : " "
        }
        return String(cleaned).split(separator: " ")
    }

    /// Errors and reference words.
    package static func errors(reference: String, hypothesis: String) -> (errors: Int, words: Int) {
        let r = words(reference)
        let h = words(hypothesis)
        guard !r.isEmpty else { return (h.count, 0) }
        var previous = Array(0...h.count)
        for i in 1...r.count {
            var row = [i] + [Int](repeating: 0, count: h.count)
            for j in stride(from: 1, through: h.count, by: 1) {
                row[j] = min(previous[j - 1] + (r[i - 1] == h[j - 1] ? 0 : 1), previous[j] + 1, row[j - 1] + 1)
            }
            previous = row
        }
        return (previous[h.count], r.count)
    }

    package static func rate(reference: String, hypothesis: String) -> Double {
        let (errors, words) = errors(reference: reference, hypothesis: hypothesis)
        return Double(errors) / Double(max(words, 1))
    }
}

import Foundation
import Testing

@testable import RecCore

/// A fresh directory under the system temporary directory, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "recnotes-unit-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var location: StoreLocation { StoreLocation(directory: path) }

    func bytes(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + name).map { [UInt8]($0) }
    }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/" + name)
    }
}

/// A small document with UUIDs chosen so that prefixes can be unique or ambiguous:
///
///     /                         00000000-…
///     ├── Home/                 a0b1c2d3-…
///     └── Work/                 3f2a1111-…
///         └── Ideas/            3f2a2222-…
///             └── standup       beef0000-…   (recording)
enum Fixture {
    static let work = ItemID("3f2a1111-0000-4000-8000-000000000001")!
    static let ideas = ItemID("3f2a2222-0000-4000-8000-000000000002")!
    static let home = ItemID("a0b1c2d3-0000-4000-8000-000000000003")!
    static let standup = ItemID("beef0000-0000-4000-8000-000000000004")!
    static let created = Timestamp(millisecondsSinceEpoch: 1_700_000_000_000)

    /// With an analysis (of silence), as every recording saved since store version 3 has.
    static func info(_ id: ItemID, duration: Double = 12.5, format: AudioFormat = .opus) -> RecordingInfo {
        let frames = Int64(duration * 48000)
        return RecordingInfo(
            duration: duration, frames: frames, sampleRate: 48000, channels: 1,
            format: format, file: "\(id).\(format.fileExtension)",
            analysis: AudioAnalysis(
                frames: frames, sampleRate: 48000, level: .silence,
                peaks: [Double](repeating: 0, count: AudioAnalysis.waveformPoints)))
    }

    static func build(into tx: inout DocumentStore.Transaction) throws {
        try tx.add(.folder(id: work, name: "Work", parent: .root, created: created))
        try tx.add(.folder(id: home, name: "Home", parent: .root, created: created))
        try tx.add(.folder(id: ideas, name: "Ideas", parent: work, created: created))
        try tx.add(.recording(id: standup, name: "standup", parent: ideas, created: created, info: info(standup)))
    }

    static func document() throws -> Document {
        var tx = DocumentStore.Transaction(document: Document())
        try build(into: &tx)
        return tx.document
    }
}

/// Runs `body` and returns the RecError it threw; records an issue if it threw nothing or
/// something else.
@discardableResult
func recError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> RecError? {
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

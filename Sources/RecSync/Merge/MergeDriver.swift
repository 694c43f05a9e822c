import RecStore
import RecSystem
import RecValues

/// `recnotes sync merge-driver %O %A %B %P`: git's merge driver for store.json
/// (SYNC-INTERFACE.md). Reads the three versions, merges them with `LibraryMerge`, writes the
/// result over %A atomically and appends each resolved conflict to the report. Garbage or a
/// newer store version on any side is refused before anything is written.
public enum MergeDriver {
    /// The conflicts resolved; a refusal is a `RecError` (exit 1), with nothing written.
    @discardableResult
    public static func run(
        base: String, ours: String, theirs: String, report: String?, oursName: String, theirsName: String
    ) throws -> [MergeConflict] {
        let b = try load(base, "base")
        let o = try load(ours, "ours")
        let t = try load(theirs, "theirs")
        let (merged, conflicts) = LibraryMerge.merge(
            base: b, ours: o, theirs: t, oursName: oursName, theirsName: theirsName)
        do {
            // Not durable: git reads %A at once and stores it as an object; atomic is what matters.
            try FileSystem.writeAtomically(DocumentCodec.encode(merged), to: ours, durable: false)
        } catch {
            throw refused("\(ours): \(error)")
        }
        if let report, !conflicts.isEmpty { try? append(conflicts, to: report) }
        return conflicts
    }

    static func refused(_ reason: String) -> RecError { .failure("sync merge-driver", reason) }

    /// This machine's name (`recnotes.machine` in the repository's config), for merged notes.
    public static func machineName(gitDirectory: String) -> String? {
        SyncSetup.machineName(Git(directory: gitDirectory + "/.."))
    }

    static func load(_ path: String, _ side: String) throws -> Document {
        let bytes: [UInt8]?
        do { bytes = try FileSystem.read(path) } catch { throw refused("\(path): \(error)") }
        guard let bytes else { throw refused("\(path): no such file") }
        // git gives an empty base when both sides added the file.
        if bytes.isEmpty && side == "base" { return Document() }
        do {
            return try bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0).0 }
        } catch {
            throw refused("\(side) (\(path)): \(error)")
        }
    }

    /// One JSON object a line, appended: sync reads and removes the file after a merge.
    static func append(_ conflicts: [MergeConflict], to path: String) throws {
        var w = JSONWriter()
        for c in conflicts {
            w.raw("{\"kind\": ")
            w.string(c.kind.rawValue)
            w.raw(", \"item\": ")
            w.string("\(c.item)")
            w.raw(", \"path\": ")
            w.string(c.path)
            w.raw(", \"kept\": ")
            w.string(c.kept)
            w.raw(", \"other\": ")
            w.string(c.other)
            w.raw("}\n")
        }
        try FileSystem.makeDirectories(FileSystem.parentDirectory(of: path))
        let old = (try? FileSystem.read(path)) ?? nil
        try FileSystem.writeAtomically((old ?? []) + w.bytes, to: path)
    }
}

import RecStore
import RecSystem
import RecValues

/// `recnotes sync merge-driver %O %A %B %P`: git's merge driver for store.json
/// (SYNC-INTERFACE.md). Reads the three versions, merges them with `LibraryMerge`, writes the
/// result over %A atomically and appends each resolved conflict to the report. Garbage or a
/// newer store version on any side is refused before anything is written.
package enum MergeDriver {
    /// The conflicts resolved; a refusal is a `RecError` (exit 1), with nothing written.
    @discardableResult
    package static func run(
        base: String, ours: String, theirs: String, report: String?, oursName: String, theirsName: String
    ) throws -> [MergeConflict] {
        let paths = [base, ours, theirs]
        // theirs is read on a second thread while base and ours are read here.
        let (two, last) = try JoinableThread.both(
            { try [read(base, "base"), read(ours, "ours")] }, { try read(theirs, "theirs") })
        let files = two + [last]
        // git gives an empty base when both sides added the file.
        let baseIsEmpty = files[0].isEmpty
        // Most items are the same bytes on all three sides: those are decoded once, only as
        // far as the merge looks, and copied back (`SharedItemsCodec`); a file not laid out
        // as this version writes it is decoded whole.
        let shared: SharedItemsCodec.Decoded?
        do {
            shared = baseIsEmpty ? nil : try SharedItemsCodec.decode(files)
        } catch let failure as SharedItemsCodec.Failure {
            let side = ["base", "ours", "theirs"][failure.index]
            throw refused("\(side) (\(paths[failure.index])): \(failure.error)")
        }
        let documents =
            try shared?.documents
            ?? zip(files, zip(paths, ["base", "ours", "theirs"])).map {
                try decode($0, $1.0, $1.1)
            }
        let (merged, conflicts) = LibraryMerge.merge(
            base: documents[0], ours: documents[1], theirs: documents[2], oursName: oursName, theirsName: theirsName,
            differing: shared?.differing)
        let bytes = shared.map { SharedItemsCodec.encode(merged, $0) } ?? DocumentCodec.encode(merged)
        do {
            // Not durable: git reads %A at once and stores it as an object; atomic is what matters.
            try FileSystem.writeAtomically(bytes, to: ours, durable: false)
        } catch {
            throw refused("\(ours): \(error)")
        }
        if let report, !conflicts.isEmpty { try? append(conflicts, to: report) }
        return conflicts
    }

    static func refused(_ reason: String) -> RecError { .failure("sync merge-driver", reason) }

    /// This machine's name (`recnotes.machine` in the repository's config), for merged notes.
    package static func machineName(gitDirectory: String) -> String? {
        SyncSetup.machineName(Git(directory: gitDirectory + "/.."))
    }

    /// The machine whose commit is being merged in: its commits' author is `recnotes on
    /// NAME` (`sync init`); nil outside a merge, or for a commit a person made.
    package static func otherMachineName() -> String? {
        guard let commit = TranscriptMerge.mergedCommit(),
            let run = try? ProcessLaunch(["git", "log", "-1", "--format=%an", commit]).capture(timeout: 30),
            run.status == 0
        else { return nil }
        let author = String(decoding: run.stdout, as: UTF8.self).trimmed
        return author.hasPrefix("recnotes on ") ? String(author.dropFirst("recnotes on ".count)) : nil
    }

    static func read(_ path: String, _ side: String) throws -> [UInt8] {
        let bytes: [UInt8]?
        do { bytes = try FileSystem.read(path) } catch { throw refused("\(path): \(error)") }
        guard let bytes else { throw refused("\(path): no such file") }
        return bytes
    }

    static func decode(_ bytes: [UInt8], _ path: String, _ side: String) throws -> Document {
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
        try FileSystem.makeDirectories(FileSystem.parentDirectory(of: path))
        let old = (try? FileSystem.read(path)) ?? nil
        try FileSystem.writeAtomically((old ?? []) + MergeReportCodec.encode(conflicts), to: path)
    }
}

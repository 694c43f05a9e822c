import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `recnotes sync merge-driver --transcript %O %A %B %P`: git's merge driver for
/// `transcripts/` (SYNC-INTERFACE.md). The same recording transcribed on both machines: the
/// better transcript stays (one corrected by hand beats an engine's, an engine's beats the
/// built-in PocketSphinx draft; otherwise the newer), reported as a "transcript" conflict. Changed on one side only: that side's.
///
/// `<uuid>.txt` is the transcript's search index, derived from `<uuid>.json`; git merges the
/// two files separately and in no set order, so the index is made again from the transcript
/// that wins, read from the two commits being merged (`HEAD` and the one git names in
/// `GITHEAD_<sha>`; sync, which merges without `git merge`, names ours in `RECNOTES_MERGE_OURS`
/// as well). Without them (not a merge git runs), ours is kept, and `fsck --repair`
/// makes a stale index again.
package enum TranscriptMerge {
    /// Which of two transcripts changed on both sides stays: true for ours.
    package static func oursIsBetter(_ ours: Transcript, _ theirs: Transcript) -> Bool {
        // A correction by hand is the user's own words: it beats any engine's.
        func rank(_ t: Transcript) -> (Int, Int, Int, Timestamp) {
            (t.corrected ? 1 : 0, t.engine == builtInEngine ? 0 : 1, t.quality == .draft ? 0 : 1, t.created)
        }
        let (o, t) = (rank(ours), rank(theirs))
        if o != t { return o > t }
        // The same rank and time: the same choice on both machines, by content.
        return TranscriptFormat.json.render(ours, duration: nil) <= TranscriptFormat.json.render(theirs, duration: nil)
    }

    /// The engine built into recnotes, whose transcripts are drafts.
    package static let builtInEngine = "pocketsphinx"

    /// Merges into `ours`; the conflict resolved, if any. `repositoryPath` is %P.
    @discardableResult
    package static func run(
        base: String, ours: String, theirs: String, repositoryPath: String?, report: String?, oursName: String,
        theirsName: String
    ) throws -> MergeConflict? {
        let path = repositoryPath ?? ""
        if path.hasSuffix(".txt") {
            try mergeIndex(ours: ours, repositoryPath: path)
            return nil
        }
        let b = try readTranscript(base, "base", emptyAllowed: true)
        let o = try readTranscript(ours, "ours", emptyAllowed: false)
        let t = try readTranscript(theirs, "theirs", emptyAllowed: false)
        guard let o = o?.transcript, let t = t?.transcript else { throw MergeDriver.refused("no transcript") }
        if o == t || t == b?.transcript { return nil }  // ours stays
        if o == b?.transcript {
            try write(try FileSystem.read(theirs) ?? [], to: ours)
            return nil
        }
        let oursWins = oursIsBetter(o, t)
        if !oursWins { try write(try FileSystem.read(theirs) ?? [], to: ours) }
        let id = ItemID(String(path.split(separator: "/").last?.split(separator: ".").first ?? "")) ?? .root
        func describe(_ t: Transcript, _ machine: String) -> String {
            "\(t.engine)\(t.quality == .draft ? " draft" : ""), \(t.created) (\(machine))"
        }
        let conflict = MergeConflict(
            kind: .transcript, item: id, path: itemPath(id) ?? path,
            kept: oursWins ? describe(o, oursName) : describe(t, theirsName),
            other: oursWins ? describe(t, theirsName) : describe(o, oursName))
        if let report { try? MergeDriver.append([conflict], to: report) }
        return conflict
    }

    /// The index of the transcript that wins, from the two commits git merges.
    static func mergeIndex(ours: String, repositoryPath: String) throws {
        let json = String(repositoryPath.dropLast(4)) + ".json"
        // sync merges without `git merge` and names ours, which is not HEAD yet (`SyncReceive`).
        let oursCommit = Environment.value(oursCommitVariable) ?? "HEAD"
        guard let theirsCommit = mergedCommit(), let o = blob(oursCommit, json), let t = blob(theirsCommit, json)
        else { return }  // ours stays
        let winner = oursIsBetter(o, t) ? o : t
        try write(TranscriptFiles.index(winner), to: ours)
    }

    /// The commit sync's merge takes as ours, for the drivers it runs (`SyncReceive`).
    static let oursCommitVariable = "RECNOTES_MERGE_OURS"

    /// A transcript as it is in `commit`, nil when it cannot be read.
    static func blob(_ commit: String, _ path: String) -> Transcript? {
        guard let run = try? ProcessLaunch(["git", "cat-file", "blob", "\(commit):\(path)"]).capture(timeout: 30),
            run.status == 0
        else { return nil }
        return try? TranscriptCodec.decode(run.stdout)
    }

    /// The commit being merged in: git names it to drivers as `GITHEAD_<sha>=<name>`.
    static func mergedCommit() -> String? {
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if text.hasPrefix("GITHEAD_"), let equals = text.firstIndex(of: "=") {
                let sha = text[text.index(text.startIndex, offsetBy: 8)..<equals]
                if sha.count >= 40, sha.allSatisfy(\.isHexDigit) { return String(sha) }
            }
            entry += 1
        }
        return nil
    }

    /// Where the recording is, from the store.json in the work tree (git runs drivers at its
    /// top); nil when it cannot be read.
    static func itemPath(_ id: ItemID) -> String? {
        guard let bytes = try? FileSystem.read("store.json"),
            let document = try? bytes.withUnsafeBufferPointer({ try DocumentCodec.decode($0, strict: false).0 })
        else { return nil }
        return document.whereabouts(of: id)
    }

    static func readTranscript(_ path: String, _ side: String, emptyAllowed: Bool) throws -> (
        bytes: [UInt8], transcript: Transcript?
    )? {
        let bytes: [UInt8]?
        do { bytes = try FileSystem.read(path) } catch { throw MergeDriver.refused("\(path): \(error)") }
        guard let bytes else { throw MergeDriver.refused("\(path): no such file") }
        // git gives an empty base when both sides added the file.
        if bytes.isEmpty && emptyAllowed { return (bytes, nil) }
        do {
            return (bytes, try TranscriptCodec.decode(bytes))
        } catch {
            throw MergeDriver.refused("\(side) (\(path)): not a transcript: \(error)")
        }
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        do {
            try FileSystem.writeAtomically(bytes, to: path, durable: false)
        } catch {
            throw MergeDriver.refused("\(path): \(error)")
        }
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// `fsck`: checks `store.json` against `audio/` and `viewstate.json`, and repairs only what
/// is safe. Nothing that holds audio is deleted: orphan audio is adopted into `/Recovered`,
/// broken links are rebuilt from parent pointers, clashing names get a ` (2)` suffix, and
/// the view state is trimmed to what exists. What is removed holds nothing: empty orphan
/// audio files and the temporary files of a process that is gone. A lost `store.json` is
/// rebuilt from the journal (names and folders) and the audio files.
public struct StoreCheck {
    public enum Problem: Equatable, Sendable, CustomStringConvertible {
        case link(DocumentCodec.LinkProblem)
        case missingAudio(path: String, file: String)
        case unreadableAudio(path: String, file: String, reason: String)
        case orphanAudio(file: String)
        case staleRecording(name: String, pid: Int32, file: String)
        case danglingViewState(String)
        /// `file` is relative to the store directory (`audio/.import-…` for an import's).
        case strayTemporary(file: String)
        /// An orphan audio file with nothing in it (a recording or import killed at once).
        case emptyOrphanAudio(file: String)
        /// `store.json` is gone but audio files or the journal are there.
        case missingStore
        /// Markers later than the recording's last frame (its audio was cut short, or the
        /// store was edited by hand); `--repair` moves them to the end.
        case markersPastEnd(path: String, count: Int)
        /// Recordings saved without their analysis (levels, waveform, speech): by a store
        /// older than version 3, or rebuilt by hand. `info` measures them each time;
        /// `--repair` measures them once and stores them.
        case missingAnalysis(paths: [String])
        /// Trim points past the recording's last frame; `--repair` clamps them to the audio
        /// (and removes them if nothing is left between them).
        case trimPastEnd(path: String)
        /// `transcripts/<uuid>.json` of no recording, in the store or in the trash;
        /// `--repair` removes it (a recording removed for good while the file was written).
        case orphanTranscript(file: String)
        /// A transcript that does not parse; `--repair` removes it (`transcribe --missing`
        /// makes it again).
        case unreadableTranscript(path: String, file: String, reason: String)
        /// A transcript whose times go past the end of its recording; `--repair` cuts it there.
        case transcriptPastEnd(path: String, file: String, seconds: Double)
        /// `transcripts/<uuid>.txt`, what `find --text` reads, is missing or does not match
        /// its transcript (a crash between the two writes); `--repair` writes it again.
        case staleTranscriptIndex(path: String, file: String)
        /// `undo/<file>`, a transcript kept for an undo that no journal entry names any more
        /// (a crash between keeping it and journaling, or a lost journal); `--repair` removes it.
        case unusedUndoCopy(file: String)
        /// `cache/<file>`, `find`'s index, claims to be current but does not say what
        /// `store.json` or `transcripts/` say (a hand edit or a disk error): `find` would
        /// answer wrongly. `--repair` removes it, and the next `find` makes it again.
        case wrongSearchIndex(file: String)

        public var description: String {
            switch self {
            case .link(let problem): return "store.json: \(problem)"
            case .missingAudio(let path, let file): return "\(path): audio file audio/\(file) is missing"
            case .unreadableAudio(let path, let file, let reason):
                return "\(path): audio file audio/\(file) is unreadable: \(reason)"
            case .orphanAudio(let file): return "audio/\(file): belongs to no recording"
            case .staleRecording(let name, let pid, let file) where file.isEmpty:
                return
                    "viewstate.json: a recording to \(name == "-" ? "standard output" : name) was left in progress by pid \(pid), which is gone"
            case .staleRecording(let name, let pid, let file):
                return
                    "viewstate.json: recording \"\(name)\" (audio/\(file)) was left in progress by pid \(pid), which is gone"
            case .danglingViewState(let what): return "viewstate.json: \(what)"
            case .strayTemporary(let file) where file.hasPrefix("audio/.import-"):
                return "\(file): left by an import that was interrupted (its process is gone)"
            case .strayTemporary(let file) where SaveReserve.isReserve(file):
                return "\(file): room a recording set aside to save in, left by a process that is gone"
            case .strayTemporary(let file):
                return "\(file): left by a write that was interrupted (the file it was replacing is intact)"
            case .emptyOrphanAudio(let file): return "audio/\(file): empty, and belongs to no recording"
            case .missingStore:
                return "store.json: missing, but audio/ or journal.jsonl is there (--repair rebuilds it from them)"
            case .markersPastEnd(let path, let count):
                return "\(path): \(count) marker\(count == 1 ? " is" : "s are") past the end of the recording"
            case .missingAnalysis(let paths):
                let named = paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? ", …" : "")
                return
                    "\(paths.count) recording\(paths.count == 1 ? " has" : "s have") no stored levels and waveform (\(named)); info measures them each time, --repair stores them"
            case .trimPastEnd(let path): return "\(path): its trim points are past the end of the recording"
            case .orphanTranscript(let file): return "transcripts/\(file): belongs to no recording"
            case .unreadableTranscript(let path, let file, let reason):
                return "\(path): transcript transcripts/\(file) is unreadable: \(reason)"
            case .transcriptPastEnd(let path, let file, let seconds):
                return
                    "\(path): transcript transcripts/\(file) goes on to \(Format.clock(seconds)), past the end of the recording"
            case .staleTranscriptIndex(let path, let file):
                return "\(path): the search index of transcripts/\(file) is missing or out of date"
            case .unusedUndoCopy(let file): return "undo/\(file): kept for an undo that the journal no longer has"
            case .wrongSearchIndex(let file): return "\(file): find's index does not match what it was made from"
            }
        }

        /// What `--repair` can safely fix.
        public var isRepairable: Bool {
            switch self {
            case .missingAudio, .unreadableAudio: return false
            default: return true
            }
        }
    }

    public struct Report: Sendable {
        public var problems: [Problem]
        /// With `--repair`: what was done, one line each.
        public var repairs: [String]
        /// Problems still there afterwards (the CLI checks again after a repair).
        public var remaining: [Problem]
        /// With `--repair`: what could not be repaired now, and why (one line each).
        public var unrepaired: [String] = []
        /// What the checked (or repaired) document holds, the root folder not counted.
        public var folders = 0
        public var recordings = 0
    }

    public static let recoveredFolder = "Recovered"

    public let location: StoreLocation

    public init(location: StoreLocation) {
        self.location = location
    }

    /// Runs the check, and with `repair` fixes what is safe under the store lock. A store
    /// that cannot be written is checked without the lock, and repairing it is refused.
    public func run(repair: Bool, isAlive: (Int32) -> Bool = processIsAlive) throws -> Report {
        if !location.isWritable {
            if repair {
                throw RecError.failure(
                    location.directory,
                    "the store is read-only (\(location.writeProblem ?? "not writable")); fsck --repair must write it")
            }
            return try check(repair: false, isAlive: isAlive)
        }
        return try FileLock.withLock(location.storeLockFile) { try check(repair: repair, isAlive: isAlive) }
    }

    private func check(repair: Bool, isAlive: (Int32) -> Bool) throws -> Report {
        var (document, linkProblems, version, itemRanges) = try loadLeniently()
        let storeMissing = location.hasLostDocuments
        var problems = storeMissing ? [Problem.missingStore] : []
        problems += linkProblems.map(Problem.link)
        problems += audioProblems(document)
        let lateMarkers = document.preorder().filter(\.hasMarkersPastEnd)
        problems += lateMarkers.map { item in
            Problem.markersPastEnd(
                path: document.path(of: item.id),
                count: item.annotations.markers.filter { $0.frame > item.recording!.frames }.count)
        }
        let unreadable = Set(
            problems.compactMap { problem -> String? in
                switch problem {
                case .missingAudio(_, let file), .unreadableAudio(_, let file, _): return file
                default: return nil
                }
            })
        let unmeasured = document.preorder().filter { item in
            guard let info = item.recording else { return false }
            return info.analysis == nil && !unreadable.contains(info.file)
        }
        if !unmeasured.isEmpty { problems.append(.missingAnalysis(paths: unmeasured.map { document.path(of: $0.id) })) }
        let lateTrims = document.preorder().filter(\.hasTrimPastEnd)
        problems += lateTrims.map { Problem.trimPastEnd(path: document.path(of: $0.id)) }
        let transcripts = transcriptProblems(document)
        problems += transcripts
        let viewState = readViewState()
        // A recording in progress owns its file; a dead one's file is recovered, not adopted.
        let inProgressFile = viewState?.recording?.file
        var orphans = orphanFiles(document).filter { $0 != inProgressFile }
        let empty = orphans.filter { FileSystem.size(location.audioPath($0)) == 0 }
        orphans.removeAll { empty.contains($0) }
        problems += orphans.map { Problem.orphanAudio(file: $0) }
        problems += empty.map { Problem.emptyOrphanAudio(file: $0) }
        if let entry = viewState?.recording, !isAlive(entry.pid) {
            problems.append(.staleRecording(name: entry.name, pid: entry.pid, file: entry.file))
        }
        if let viewState, let dangling = danglingDescription(viewState, document) {
            problems.append(.danglingViewState(dangling))
        }
        let unusedUndoCopies = Self.unusedUndoCopies(location)
        problems += unusedUndoCopies.map { Problem.unusedUndoCopy(file: $0) }
        // Compared only with a store that loads as it is: find's index is made from that.
        let wrongIndexes =
            linkProblems.isEmpty && !storeMissing
            ? SearchIndexFiles.disagreeing(with: document, itemRanges: itemRanges, location: location) : []
        problems += wrongIndexes.map { Problem.wrongSearchIndex(file: $0) }
        let strays = strayTemporaries(isAlive: isAlive)
        problems += strays.map { Problem.strayTemporary(file: $0) }
        guard repair, !problems.isEmpty else {
            return Report(problems: problems, repairs: [], remaining: problems, document: document)
        }

        var repairs: [String] = []
        if storeMissing {
            repairs += rebuildFromJournal(&document)
            orphans = orphanFiles(document).filter { $0 != inProgressFile && !empty.contains($0) }
        }
        if !linkProblems.isEmpty {
            repairs += reattachStrays(&document)
            repairs += renameDuplicates(&document)
            repairs.append("rebuilt folder links from the items' parent pointers")
        }
        repairs += adopt(orphans, into: &document)
        for item in lateMarkers {
            let end = item.recording!.frames
            document.items[item.id]!.annotations.markers = MarkerRules.sorted(
                item.annotations.markers.map { Marker(frame: min($0.frame, end), label: $0.label) })
            repairs.append("moved the markers past the end of \(document.path(of: item.id)) to its end")
        }
        for item in lateTrims {
            let clamped = item.annotations.trim?.clamped(to: item.recording!.frames)
            document.items[item.id]!.annotations.trim = clamped
            repairs.append(
                clamped == nil
                    ? "removed the trim points of \(document.path(of: item.id)), which were past its end"
                    : "clamped the trim points of \(document.path(of: item.id)) to its audio")
        }
        var measured = 0
        for item in unmeasured {
            guard let info = item.recording else { continue }
            let analyzed = info.analyzed(path: location.audioPath(info.file))
            guard analyzed.analysis != nil else { continue }
            document.items[item.id]!.recording = analyzed
            measured += 1
        }
        if measured > 0 {
            repairs.append(
                "measured and stored the levels and waveform of \(measured) recording\(measured == 1 ? "" : "s")")
        }
        if storeMissing || !linkProblems.isEmpty || !orphans.isEmpty || !lateMarkers.isEmpty || !lateTrims.isEmpty
            || measured > 0
        {
            if !storeMissing { try DocumentStore.keepOriginal(location, writtenAs: version) }
            try FileSystem.writeAtomically(DocumentCodec.encode(document), to: location.storeFile)
        }
        repairs += repairTranscripts(transcripts, document)
        // Only once the document is safely written: nothing in these could be recovered.
        for file in empty where (try? FileSystem.remove(location.audioPath(file))) != nil {
            repairs.append("removed audio/\(file), which was empty")
        }
        for file in unusedUndoCopies where (try? FileSystem.remove(location.undoDirectory + "/" + file)) != nil {
            repairs.append("removed undo/\(file), which no undo needs")
        }
        for file in wrongIndexes where (try? FileSystem.remove(location.directory + "/" + file)) != nil {
            repairs.append("removed \(file), which find makes again")
        }
        for file in strays where (try? FileSystem.remove(location.directory + "/" + file)) != nil {
            repairs.append("removed \(file)")
        }
        return Report(
            problems: problems, repairs: repairs, remaining: problems.filter { !$0.isRepairable }, document: document)
    }

    /// After the store is sound, the view state is trimmed and a stale recording recovered;
    /// both go through the stores' own paths. A recovery that must wait (the store cannot be
    /// written) is left, and `report` says why.
    public static func repairViewState(_ library: Library, into report: inout Report) throws {
        do {
            if let note = try library.recoverInterruptedRecording() { report.repairs.append(note) }
        } catch let waiting as RecoveryWaits {
            report.unrepaired.append(waiting.description)
            return
        }
        let document = library.document
        if try library.viewState.transaction({ $0.trim(to: document) }) {
            report.repairs.append("trimmed the view state to folders and recordings that exist")
        }
    }

    /// Rebuilds a lost `store.json` from what the journal knows: every folder and recording
    /// added (with its name, folder and creation time), then moved, renamed, removed and
    /// restored as it records. Recordings need their audio file (which gives their length
    /// and format); items whose folder the journal does not know go into /Recovered, and so
    /// do recordings it knows were in the trash (the trash itself is not rebuilt). Audio the
    /// journal does not know at all is adopted afterwards, as any orphan.
    private func rebuildFromJournal(_ document: inout Document) -> [String] {
        struct Known {
            var kind: ItemKind?
            var name: String
            var parent: ItemID
            var created: Timestamp
            var inTrash = false
            var annotations = Annotations()
        }
        var known: [ItemID: Known] = [:]
        var order: [ItemID] = []
        func learn(_ id: ItemID, _ value: Known) {
            if known[id] == nil { order.append(id) }
            known[id] = value
        }
        let entries = Journal(location: location).entries()
        for entry in entries {
            for step in entry.steps {
                switch step {
                case .added(let id, let placement?), .restored(let id, let placement?):
                    // A restored item comes back with its note, tags, markers and trim points.
                    learn(
                        id,
                        Known(
                            kind: placement.kind, name: placement.name, parent: placement.parent,
                            created: placement.created,
                            annotations: known[id]?.annotations ?? Annotations()))
                case .added(let id, nil), .restored(let id, nil):
                    known[id]?.inTrash = false
                case .moved(let id, _, _, let toParent, let toName):
                    if var item = known[id] {
                        item.name = toName
                        item.parent = toParent
                        known[id] = item
                    } else {
                        learn(id, Known(kind: nil, name: toName, parent: toParent, created: entry.time))
                    }
                case .trashed(let id):
                    known[id]?.inTrash = true
                case .removedPermanently(let id, _):
                    known[id] = nil
                case .annotated(let id, _, let after):
                    known[id]?.annotations = after
                case .transcribed:
                    continue  // transcripts are files of their own, not in store.json
                }
            }
        }
        var audio: [ItemID: String] = [:]
        for file in FileSystem.entries(of: location.audioDirectory) where !file.hasPrefix(".") {
            if let stem = file.split(separator: ".").first, let id = ItemID(String(stem)) { audio[id] = file }
        }
        let parents = Set(known.values.map(\.parent))
        func kind(_ id: ItemID) -> ItemKind? {
            known[id]?.kind ?? (audio[id] != nil ? .recording : parents.contains(id) ? .folder : nil)
        }
        // Whether an item's folder chain reaches the root through folders the journal knows
        // and that were not trashed.
        var resolved: [ItemID: Bool] = [.root: true]
        func reachesRoot(_ id: ItemID, depth: Int = 0) -> Bool {
            if let done = resolved[id] { return done }
            guard depth <= known.count, let item = known[id], !item.inTrash, kind(id) == .folder || depth == 0 else {
                return false
            }
            let result =
                item.parent == .root || (kind(item.parent) == .folder && reachesRoot(item.parent, depth: depth + 1))
            resolved[id] = result
            return result
        }
        // Folders first, parents before children, so that every placed item finds its folder.
        let folders = order.filter { kind($0) == .folder && known[$0] != nil }
        let placedFolders = folders.filter { reachesRoot($0) }
        func depth(_ id: ItemID) -> Int {
            var n = 0
            var current = id
            while current != .root, let parent = known[current]?.parent, n <= known.count {
                n += 1
                current = parent
            }
            return n
        }
        var created = 0
        var recordings = 0
        var recovered = 0
        for id in placedFolders.sorted(by: { depth($0) < depth($1) }) {
            let item = known[id]!
            guard document[item.parent]?.isFolder == true, document[id] == nil else { continue }
            let name = document.freeName(item.name, in: item.parent, except: nil)
            var folder = Item.folder(id: id, name: name, parent: item.parent, created: item.created)
            folder.annotations = item.annotations
            folder.annotations.markers = []
            _ = document.insert(folder)
            created += 1
        }
        for id in order where kind(id) == .recording {
            guard let item = known[id], document[id] == nil, let file = audio[id], let info = recordingInfo(file) else {
                continue
            }
            var parent = item.parent
            if item.inTrash || document[parent]?.isFolder != true {
                parent = recoveredFolder(&document)
                recovered += 1
            }
            let name = document.freeName(item.name, in: parent, except: nil)
            var recording = Item.recording(id: id, name: name, parent: parent, created: item.created, info: info)
            recording.annotations = item.annotations
            _ = document.insert(recording)
            recordings += 1
        }
        let counts =
            "\(created) folder\(created == 1 ? "" : "s") and \(recordings) recording\(recordings == 1 ? "" : "s")"
        let into =
            recovered > 0
            ? " (\(recovered) of them into /\(Self.recoveredFolder): their folder is unknown or was in the trash)" : ""
        return ["rebuilt store.json from journal.jsonl (\(entries.count) changes): \(counts)\(into)"]
    }

    /// What an audio file holds, as a recording records it; nil when it is unreadable, empty,
    /// or in a format the store cannot name (such a file stays where it is, reported).
    private func recordingInfo(_ file: String) -> RecordingInfo? {
        guard let audio = try? SoundFile.open(path: location.audioPath(file)), audio.frames > 0,
            let format = audio.audioFormat
        else { return nil }
        return RecordingInfo(
            duration: audio.duration, frames: audio.frames, sampleRate: audio.sampleRate,
            channels: audio.channels, format: format, file: file
        ).analyzed(path: location.audioPath(file))
    }

    private func loadLeniently() throws
        -> (
            document: Document, problems: [DocumentCodec.LinkProblem], version: Int,
            itemRanges: [(id: ItemID, range: Range<Int>)]
        )
    {
        guard let bytes = try FileSystem.read(location.storeFile) else {
            return (Document(), [], Document.currentVersion, [])
        }
        do {
            return try bytes.withUnsafeBufferPointer { try DocumentCodec.decodeVersioned($0, strict: false) }
        } catch let corrupt as DocumentCodec.Corrupt {
            throw RecError.failure(
                location.storeFile,
                corrupt.reason + " (fsck repairs links, not JSON syntax; the file was left as it is)")
        }
    }

    private func audioProblems(_ document: Document) -> [Problem] {
        var problems: [Problem] = []
        for item in document.preorder() {
            guard let file = item.recording?.file else { continue }
            let path = location.audioPath(file)
            guard FileSystem.exists(path) else {
                problems.append(.missingAudio(path: document.path(of: item.id), file: file))
                continue
            }
            do {
                _ = try SoundFile.open(path: path)
            } catch {
                problems.append(.unreadableAudio(path: document.path(of: item.id), file: file, reason: "\(error)"))
            }
        }
        return problems
    }

    /// Files in `audio/` that no recording, in the store or in the trash, refers to.
    /// Temporary files of a write in progress (leading dot) are not orphans.
    private func orphanFiles(_ document: Document) -> [String] {
        var referenced = Set(document.items.values.compactMap(\.recording?.file))
        for entry in document.trash { referenced.formUnion(entry.audioFiles) }
        return FileSystem.entries(of: location.audioDirectory).filter { !$0.hasPrefix(".") && !referenced.contains($0) }
    }

    /// Temporary files whose writer is gone: an atomic write's (`.store.json.tmp-PID`, a
    /// process killed between writing and renaming; the file it was to replace is intact)
    /// in the store directory or `audio/`, and an import's (`audio/.import-PID-…`). Paths are
    /// relative to the store directory. A live pid's files are its work in progress.
    private func strayTemporaries(isAlive: (Int32) -> Bool) -> [String] {
        var strays: [String] = []
        for (directory, prefix) in [
            (location.directory, ""), (location.audioDirectory, "audio/"),
            (location.transcriptsDirectory, "transcripts/"),
            (location.undoDirectory, "undo/"), (location.cacheDirectory, "cache/"),
        ] {
            for name in FileSystem.entries(of: directory) {
                guard let pid = Self.temporaryFileOwner(name), !isAlive(pid) else { continue }
                strays.append(prefix + name)
            }
        }
        return strays
    }

    /// The pid embedded in the name of one of recnotes' temporary files, or nil for any
    /// other name: `.NAME.tmp-PID` (an atomic write) and `.import-PID-HEX.EXT` (an import).
    public static func temporaryFileOwner(_ name: String) -> Int32? {
        guard name.hasPrefix(".") else { return nil }
        if name.hasPrefix(".import-") {
            let fields = name.dropFirst(".import-".count).split(separator: "-", maxSplits: 1)
            guard fields.count == 2, let pid = Int32(fields[0]), pid > 0 else { return nil }
            return pid
        }
        guard let pidText = name.split(separator: "-").last, name.dropLast(pidText.count + 1).hasSuffix(".tmp"),
            let pid = Int32(pidText), pid > 0
        else { return nil }
        return pid
    }

    /// Files in `undo/` that no journal entry names (temporary files are strays' business).
    private static func unusedUndoCopies(_ location: StoreLocation) -> [String] {
        let named = Set(Journal(location: location).entries().flatMap(\.keptTranscripts))
        return FileSystem.entries(of: location.undoDirectory).filter { !$0.hasPrefix(".") && !named.contains($0) }
    }

    /// Transcripts of no recording (a rebuilt store counts: it is checked after the
    /// rebuild when repairing), that do not parse, or that run past their recording's end
    /// (by more than a rounding step).
    private func transcriptProblems(_ document: Document) -> [Problem] {
        let files = TranscriptFiles(location: location)
        var problems: [Problem] = []
        var trashed: [ItemID: Item] = [:]
        for entry in document.trash { for item in entry.items { trashed[item.id] = item } }
        for id in files.ids() {
            let file = "\(id).json"
            guard let item = document[id] ?? trashed[id], let recording = item.recording else {
                problems.append(.orphanTranscript(file: file))
                continue
            }
            let path = document[id] != nil ? document.path(of: id) : "trash: " + item.name
            do {
                guard let transcript = try files.read(id) else { continue }
                let last = transcript.lastTime
                if last > recording.duration + 0.05 {
                    problems.append(.transcriptPastEnd(path: path, file: file, seconds: last))
                } else if files.indexBytes(of: id) != TranscriptFiles.index(transcript) {
                    problems.append(.staleTranscriptIndex(path: path, file: file))
                }
            } catch let error as RecError {
                problems.append(.unreadableTranscript(path: path, file: file, reason: error.reason))
            } catch {
                problems.append(.unreadableTranscript(path: path, file: file, reason: "\(error)"))
            }
        }
        problems += files.orphanIndexes().map { Problem.orphanTranscript(file: $0) }
        return problems
    }

    private func repairTranscripts(_ problems: [Problem], _ document: Document) -> [String] {
        let files = TranscriptFiles(location: location)
        var repairs: [String] = []
        var durations: [String: Double] = [:]
        for item in document.items.values + document.trash.flatMap(\.items) {
            guard let r = item.recording else { continue }
            durations["\(item.id).json"] = r.duration
            durations["\(item.id).txt"] = files.exists(item.id) ? r.duration : nil
        }
        for problem in problems {
            switch problem {
            case .orphanTranscript(let file) where durations[file] == nil:
                if (try? FileSystem.remove(files.directory + "/" + file)) != nil {
                    repairs.append("removed transcripts/\(file), which belongs to no recording")
                }
            case .unreadableTranscript(_, let file, _):
                if let id = ItemID(String(file.dropLast(5))), (try? FileSystem.remove(files.path(of: id))) != nil {
                    try? FileSystem.remove(files.indexPath(of: id))
                    repairs.append(
                        "removed transcripts/\(file), which was unreadable ('recnotes transcribe --missing' makes it again)"
                    )
                }
            case .transcriptPastEnd(let path, let file, _), .staleTranscriptIndex(let path, let file):
                guard let duration = durations[file], let id = ItemID(String(file.dropLast(5))),
                    let transcript = try? files.read(id)
                else { continue }
                if (try? files.write(transcript.clipped(to: duration), for: id, duration: duration)) != nil {
                    if case .transcriptPastEnd = problem {
                        repairs.append("cut the transcript of \(path) at the end of the recording")
                    } else {
                        repairs.append("rebuilt the search index of transcripts/\(file)")
                    }
                }
            default: continue
            }
        }
        return repairs
    }

    private func readViewState() -> ViewState? {
        guard let bytes = try? FileSystem.read(location.viewStateFile) else { return nil }
        return try? bytes.withUnsafeBufferPointer { try ViewStateCodec.decode($0) }
    }

    private func danglingDescription(_ state: ViewState, _ document: Document) -> String? {
        let restored = state.restored(against: document)
        if restored.folderStack != state.folderStack {
            return "the folder stack points at folders that no longer exist there"
        }
        if restored.selection != state.selection { return "the selected recording no longer exists" }
        return nil
    }

    /// Items whose parent is missing, not a folder, or on a cycle go into /Recovered.
    private func reattachStrays(_ document: inout Document) -> [String] {
        var strays: [ItemID] = []
        for (id, item) in document.items where id != .root {
            guard let parent = item.parent, document[parent]?.isFolder == true else {
                strays.append(id)
                continue
            }
        }
        document.rebuildLinks()
        var reachable = Set(document.subtree(of: .root).map(\.id))
        for stray in strays { reachable.formUnion(document.subtree(of: stray).map(\.id)) }
        for id in document.items.keys.sorted() where !reachable.contains(id) && !strays.contains(id) {
            // On a cycle: cut it at this item.
            strays.append(id)
            reachable.formUnion(document.subtree(of: id).map(\.id))
        }
        guard !strays.isEmpty else { return [] }
        let folder = recoveredFolder(&document)
        var repairs: [String] = []
        for id in strays.sorted() {
            document.items[id]!.parent = folder
            document.items[id]!.name = document.freeName(document[id]!.name, in: folder, except: id)
            repairs.append(
                "moved @\(id.description.prefix(8)) (\(document[id]!.name)), whose parent was lost, into /\(Self.recoveredFolder)"
            )
        }
        document.rebuildLinks()
        return repairs
    }

    private func renameDuplicates(_ document: inout Document) -> [String] {
        var repairs: [String] = []
        for folder in document.items.values where folder.isFolder {
            var seen = Set<String>()
            for child in document.children(of: folder.id).sorted(by: {
                $0.created != $1.created ? $0.created < $1.created : $0.id < $1.id
            }) {
                if seen.insert(child.name).inserted { continue }
                let name = document.freeName(child.name, in: folder.id, except: child.id)
                document.items[child.id]!.name = name
                seen.insert(name)
                repairs.append("renamed a duplicate \(document.path(of: child.id))")
            }
        }
        document.rebuildLinks()
        return repairs
    }

    private func adopt(_ orphans: [String], into document: inout Document) -> [String] {
        var repairs: [String] = []
        for file in orphans {
            // Unreadable audio stays where it is, and stays reported.
            guard let info = recordingInfo(file) else { continue }
            let stem = file.split(separator: ".").first.map(String.init) ?? file
            let id = ItemID(stem) ?? .random()
            guard document[id] == nil else { continue }
            let folder = recoveredFolder(&document)
            let name = document.freeName(
                NameRules.violation(stem) == nil ? stem : "Recovered audio", in: folder, except: nil)
            let item = Item.recording(id: id, name: name, parent: folder, created: .now(), info: info)
            _ = document.insert(item)
            repairs.append("adopted audio/\(file) as /\(Self.recoveredFolder)/\(name)")
        }
        return repairs
    }

    private func recoveredFolder(_ document: inout Document) -> ItemID {
        if let existing = document.child(named: Self.recoveredFolder, in: .root), existing.isFolder {
            return existing.id
        }
        let folder = Item.folder(name: document.freeName(Self.recoveredFolder, in: .root, except: nil), parent: .root)
        _ = document.insert(folder)
        return folder.id
    }
}

extension StoreCheck.Report {
    init(problems: [StoreCheck.Problem], repairs: [String], remaining: [StoreCheck.Problem], document: Document) {
        self.init(problems: problems, repairs: repairs, remaining: remaining)
        let recordings = document.items.values.filter { $0.recording != nil }.count
        self.recordings = recordings
        folders = document.items.count - recordings - 1
    }
}

extension Item {
    /// Whether a marker lies past the recording's last frame.
    var hasMarkersPastEnd: Bool {
        guard let frames = recording?.frames else { return false }
        return annotations.markers.contains { $0.frame > frames }
    }

    /// Whether the trim points reach past the recording's last frame.
    var hasTrimPastEnd: Bool {
        guard let frames = recording?.frames, let trim = annotations.trim else { return false }
        return trim.outFrame > frames
    }
}

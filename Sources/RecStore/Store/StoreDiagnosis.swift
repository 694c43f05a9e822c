import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What `fsck` finds, read and changing nothing: the problems, and the facts a repair
/// works from (`StoreRepair`). `store.json` is read leniently: broken links are found and
/// rebuilt in memory; a file that does not decode at all is `broken`, and then nothing
/// else is looked at (without a document, every audio file would look like an orphan).
struct StoreDiagnosis {
    let location: StoreLocation
    /// The engine's answers about audio files (the store never decodes audio).
    let audio: any AudioInspection
    var document = Document()
    var version = Document.currentVersion
    var linkProblems: [DocumentCodec.LinkProblem] = []
    /// `store.json` does not decode: why, and its bytes (what `--repair` salvages).
    var broken: (reason: String, bytes: [UInt8])?
    /// `store.json` is gone beside audio files or a journal.
    var storeMissing = false
    var lateMarkers: [Item] = []
    var lateTrims: [Item] = []
    /// Recordings without their analysis (an older store's), whose audio is readable.
    var unmeasured: [Item] = []
    /// Recordings whose analysis lacks its loudness (a store older than version 5's, or saved
    /// where libebur128 could not be loaded), whose audio is readable.
    var unmeasuredLoudness: [Item] = []
    var transcripts: [StoreCheck.Problem] = []
    /// The file a recording in progress owns: a dead one's is recovered, not adopted.
    var inProgressFile: String?
    var orphans: [String] = []
    var emptyOrphans: [String] = []
    var unusedUndoCopies: [String] = []
    var wrongIndexes: [String] = []
    var strays: [String] = []
    private(set) var problems: [StoreCheck.Problem] = []

    /// A store whose `store.json` is lost or broken is rebuilt before anything else.
    var needsRebuild: Bool { storeMissing || broken != nil }

    init(location: StoreLocation, audio: any AudioInspection, isAlive: (Int32) -> Bool) throws {
        self.location = location
        self.audio = audio
        strays = strayTemporaries(isAlive: isAlive)
        let loaded = try readStore()
        guard let loaded else {
            problems = [.brokenStore(reason: broken!.reason)] + strays.map { .strayTemporary(file: $0) }
            return
        }
        (document, linkProblems, version) = (loaded.document, loaded.problems, loaded.version)
        storeMissing = location.hasLostDocuments
        var problems = storeMissing ? [StoreCheck.Problem.missingStore] : []
        problems += linkProblems.map(StoreCheck.Problem.link)
        let audio = audioProblems()
        problems += audio
        lateMarkers = document.preorder().filter(\.hasMarkersPastEnd)
        problems += lateMarkers.map { item in
            .markersPastEnd(
                path: document.path(of: item.id),
                count: item.annotations.markers.filter { $0.frame > item.recording!.frames }.count)
        }
        let unreadable = Set(
            audio.compactMap { problem -> String? in
                switch problem {
                case .missingAudio(_, let file), .unreadableAudio(_, let file, _): return file
                default: return nil
                }
            })
        unmeasured = document.preorder().filter { item in
            guard let info = item.recording else { return false }
            return info.analysis == nil && !unreadable.contains(info.file)
        }
        if !unmeasured.isEmpty { problems.append(.missingAnalysis(paths: unmeasured.map { document.path(of: $0.id) })) }
        unmeasuredLoudness = document.preorder().filter { item in
            guard let info = item.recording, let analysis = info.analysis else { return false }
            return analysis.loudness == nil && !unreadable.contains(info.file)
        }
        if !unmeasuredLoudness.isEmpty {
            problems.append(.missingLoudness(paths: unmeasuredLoudness.map { document.path(of: $0.id) }))
        }
        lateTrims = document.preorder().filter(\.hasTrimPastEnd)
        problems += lateTrims.map { .trimPastEnd(path: document.path(of: $0.id)) }
        transcripts = transcriptProblems()
        problems += transcripts
        let viewState = readViewState()
        inProgressFile = viewState?.recording?.file
        orphans = orphanFiles().filter { $0 != inProgressFile }
        emptyOrphans = orphans.filter { FileSystem.size(location.audioPath($0)) == 0 }
        orphans.removeAll { emptyOrphans.contains($0) }
        problems += orphans.map { .orphanAudio(file: $0) }
        problems += emptyOrphans.map { .emptyOrphanAudio(file: $0) }
        if let entry = viewState?.recording, !isAlive(entry.pid) {
            problems.append(.staleRecording(name: entry.name, pid: entry.pid, file: entry.file))
        }
        if let viewState, let dangling = danglingDescription(viewState) {
            problems.append(.danglingViewState(dangling))
        }
        unusedUndoCopies = Self.unusedUndoCopies(location)
        problems += unusedUndoCopies.map { .unusedUndoCopy(file: $0) }
        // Compared only with a store that loads as it is: find's index is made from that.
        wrongIndexes =
            linkProblems.isEmpty && !storeMissing
            ? SearchIndexFiles.disagreeing(with: document, itemRanges: loaded.itemRanges, location: location) : []
        problems += wrongIndexes.map { .wrongSearchIndex(file: $0) }
        problems += strays.map { .strayTemporary(file: $0) }
        self.problems = problems
    }

    /// The document as `store.json` has it (an empty one when there is none); nil when the
    /// file does not decode, which `broken` then says.
    private mutating func readStore() throws -> (
        document: Document, problems: [DocumentCodec.LinkProblem], version: Int,
        itemRanges: [(id: ItemID, range: Range<Int>)]
    )? {
        guard let bytes = try FileSystem.read(location.storeFile) else {
            return (Document(), [], Document.currentVersion, [])
        }
        do {
            return try bytes.withUnsafeBufferPointer { try DocumentCodec.decodeVersioned($0, strict: false) }
        } catch let corrupt as DocumentCodec.Corrupt {
            // A store of a newer version is not broken: it is refused untouched.
            guard corrupt.isRebuildable else { throw RecError.failure(location.storeFile, corrupt.reason) }
            broken = (corrupt.reason, bytes)
            return nil
        }
    }

    private func audioProblems() -> [StoreCheck.Problem] {
        var problems: [StoreCheck.Problem] = []
        for item in document.preorder() {
            guard let file = item.recording?.file else { continue }
            let path = location.audioPath(file)
            // On another machine, not lost: sync's business, not fsck's.
            if location.audioIsElsewhere(file) { continue }
            guard FileSystem.exists(path) else {
                problems.append(.missingAudio(path: document.path(of: item.id), file: file))
                continue
            }
            do {
                try audio.check(path: path)
            } catch {
                problems.append(.unreadableAudio(path: document.path(of: item.id), file: file, reason: "\(error)"))
            }
        }
        return problems
    }

    /// Files in `audio/` that no recording, in the store or in the trash, refers to.
    /// Temporary files of a write in progress (leading dot) are not orphans.
    func orphanFiles() -> [String] {
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
                guard let pid = StoreCheck.temporaryFileOwner(name), !isAlive(pid) else { continue }
                strays.append(prefix + name)
            }
        }
        return strays
    }

    /// Files in `undo/` that no journal entry names (temporary files are strays' business).
    private static func unusedUndoCopies(_ location: StoreLocation) -> [String] {
        let named = Set(Journal(location: location).entries().flatMap(\.keptTranscripts))
        return FileSystem.entries(of: location.undoDirectory).filter { !$0.hasPrefix(".") && !named.contains($0) }
    }

    /// Transcripts of no recording (a rebuilt store counts: it is checked after the
    /// rebuild when repairing), that do not parse, or that run past their recording's end
    /// (by more than a rounding step).
    private func transcriptProblems() -> [StoreCheck.Problem] {
        let files = TranscriptFiles(location: location)
        var problems: [StoreCheck.Problem] = []
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
        problems += files.orphanIndexes().map { .orphanTranscript(file: $0) }
        return problems
    }

    private func readViewState() -> ViewState? { ViewStateStore.peek(location) }

    private func danglingDescription(_ state: ViewState) -> String? {
        let restored = state.restored(against: document)
        if restored.folderStack != state.folderStack {
            return "the folder stack points at folders that no longer exist there"
        }
        if restored.selection != state.selection { return "the selected recording no longer exists" }
        return nil
    }
}

extension DocumentCodec.Corrupt {
    /// Whether `fsck --repair` can rebuild from what is left: JSON that does not decode, not
    /// a store of a newer version (which is refused untouched) or broken links (which it
    /// repairs in place).
    var isRebuildable: Bool {
        kind == .syntax || kind == .notAStore
    }
}

import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// What `fsck --repair` does with a `StoreDiagnosis`, under the store lock. Nothing that
/// holds audio is deleted: orphan audio is adopted into `/Recovered`, broken links are
/// rebuilt from parent pointers, clashing names get a ` (2)` suffix, and the view state is
/// trimmed to what exists (`StoreCheck.repairViewState`). What is removed holds nothing:
/// empty orphan audio files and the temporary files of a process that is gone.
///
/// A lost or broken `store.json` is rebuilt first (`rebuild`), and the store it makes is
/// then diagnosed and repaired like any other.
struct StoreRepair {
    let location: StoreLocation
    /// What could not be repaired or recovered, one line each (`StoreCheck.Report.notRepaired`).
    private(set) var notRepaired: [String] = []

    /// The engine's answers about audio files (the store never decodes audio).
    let audio: any AudioInspection

    init(location: StoreLocation, audio: any AudioInspection) {
        self.location = location
        self.audio = audio
    }

    // MARK: Rebuilding a lost or broken store.json

    /// Writes a new `store.json` from what survives: the lines of a broken one that still
    /// decode (each an item or a trash entry as it was last written), the journal (where
    /// each item was added, moved, trashed or restored, and its annotations), and the audio
    /// files (what a recording's length and format are). A broken file is first moved aside
    /// as `store.json.broken-<time>` and kept; nothing else is deleted.
    mutating func rebuild(_ diagnosis: StoreDiagnosis) throws -> [String] {
        var repairs: [String] = []
        var salvaged: (items: [Item], trash: [TrashEntry]) = ([], [])
        if let broken = diagnosis.broken {
            let aside = try moveAside()
            repairs.append("moved the broken store.json aside as \(aside), which is kept as it was")
            salvaged = DocumentCodec.salvage(broken.bytes)
        }
        var document = Document()
        repairs.append(place(salvaged, into: &document))
        try FileSystem.writeAtomically(DocumentCodec.encode(document), to: location.storeFile)
        return repairs
    }

    /// `store.json.broken-<UTC time>`, beside it; never replacing an earlier one.
    private func moveAside() throws -> String {
        let stamp = Timestamp.now().iso8601.filter { $0 != "-" && $0 != ":" }.split(separator: ".").first ?? "now"
        var name = "store.json.broken-\(stamp)Z"
        var n = 2
        while FileSystem.exists(location.directory + "/" + name) {
            name = "store.json.broken-\(stamp)Z-\(n)"
            n += 1
        }
        guard rename(location.storeFile, location.directory + "/" + name) == 0 else {
            throw RecError.failure(location.storeFile, "cannot move it aside: \(Errno.current)")
        }
        FileSystem.syncDirectory(location.directory)
        return name
    }

    /// Places every item that `salvaged` and the journal know, each where the newest of them
    /// says: the broken file's own lines are the state it was last written in, and the
    /// journal, which is written after it, knows the rest (up to its last few hundred
    /// changes). Recordings the journal alone knows need their audio file (which gives
    /// their length and format); items whose folder is unknown or was trashed, and
    /// recordings the journal knows were in the trash, go into /Recovered. Audio that neither knows is adopted
    /// afterwards, as any orphan. Returns the line that says what was rebuilt; what could not
    /// be recovered goes to `notRepaired`.
    private mutating func place(_ salvaged: (items: [Item], trash: [TrashEntry]), into document: inout Document)
        -> String
    {
        struct Known {
            var kind: ItemKind?
            var name: String
            var parent: ItemID
            var created: Timestamp
            var inTrash = false
            var annotations = Annotations()
            /// From the broken file: what the recording was, analysis included.
            var recording: RecordingInfo?
            var fromFile = false
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
        // The broken file's lines are as it was last written: they win over the journal.
        let trashed = Set(salvaged.trash.flatMap { $0.items.map(\.id) })
        for item in salvaged.items where item.id != .root && !trashed.contains(item.id) {
            guard let parent = item.parent else { continue }
            learn(
                item.id,
                Known(
                    kind: item.kind, name: item.name, parent: parent, created: item.created,
                    annotations: item.annotations, recording: item.recording, fromFile: true))
        }
        for id in trashed { known[id] = nil }
        var audio: [ItemID: String] = [:]
        for file in FileSystem.entries(of: location.audioDirectory) where !file.hasPrefix(".") {
            if let stem = file.split(separator: ".").first, let id = ItemID(String(stem)) { audio[id] = file }
        }
        let parents = Set(known.values.map(\.parent))
        func kind(_ id: ItemID) -> ItemKind? {
            known[id]?.kind ?? (audio[id] != nil ? .recording : parents.contains(id) ? .folder : nil)
        }
        // Folders first, parents before children, so that every placed item finds its
        // folder; one whose folder is unknown or was trashed goes into /Recovered, with what
        // is under it.
        let folders = order.filter { kind($0) == .folder && known[$0]?.inTrash == false }
        func depth(_ id: ItemID) -> Int {
            var n = 0
            var current = id
            while current != .root, let parent = known[current]?.parent, n <= known.count {
                n += 1
                current = parent
            }
            return n
        }
        var placed = (folders: 0, recordings: 0, fromFile: 0, intoRecovered: 0)
        for id in folders.sorted(by: { depth($0) < depth($1) }) {
            let item = known[id]!
            guard document[id] == nil else { continue }
            var parent = item.parent
            if document[parent]?.isFolder != true {
                parent = Self.recoveredFolder(&document)
                placed.intoRecovered += 1
            }
            let name = document.freeName(item.name, in: parent, except: nil)
            var folder = Item.folder(id: id, name: name, parent: parent, created: item.created)
            folder.annotations = item.annotations
            folder.annotations.markers = []
            _ = document.insert(folder)
            placed.folders += 1
            if item.fromFile { placed.fromFile += 1 }
        }
        var withoutAudio: [String] = []
        for id in order where kind(id) == .recording {
            guard let item = known[id], document[id] == nil else { continue }
            // The broken file's recording is kept as it was, even if its audio was already
            // missing (fsck reports that); the journal's needs its audio to be one.
            guard let info = item.recording ?? audio[id].flatMap(recordingInfo) else {
                if !item.inTrash { withoutAudio.append(item.name) }
                continue
            }
            var parent = item.parent
            if item.inTrash || document[parent]?.isFolder != true {
                parent = Self.recoveredFolder(&document)
                placed.intoRecovered += 1
            }
            let name = document.freeName(item.name, in: parent, except: nil)
            var recording = Item.recording(id: id, name: name, parent: parent, created: item.created, info: info)
            recording.annotations = item.annotations
            _ = document.insert(recording)
            placed.recordings += 1
            if item.fromFile { placed.fromFile += 1 }
        }
        // The trash entries that survived whole, unless one of their items was placed.
        document.trash = salvaged.trash.filter { entry in entry.items.allSatisfy { document[$0.id] == nil } }

        if !withoutAudio.isEmpty {
            notRepaired.append(
                "\(Format.count(withoutAudio.count, "recording")) that journal.jsonl names \(withoutAudio.count == 1 ? "has" : "have") no audio file, and cannot come back: \(withoutAudio.prefix(5).joined(separator: ", "))\(withoutAudio.count > 5 ? ", …" : "")"
            )
        }
        let unknown = audio.keys.filter { document[$0] == nil && !trashed.contains($0) }.count
        if unknown > 0 {
            notRepaired.append(
                "\(Format.count(unknown, "audio file")) that neither the broken file nor journal.jsonl knows \(unknown == 1 ? "is" : "are") adopted into /\(StoreCheck.recoveredFolder) under \(unknown == 1 ? "its" : "their") UUID: \(unknown == 1 ? "its" : "their") names, folders, notes and tags are lost"
            )
        }
        let sources = [
            placed.fromFile > 0 || !salvaged.trash.isEmpty
                ? "the broken file's intact lines (\(Format.count(placed.fromFile, "item"))\(salvaged.trash.isEmpty ? "" : ", \(Format.count(document.trash.count, "trash entry"))"))"
                : nil,
            "journal.jsonl (\(Format.count(entries.count, "change")))",
        ].compactMap { $0 }.joined(separator: " and ")
        let into =
            placed.intoRecovered > 0
            ? " (\(placed.intoRecovered) of them into /\(StoreCheck.recoveredFolder): their folder is unknown or was in the trash)"
            : ""
        return
            "rebuilt store.json from \(sources): \(Format.count(placed.folders, "folder")) and \(Format.count(placed.recordings, "recording"))\(into)"
    }

    // MARK: Repairing a store that loads

    /// Repairs what `diagnosis` found in a store that loads; returns a line for each repair
    /// and the document as it now is.
    mutating func apply(_ diagnosis: StoreDiagnosis) throws -> (repairs: [String], document: Document) {
        var document = diagnosis.document
        var repairs: [String] = []
        if !diagnosis.linkProblems.isEmpty {
            repairs += reattachStrays(&document)
            repairs += renameDuplicates(&document)
            repairs.append("rebuilt folder links from the items' parent pointers")
        }
        let adopted = adopt(diagnosis.orphans, into: &document)
        repairs += adopted
        for item in diagnosis.lateMarkers {
            let end = item.recording!.frames
            document.items[item.id]!.annotations.markers = MarkerRules.sorted(
                item.annotations.markers.map { $0.moved(to: min($0.frame, end)) })
            repairs.append("moved the markers past the end of \(document.path(of: item.id)) to its end")
        }
        for item in diagnosis.lateTrims {
            let clamped = item.annotations.trim?.clamped(to: item.recording!.frames)
            document.items[item.id]!.annotations.trim = clamped
            repairs.append(
                clamped == nil
                    ? "removed the trim points of \(document.path(of: item.id)), which were past its end"
                    : "clamped the trim points of \(document.path(of: item.id)) to its audio")
        }
        var measured = 0
        for item in diagnosis.unmeasured {
            guard let info = item.recording else { continue }
            let analyzed = audio.analyzed(info, path: location.audioPath(info.file))
            guard analyzed.analysis != nil else { continue }
            document.items[item.id]!.recording = analyzed
            measured += 1
        }
        if measured > 0 {
            repairs.append(
                "measured and stored the levels and waveform of \(measured) recording\(measured == 1 ? "" : "s")")
        }
        // The loudness comes with a whole analysis (one decode measures all of it); one
        // without loudness again (libebur128 cannot be loaded) is left as it was, still noted.
        var loudness = 0
        var notLoaded: String?
        for item in diagnosis.unmeasuredLoudness {
            guard let info = item.recording else { continue }
            let analyzed = audio.analyzed(info, path: location.audioPath(info.file))
            guard analyzed.analysis?.loudness != nil else {
                notLoaded = notLoaded ?? audio.loudnessUnavailable() ?? "libebur128 could not measure it"
                continue
            }
            document.items[item.id]!.recording = analyzed
            loudness += 1
        }
        if loudness > 0 {
            repairs.append("measured and stored the loudness of \(loudness) recording\(loudness == 1 ? "" : "s")")
        }
        if let notLoaded { notRepaired.append("loudness not measured: \(notLoaded)") }
        if !diagnosis.linkProblems.isEmpty || !adopted.isEmpty || !diagnosis.lateMarkers.isEmpty
            || !diagnosis.lateTrims.isEmpty || measured > 0 || loudness > 0
        {
            try DocumentStore.keepOriginal(location, writtenAs: diagnosis.version)
            try FileSystem.writeAtomically(DocumentCodec.encode(document), to: location.storeFile)
        }
        repairs += repairTranscripts(diagnosis.transcripts, document)
        // Only once the document is safely written: nothing in these could be recovered.
        for file in diagnosis.emptyOrphans where (try? FileSystem.remove(location.audioPath(file))) != nil {
            repairs.append("removed audio/\(file), which was empty")
        }
        for file in diagnosis.unusedUndoCopies
        where (try? FileSystem.remove(location.undoDirectory + "/" + file)) != nil {
            repairs.append("removed undo/\(file), which no undo needs")
        }
        for file in diagnosis.wrongIndexes where (try? FileSystem.remove(location.directory + "/" + file)) != nil {
            let maker = file.hasSuffix(StoreTable.fileName) ? "the next read" : "find"
            repairs.append("removed \(file), which \(maker) makes again")
        }
        for file in diagnosis.strays where (try? FileSystem.remove(location.directory + "/" + file)) != nil {
            repairs.append("removed \(file)")
        }
        return (repairs, document)
    }

    /// What an audio file holds, as a recording records it; nil when it is unreadable, empty,
    /// or in a format the store cannot name (such a file stays where it is, reported).
    private func recordingInfo(_ file: String) -> RecordingInfo? {
        audio.recordingInfo(path: location.audioPath(file), file: file)
    }

    private func repairTranscripts(_ problems: [StoreCheck.Problem], _ document: Document) -> [String] {
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
        let folder = Self.recoveredFolder(&document)
        var repairs: [String] = []
        for id in strays.sorted() {
            document.items[id]!.parent = folder
            document.items[id]!.name = document.freeName(document[id]!.name, in: folder, except: id)
            repairs.append(
                "moved @\(id.description.prefix(8)) (\(document[id]!.name)), whose parent was lost, into /\(StoreCheck.recoveredFolder)"
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
            let folder = Self.recoveredFolder(&document)
            let name = document.freeName(
                NameRules.violation(stem) == nil ? stem : "Recovered audio", in: folder, except: nil)
            let item = Item.recording(id: id, name: name, parent: folder, created: .now(), info: info)
            _ = document.insert(item)
            repairs.append("adopted audio/\(file) as /\(StoreCheck.recoveredFolder)/\(name)")
        }
        return repairs
    }

    static func recoveredFolder(_ document: inout Document) -> ItemID {
        if let existing = document.child(named: StoreCheck.recoveredFolder, in: .root), existing.isFolder {
            return existing.id
        }
        let folder = Item.folder(
            name: document.freeName(StoreCheck.recoveredFolder, in: .root, except: nil), parent: .root)
        _ = document.insert(folder)
        return folder.id
    }
}

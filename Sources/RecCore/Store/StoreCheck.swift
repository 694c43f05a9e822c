#if canImport(Glibc)
import Glibc
#endif

/// `fsck`: checks `store.json` against `audio/` and `viewstate.json`, and repairs only what
/// is safe. Nothing is ever deleted: orphan audio is adopted into `/Recovered`, broken links
/// are rebuilt from parent pointers, clashing names get a ` (2)` suffix, and the view state
/// is trimmed to what exists.
public struct StoreCheck {
    public enum Problem: Equatable, Sendable, CustomStringConvertible {
        case link(DocumentCodec.LinkProblem)
        case missingAudio(path: String, file: String)
        case unreadableAudio(path: String, file: String, reason: String)
        case orphanAudio(file: String)
        case staleRecording(name: String, pid: Int32, file: String)
        case danglingViewState(String)
        case strayTemporary(file: String)

        public var description: String {
            switch self {
            case let .link(problem): return "store.json: \(problem)"
            case let .missingAudio(path, file): return "\(path): audio file audio/\(file) is missing"
            case let .unreadableAudio(path, file, reason): return "\(path): audio file audio/\(file) is unreadable: \(reason)"
            case let .orphanAudio(file): return "audio/\(file): belongs to no recording"
            case let .staleRecording(name, pid, file) where file.isEmpty:
                return "viewstate.json: a recording to \(name == "-" ? "standard output" : name) was left in progress by pid \(pid), which is gone"
            case let .staleRecording(name, pid, file): return "viewstate.json: recording \"\(name)\" (audio/\(file)) was left in progress by pid \(pid), which is gone"
            case let .danglingViewState(what): return "viewstate.json: \(what)"
            case let .strayTemporary(file): return "\(file): left by a write that was interrupted (the file it was replacing is intact)"
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
    }

    public static let recoveredFolder = "Recovered"

    public let location: StoreLocation

    public init(location: StoreLocation) {
        self.location = location
    }

    /// Runs the check, and with `repair` fixes what is safe under the store lock.
    public func run(repair: Bool, isAlive: (Int32) -> Bool = processIsAlive) throws -> Report {
        try FileLock.withLock(location.storeLockFile) {
            var (document, linkProblems) = try loadLeniently()
            defer { _ = document }
            var problems = linkProblems.map(Problem.link)
            problems += audioProblems(document)
            let viewState = readViewState()
            // A recording in progress owns its file; a dead one's file is recovered, not adopted.
            let inProgressFile = viewState?.recording?.file
            let orphans = orphanFiles(document).filter { $0 != inProgressFile }
            problems += orphans.map { Problem.orphanAudio(file: $0) }
            if let entry = viewState?.recording, !isAlive(entry.pid) {
                problems.append(.staleRecording(name: entry.name, pid: entry.pid, file: entry.file))
            }
            if let viewState, let dangling = danglingDescription(viewState, document) {
                problems.append(.danglingViewState(dangling))
            }
            let strays = strayTemporaries(isAlive: isAlive)
            problems += strays.map { Problem.strayTemporary(file: $0) }
            guard repair, !problems.isEmpty else {
                return Report(problems: problems, repairs: [], remaining: problems)
            }

            var repairs: [String] = []
            if !linkProblems.isEmpty {
                repairs += reattachStrays(&document)
                repairs += renameDuplicates(&document)
                repairs.append("rebuilt folder links from the items' parent pointers")
            }
            repairs += adopt(orphans, into: &document)
            for file in strays where (try? FileSystem.remove(location.directory + "/" + file)) != nil {
                repairs.append("removed \(file)")
            }
            if !repairs.isEmpty && !(linkProblems.isEmpty && orphans.isEmpty) {
                try FileSystem.writeAtomically(DocumentCodec.encode(document), to: location.storeFile)
            }
            return Report(problems: problems, repairs: repairs, remaining: problems.filter { !$0.isRepairable })
        }
    }

    /// After the store is sound, the view state is trimmed and a stale recording recovered;
    /// both go through the stores' own paths.
    public static func repairViewState(_ library: Library) throws -> [String] {
        var repairs: [String] = []
        if let note = try library.recoverInterruptedRecording() { repairs.append(note) }
        let restored = library.state
        if restored.folderStack != library.viewState.state.folderStack || restored.selection != library.viewState.state.selection {
            try library.viewState.transaction { vs in
                vs.navigate(to: restored.folderStack)
                if restored.selection == nil && vs.state.selection != nil { vs.selectRecording(nil) }
            }
            repairs.append("trimmed the view state to folders and recordings that exist")
        }
        return repairs
    }

    private func loadLeniently() throws -> (Document, [DocumentCodec.LinkProblem]) {
        guard let bytes = try FileSystem.read(location.storeFile) else { return (Document(), []) }
        do {
            return try bytes.withUnsafeBufferPointer { try DocumentCodec.decode($0, strict: false) }
        } catch let corrupt as DocumentCodec.Corrupt {
            throw RecError.failure(location.storeFile, corrupt.reason + " (fsck repairs links, not JSON syntax; the file was left as it is)")
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
        guard let dir = opendir(location.audioDirectory) else { return [] }
        defer { closedir(dir) }
        var orphans: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(".") || referenced.contains(name) { continue }
            orphans.append(name)
        }
        return orphans.sorted()
    }

    /// Temporary files of an atomic write (`.store.json.tmp-PID`) whose writer is gone: a
    /// process killed between writing and renaming. The file they were to replace is intact.
    private func strayTemporaries(isAlive: (Int32) -> Bool) -> [String] {
        guard let dir = opendir(location.directory) else { return [] }
        defer { closedir(dir) }
        var strays: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            guard name.hasPrefix("."), let pidText = name.split(separator: "-").last,
                  name.dropLast(pidText.count + 1).hasSuffix(".tmp"),
                  let pid = Int32(pidText), !isAlive(pid) else { continue }
            strays.append(name)
        }
        return strays.sorted()
    }

    private func readViewState() -> ViewState? {
        guard let bytes = try? FileSystem.read(location.viewStateFile) else { return nil }
        return try? bytes.withUnsafeBufferPointer { try ViewStateCodec.decode($0) }
    }

    private func danglingDescription(_ state: ViewState, _ document: Document) -> String? {
        let restored = state.restored(against: document)
        if restored.folderStack != state.folderStack { return "the folder stack points at folders that no longer exist there" }
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
            repairs.append("moved @\(id.description.prefix(8)) (\(document[id]!.name)), whose parent was lost, into /\(Self.recoveredFolder)")
        }
        document.rebuildLinks()
        return repairs
    }

    private func renameDuplicates(_ document: inout Document) -> [String] {
        var repairs: [String] = []
        for folder in document.items.values where folder.isFolder {
            var seen = Set<String>()
            for child in document.children(of: folder.id).sorted(by: { $0.created != $1.created ? $0.created < $1.created : $0.id < $1.id }) {
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
            let path = location.audioPath(file)
            // Unreadable audio stays where it is, and stays reported.
            guard let audio = try? SoundFile.open(path: path), audio.frames > 0 else { continue }
            let folder = recoveredFolder(&document)
            let stem = file.split(separator: ".").first.map(String.init) ?? file
            let id = ItemID(stem) ?? .random()
            guard document[id] == nil else { continue }
            // Only audio in a format the store can name is adopted; anything else stays reported.
            guard let format = audio.audioFormat else { continue }
            let info = RecordingInfo(duration: audio.duration, frames: audio.frames, sampleRate: audio.sampleRate,
                                     channels: audio.channels, format: format, file: file)
            let name = document.freeName(NameRules.violation(stem) == nil ? stem : "Recovered audio", in: folder, except: nil)
            let item = Item.recording(id: id, name: name, parent: folder, created: .now(), info: info)
            _ = document.insert(item)
            repairs.append("adopted audio/\(file) as /\(Self.recoveredFolder)/\(name)")
        }
        return repairs
    }

    private func recoveredFolder(_ document: inout Document) -> ItemID {
        if let existing = document.child(named: Self.recoveredFolder, in: .root), existing.isFolder { return existing.id }
        let folder = Item.folder(name: document.freeName(Self.recoveredFolder, in: .root, except: nil), parent: .root)
        _ = document.insert(folder)
        return folder.id
    }
}

import RecAudio
import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// A recording being made in the served page: the page captures the microphone and sends
/// its samples in chunks, each at the byte offset it starts at; what is acknowledged is on
/// the disk. Kept in the store's `incoming/` (not synced, not the cache: it is audio nobody
/// else holds), one entry and one file of samples per recording, so that a server that
/// restarts, or a page that comes back the next day, finds it where it was.
package struct PageRecording: Equatable, Sendable {
    package var id: ItemID
    /// The folder it goes into.
    package var parent: ItemID
    /// The name it is saved under when none is given: the date, as `record`'s.
    package var name: String
    package var started: Timestamp
    package var sampleRate: Int
    package var channels: Int
    /// Bytes of samples acknowledged (16-bit, interleaved): synced to the disk before the
    /// page is told, so a page forgets only what is here.
    package var received: Int64
    /// In frames of this recording, in the order marked.
    package var markers: [Marker]
    /// When a request last reached it; see `PageRecordings.abandonedAfter`.
    package var updated: Timestamp

    package var frames: Int64 { received / Int64(2 * channels) }
    package var seconds: Double { Double(frames) / Double(sampleRate) }
}

/// The page's recordings in progress (`PageRecording`): what `POST /api/recording…` does.
/// Each change to one holds its lock (`incoming/UUID.lock`), so two requests of the same page
/// (a retry racing its original) take turns, and two pages are two recordings.
package struct PageRecordings {
    package let location: StoreLocation

    package init(location: StoreLocation) { self.location = location }

    /// How long a recording may go without a request before it is saved with what arrived:
    /// a day, so a phone that was offline overnight still finishes its own.
    /// `RECNOTES_SERVE_ABANDON_AFTER` (seconds) for tests.
    package static var abandonedAfter: Double {
        Environment.value("RECNOTES_SERVE_ABANDON_AFTER").flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }
            ?? 24 * 3600
    }

    /// The largest chunk one request may carry: ten seconds of 48 kHz stereo.
    package static let maxChunk = 10 * 48_000 * 2 * 2

    package var directory: String { location.directory + "/incoming" }
    func entryPath(_ id: ItemID) -> String { directory + "/\(id).json" }
    func samplesPath(_ id: ItemID) -> String { directory + "/\(id).pcm" }
    func lockPath(_ id: ItemID) -> String { directory + "/\(id).lock" }

    /// The recording `id`, nil when there is none in progress.
    package func entry(_ id: ItemID) -> PageRecording? {
        guard let bytes = try? FileSystem.read(entryPath(id)) else { return nil }
        return PageRecordingCodec.decode(bytes)
    }

    /// Every recording in progress, oldest first.
    package func all() -> [PageRecording] {
        FileSystem.entries(of: directory).compactMap { name -> PageRecording? in
            guard name.hasSuffix(".json"), let id = ItemID(String(name.dropLast(5))) else { return nil }
            return entry(id)
        }.sorted { $0.started < $1.started }
    }

    /// `body` with the recording's lock held. A recording no longer in progress leaves no
    /// lock file: the one holding the lock last removes it.
    private func withLock<T>(_ id: ItemID, _ body: () throws -> T) throws -> T {
        try FileSystem.makeDirectories(directory)
        return try FileLock.withLock(lockPath(id)) {
            defer { if !FileSystem.exists(entryPath(id)) { try? FileSystem.remove(lockPath(id)) } }
            return try body()
        }
    }

    private func write(_ entry: PageRecording) throws {
        try FileSystem.writeAtomically(PageRecordingCodec.encode(entry), to: entryPath(entry.id))
    }

    /// Starts recording `id` into `parent` (or finds it started: a page that did not hear the
    /// answer asks again). A recording already saved is refused with where it is.
    package func start(
        _ id: ItemID, parent: ItemID, name: String, sampleRate: Int, channels: Int, started: Timestamp
    ) throws -> PageRecording {
        try withLock(id) {
            if let existing = entry(id) { return existing }
            let entry = PageRecording(
                id: id, parent: parent, name: name, started: started, sampleRate: sampleRate, channels: channels,
                received: 0, markers: [], updated: .now())
            let samples = samplesPath(id)
            try FileSystem.withOpened(samples, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600, failure: cannotStore) { _ in }
            try write(entry)
            FileSystem.syncDirectory(directory)
            startLiveWords(entry)
            return entry
        }
    }

    /// Live words for a recording in progress, as `record` has them: by default once Whisper
    /// is installed (and not `RECNOTES_LIVE_WORDS=off`), from a server that can find its
    /// `recnotes`. The transcriber reads the samples as they arrive (its tap is a second link
    /// to them), sends its words where the page's event stream finds them, and saves the
    /// transcript once the recording is; it outlives a restart of the server. Nothing
    /// happens when one is running already, or when it cannot start (the recording is then
    /// made as before).
    private func startLiveWords(_ entry: PageRecording) {
        guard entry.channels == 1, let executable = ServeDefaults.cliExecutable(),
            case .some(let engine) = LiveWords.engine(asked: nil, location: location)
        else { return }
        let files = LiveWordsFiles(location: location)
        guard (try? FileSystem.makeDirectories(files.directory)) != nil,
            let free = try? FileLock(attempting: files.lock(entry.id))
        else { return }
        withExtendedLifetime(free) {
            try? FileSystem.remove(files.tap(entry.id))
            guard link(samplesPath(entry.id), files.tap(entry.id)) == 0 else { return }
            _ = LiveWords.startForPage(
                location: location, id: entry.id, rate: entry.sampleRate, engine: engine, executable: executable)
        }
    }

    /// A transcriber that died mid-recording leaves its tap and no one holding its lock: the
    /// recording saved is then transcribed whole in the background.
    private func transcribeIfLiveWordsWereLost(_ id: ItemID) {
        let files = LiveWordsFiles(location: location)
        guard FileSystem.exists(files.tap(id)), let executable = ServeDefaults.cliExecutable(),
            let free = try? FileLock(attempting: files.lock(id))
        else { return }
        withExtendedLifetime(free) { files.removeAll(of: id) }
        try? BackgroundTranscription.start([id], location: location, executable: executable)
    }

    /// Starts live words again for the recordings in progress that have no transcriber (the
    /// machine restarted): each is transcribed from its start. At the server's start.
    package func resumeLiveWords() {
        for entry in all() { _ = try? withLock(entry.id) { if self.entry(entry.id) != nil { startLiveWords(entry) } } }
    }

    /// What a chunk starting at byte `offset` adds: the part of it past what is already here
    /// (a chunk sent again after its answer was lost adds nothing), appended and synced
    /// before the entry says so. A chunk that starts past the end would leave a gap: refused
    /// with what is here, so the page sends from there.
    package func append(_ id: ItemID, offset: Int64, bytes: [UInt8]) throws -> PageRecording {
        try withLock(id) {
            guard var entry = entry(id) else { throw PageRecordingGone(id: id) }
            guard offset <= entry.received else { throw PageRecordingGap(received: entry.received) }
            let skip = Int(entry.received - offset)
            // Whole frames only: a chunk cut mid-sample waits for its other half.
            let frameBytes = 2 * entry.channels
            let usable = max(0, bytes.count - skip) / frameBytes * frameBytes
            if usable > 0 {
                let path = samplesPath(id)
                try FileSystem.withOpened(path, O_WRONLY, mode: 0o600, failure: cannotStore) { fd in
                    // Past the acknowledged end lies only what a crash left of a chunk never
                    // acknowledged: written over.
                    guard ftruncate(fd, off_t(entry.received)) == 0, lseek(fd, off_t(entry.received), SEEK_SET) >= 0
                    else { throw cannotStore(systemReason(errno)) }
                    let failed = bytes.withUnsafeBytes { raw -> Errno? in
                        do throws(Errno) {
                            try System.writeAll(fd, UnsafeRawBufferPointer(rebasing: raw[skip..<(skip + usable)]))
                            return fsync(fd) == 0 ? nil : Errno.current
                        } catch {
                            return error
                        }
                    }
                    if let failed { throw cannotStore("\(failed)") }
                }
                entry.received += Int64(usable)
            }
            entry.updated = .now()
            try write(entry)
            return entry
        }
    }

    /// A marker at `seconds` (a moment already sent or still to come), kept with the entry
    /// so that a recording saved without its page has it too. The same marker twice is one.
    package func mark(_ id: ItemID, seconds: Double, label: String) throws -> PageRecording {
        try withLock(id) {
            guard var entry = entry(id) else { throw PageRecordingGone(id: id) }
            let marker = Marker(frame: Int64((seconds * Double(entry.sampleRate)).rounded()), label: label)
            if !entry.markers.contains(where: { $0.frame == marker.frame && $0.label == marker.label }) {
                entry.markers.append(marker)
            }
            entry.updated = .now()
            try write(entry)
            return entry
        }
    }

    /// How a recording ends.
    package enum Ending: Equatable, Sendable {
        /// Stop: saved as `name` (the default when nil), once `frames` frames are here.
        case save(name: String?, frames: Int64)
        /// Cancel: saved to the trash, as `record`'s Esc at the name prompt, so that undo or
        /// `trash restore` brings it back.
        case trash
        /// Its page never came back: saved with what arrived.
        case abandoned
    }

    /// Ends recording `id`: the samples become a recording in the library's default format
    /// with its analysis (speech regions, loudness, waveform), as `record` saves one, in one
    /// store change that undo and history know; then its files here go. nil when nothing
    /// arrived (nothing to keep: the files go). Asked again after it was saved, it answers
    /// the saved item. (Cancelled, the item is the one in the trash.)
    package func end(_ id: ItemID, _ ending: Ending, library: Library) throws -> Item? {
        try withLock(id) {
            guard let entry = entry(id) else {
                if let saved = library.document[id] { return saved }
                throw PageRecordingGone(id: id)
            }
            if case .save(_, let frames) = ending, frames > entry.frames {
                throw PageRecordingGap(received: entry.received)
            }
            if case .save(let name?, _) = ending { try NameRules.validate(name) }
            guard entry.frames > 0 else {
                removeFiles(id)
                return nil
            }
            let format = AudioFormat.default
            let fileName = "\(id).\(format.fileExtension)"
            let target = library.location.audioPath(fileName)
            let info = try encode(entry, to: target, format: format, file: fileName)
            do {
                try library.documents.transaction { tx in
                    guard tx.document[id] == nil else { return }
                    let parent = tx.document[entry.parent]?.isFolder == true ? entry.parent : .root
                    var chosen = entry.name
                    if case .save(let name?, _) = ending { chosen = name }
                    if case .abandoned = ending { chosen += " (from the page)" }
                    let name = tx.document.freeName(chosen, in: parent, except: nil)
                    var item = Item.recording(id: id, name: name, parent: parent, created: entry.started, info: info)
                    item.annotations.markers = MarkerRules.saved(entry.markers, frames: info.frames)
                    try tx.add(item)
                    if ending == .trash { try tx.remove(id) }
                }
            } catch {
                if library.document[id] == nil { try? FileSystem.remove(target) }
                throw error
            }
            removeFiles(id)
            if ending != .trash { transcribeIfLiveWordsWereLost(id) }
            return library.document[id] ?? library.document.trashEntry(id)?.items.first
        }
    }

    /// The samples in `format` at `target`, measured as they are written: the analysis
    /// `record` measures while it records. (Past `received` lies only what a crash left of a
    /// chunk never acknowledged: it is cut off first.)
    private func encode(_ entry: PageRecording, to target: String, format: AudioFormat, file: String) throws
        -> RecordingInfo
    {
        let samples = samplesPath(entry.id)
        guard truncate(samples, off_t(entry.received)) == 0 else { throw cannotStore(systemReason(errno)) }
        try FileSystem.makeDirectories(location.audioDirectory)
        let temporary = Importer.temporaryPath(in: location.audioDirectory, tag: "page")
        defer { try? FileSystem.remove(temporary) }
        let meter = AnalysisMeter(sampleRate: entry.sampleRate, channels: entry.channels, length: entry.frames)
        do {
            let source = try SoundFile.openRaw(
                path: samples, encoding: .s16, rate: entry.sampleRate, channels: entry.channels)
            let copied = try SoundFile.copy(source, to: temporary, format: format, meter: meter)
            guard copied == entry.frames else {
                throw RecError.failure("recording", "its audio ends early: \(copied) of \(entry.frames) frames")
            }
        } catch let error as AudioError {
            throw RecError.failure("recording", "cannot write its audio: \(error.reason)")
        }
        try FileSystem.publish(temporary, as: target)
        return RecordingInfo(
            duration: entry.seconds, frames: entry.frames, sampleRate: entry.sampleRate, channels: entry.channels,
            format: format, file: file
        ).with(meter.finish())
    }

    private func cannotStore(_ why: String) -> Error { RecError.failure("recording", "cannot store its audio: \(why)") }

    private func removeFiles(_ id: ItemID) {
        try? FileSystem.remove(entryPath(id))
        try? FileSystem.remove(samplesPath(id))
    }

    /// Saves the recordings whose page has not been heard from for `abandonedAfter`: with
    /// what arrived, named "NAME (from the page)", the history's line saying why. Returns the
    /// notes to print, one per recording saved.
    package func saveAbandoned(now: Timestamp = .now()) -> [String] {
        var notes: [String] = []
        for entry in all()
        where now.secondsSinceEpoch - entry.updated.secondsSinceEpoch >= Self.abandonedAfter {
            guard let library = try? Library(location: location) else { break }
            library.documents.summary =
                "recnotes serve: a recording made in the page, saved with the \(Format.duration(entry.seconds)) that arrived: its page did not come back"
            if let item = try? end(entry.id, .abandoned, library: library) {
                notes.append(
                    "saved \(library.document.path(of: item.id)) (\(Format.duration(entry.seconds))): its page did not come back"
                )
            }
        }
        return notes
    }
}

/// No recording in progress has this UUID (saved, cancelled, or never started).
package struct PageRecordingGone: Error { package var id: ItemID }

/// A chunk would leave a gap (or a stop came before all its audio): what is here.
package struct PageRecordingGap: Error { package var received: Int64 }

/// The entry's file: one JSON object.
enum PageRecordingCodec {
    static func encode(_ e: PageRecording) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.field("id", e.id.description)
        w.field("parent", e.parent.description)
        w.field("name", e.name)
        w.field("started", e.started)
        w.field("sampleRate", e.sampleRate)
        w.field("channels", e.channels)
        w.field("received", e.received)
        w.key("markers")
        AnnotationCodec.writeMarkers(e.markers, to: &w)
        w.field("updated", e.updated)
        w.endObject()
        w.raw("\n")
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) -> PageRecording? {
        bytes.withUnsafeBufferPointer { buffer -> PageRecording? in
            var r = JSONReader(buffer)
            var id: ItemID?
            var parent: ItemID?
            var name: String?
            var started: Timestamp?
            var updated: Timestamp?
            var rate: Int?
            var channels: Int?
            var received: Int64?
            var markers: [Marker] = []
            do {
                try r.beginObject()
                var first = true
                while let k = try r.nextKey(first: &first) {
                    if k.equals("id") {
                        id = ItemID(try r.readString())
                    } else if k.equals("parent") {
                        parent = ItemID(try r.readString())
                    } else if k.equals("name") {
                        name = try r.readString()
                    } else if k.equals("started") {
                        started = Timestamp(utf8: try r.readRawString())
                    } else if k.equals("updated") {
                        updated = Timestamp(utf8: try r.readRawString())
                    } else if k.equals("sampleRate") {
                        rate = Int(try r.readInt())
                    } else if k.equals("channels") {
                        channels = Int(try r.readInt())
                    } else if k.equals("received") {
                        received = try r.readInt()
                    } else if k.equals("markers") {
                        markers = try AnnotationCodec.readMarkers(&r)
                    } else {
                        try r.skipValue()
                    }
                }
            } catch {
                return nil
            }
            guard let id, let parent, let name, let started, let rate, let channels, channels > 0, let received
            else { return nil }
            return PageRecording(
                id: id, parent: parent, name: name, started: started, sampleRate: rate, channels: channels,
                received: received, markers: markers, updated: updated ?? started)
        }
    }
}

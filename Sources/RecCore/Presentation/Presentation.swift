import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// Orders for `ls --sort`.
package enum SortKey: String, CaseIterable, Sendable {
    case name, date, duration, size

    /// `size` is the audio file's size in bytes (nil when it is missing); only `.size` asks.
    package func sorted(_ items: [Item], reverse: Bool = false, size: (Item) -> Int64? = { _ in nil }) -> [Item] {
        let ordered: [Item]
        switch self {
        case .name:
            ordered = items.sorted(by: displayOrder)
        case .date:
            ordered = items.sorted { $0.created != $1.created ? $0.created < $1.created : displayOrder($0, $1) }
        case .duration:
            // Folders first (they have no duration), then shortest recording first, by the
            // duration `ls -l` shows: what plays, between the trim points.
            ordered = items.sorted {
                let a = $0.isFolder ? -1 : $0.trimmedDuration
                let b = $1.isFolder ? -1 : $1.trimmedDuration
                return a != b ? a < b : displayOrder($0, $1)
            }
        case .size:
            // Folders first, then recordings whose audio is missing, then smallest first.
            let sizes = Dictionary(
                items.map { ($0.id, $0.isFolder ? -2 : size($0) ?? -1) }, uniquingKeysWith: { a, _ in a })
            ordered = items.sorted {
                let a = sizes[$0.id]!
                let b = sizes[$1.id]!
                return a != b ? a < b : displayOrder($0, $1)
            }
        }
        return reverse ? ordered.reversed() : ordered
    }
}

/// The JSON that commands print with `--json`. Keys are stable and documented:
/// uuid, name, type, path, parent, created; for recordings duration, frames, sampleRate,
/// channels, format, file, size; for folders children (a count).
package enum ItemJSON {
    /// With `analysis` (info --json): also peakDBFS, rmsDBFS, loudness ({integrated, range,
    /// truePeak}, null when not measured), waveform (the sparkline), speechSeconds and speech
    /// (the regions, each [start, end] in seconds). Every recording's object has loudnessLUFS,
    /// the integrated loudness, once it is measured (store version 5).
    /// With `transcript` (info --json of a recording): "transcript", its summary or null.
    /// A recording's object always has "enhance" ({level, denoise}); in lists only when on.
    /// With `copies` (info --json of a recording in a store that syncs): "copies", where its
    /// audio is (`["here", "hub"]`; empty when no copy is known).
    package static func object(
        _ item: Item, in library: Library, analysis: AudioAnalysis? = nil, transcript: Transcript?? = nil,
        copies: [String]? = nil
    ) -> String {
        var w = JSONWriter()
        // An older store's recording measured now (`info`): its loudnessLUFS as if stored.
        var shown = item
        if let analysis, shown.recording != nil { shown.recording?.analysis = analysis }
        write(shown, in: library, to: &w) { w in
            // A recording's one object always says how it is enhanced, off included.
            if item.recording != nil, item.annotations.enhance.isOff { writeEnhancement(.off, to: &w) }
            if let transcript {
                w.key("transcript")
                TranscriptJSON.writeSummary(transcript, to: &w)
            }
            if let copies { w.field("copies", copies) }
            if let analysis {
                let rate = Double(max(analysis.sampleRate, 1))
                func seconds(_ frames: Int64) -> Double { (Double(frames) / rate * 1000).rounded() / 1000 }
                w.field("peakDBFS", analysis.level.peak)
                w.field("rmsDBFS", analysis.level.rms)
                w.key("loudness")
                if let loudness = analysis.loudness {
                    w.beginObject()
                    w.field("integrated", loudness.integrated)
                    w.field("range", loudness.range)
                    w.field("truePeak", loudness.truePeak)
                    w.endObject()
                } else {
                    w.raw("null")
                }
                w.field("waveform", Sparkline.render(analysis.peaks))
                w.field("speechSeconds", seconds(analysis.speechFrames))
                w.field("speech", analysis.speech) { w, region in
                    w.array([region.lowerBound, region.upperBound]) { $0.double(seconds($1)) }
                }
            }
        }
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// `paths` gives the path of items no longer in the document (just removed).
    package static func array(_ items: [Item], in library: Library, paths: [ItemID: String] = [:]) -> String {
        array(items, paths: items.map { paths[$0.id] ?? library.document.path(of: $0.id) }, location: library.location)
    }

    /// Items with their paths, without the document (`find` answered from its index).
    package static func array(_ items: [Item], paths: [String], location: StoreLocation) -> String {
        var w = JSONWriter()
        writeArray(items, paths: paths, location: location, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    package static func writeArray(_ items: [Item], in library: Library, to w: inout JSONWriter) {
        let paths = library.document.paths(of: items)
        writeArray(items, paths: paths, location: library.location, to: &w)
    }

    package static func writeArray(_ items: [Item], paths: [String], location: StoreLocation, to w: inout JSONWriter) {
        let audio = AudioFiles(location)
        w.lines(Array(zip(items, paths))) { w, entry in
            write(entry.0, path: entry.1, audio: audio, to: &w)
            w.boundary()
        }
    }

    /// `ls --json` of several paths: an object a path, `{"path": PATH, "items": [...]}`, the
    /// path as typed and the items as one path's `ls --json` lists them.
    package static func writeListings(
        _ listings: [(path: String, items: [Item])], in library: Library, to w: inout JSONWriter
    ) {
        let audio = AudioFiles(library.location)
        w.lines(listings) { w, listing in
            w.beginObject()
            w.field("path", listing.path)
            w.field("items", Array(zip(listing.items, library.document.paths(of: listing.items)))) { w, entry in
                write(entry.0, path: entry.1, audio: audio, to: &w)
            }
            w.endObject()
            w.boundary()
        }
    }

    /// An item's object; `more` adds fields of the caller's before it closes (a find hit's
    /// matches, a tree folder's contents). Not escaping (nor optional, which would make it
    /// escape): a find hit captured in an escaping closure was boxed and copied, its
    /// strings and arrays retained and released, on every hit.
    static func write(
        _ item: Item, in library: Library, path: String? = nil, to w: inout JSONWriter,
        more: (inout JSONWriter) -> Void = { _ in }
    ) {
        write(item, path: path ?? library.document.path(of: item.id), location: library.location, to: &w, more: more)
    }

    static func write(
        _ item: Item, path: String, location: StoreLocation, to w: inout JSONWriter,
        more: (inout JSONWriter) -> Void = { _ in }
    ) {
        write(item, path: path, audio: AudioFiles(location), to: &w, more: more)
    }

    /// Where a list's audio files are, worked out once for all its items, and the folder
    /// opened once, so that each file's size is a lookup of its name alone.
    final class AudioFiles {
        let location: StoreLocation
        /// The audio folder's absolute path (`absolutePath`), with a slash.
        let directory: String
        /// The folder open, or nil (then no file has a size, as none is there to stat).
        private let folder: OpenFile?

        init(_ location: StoreLocation) {
            self.location = location
            directory = absolutePath(location.audioDirectory) + "/"
            folder = OpenFile(location.audioDirectory, O_RDONLY | O_DIRECTORY)
        }

        /// Lookups so far, and how many found no file.
        private var lookups = 0
        private var misses = 0
        /// The folder's names, listed once many lookups have found nothing (see `size`).
        private(set) var present: Set<String>?

        /// Transcript lookups so far, and once there were `listingAfter` of them, the names
        /// in transcripts/ (listed once: cheaper than a lookup per recording, most of which
        /// miss, in a long list; a short one, as `info`'s, looks up its few names).
        private var transcriptLookups = 0
        private var transcripts: Set<String>?
        static let listingAfter = 16

        /// Whether the recording has a transcript (`TranscriptFiles`: transcripts/UUID.json).
        func transcribed(_ id: ItemID) -> Bool {
            let name = "\(id).json"
            if transcripts == nil, transcriptLookups >= Self.listingAfter {
                transcripts = Set(FileSystem.entries(of: location.transcriptsDirectory))
            }
            transcriptLookups += 1
            if let transcripts { return transcripts.contains(name) }
            return FileSystem.exists(location.transcriptsDirectory + "/" + name)
        }

        /// Whether the recording's transcript holds no words: its search index, a line for
        /// each segment, is empty. One lookup, made only for a recording with a transcript.
        func transcriptIsEmpty(_ id: ItemID) -> Bool {
            FileSystem.size(TranscriptFiles(location: location).indexPath(of: id)) == 0
        }

        /// The size of the audio file `file` (a name in the folder), nil when it is not there.
        /// A name that is not there costs the kernel more to look up than one that is (a
        /// negative lookup, 7,040 of them 8% of a `find --json` of a store without its
        /// audio), so once at least 64 lookups have missed and they are half of all, the
        /// folder is listed once and a name it lacks is not looked up: when that many files
        /// are missing, the folder holds few of the items' files, and listing it is cheap.
        func size(of file: String) -> Int64? {
            if let present, !present.contains(file) { return nil }
            let size = folder?.withDescriptor { FileSystem.size(file, relativeTo: $0) } ?? nil
            lookups += 1
            if size == nil, folder != nil {
                misses += 1
                if present == nil, misses >= 64, misses * 2 >= lookups {
                    present = Set(FileSystem.entries(of: location.audioDirectory))
                }
            }
            return size
        }
    }

    static func write(
        _ item: Item, path: String, audio: AudioFiles, to w: inout JSONWriter,
        more: (inout JSONWriter) -> Void = { _ in }
    ) {
        w.beginObject()
        w.field("uuid", item.id)
        w.field("name", item.name)
        w.field("type", item.kind.rawValue)
        w.field("path", path)
        w.key("parent")
        w.optionalID(item.parent)
        w.field("created", item.created)
        if let info = item.recording {
            // The output's own keys, not store.json's codec: the two layouts may part.
            w.field("duration", info.duration)
            w.field("frames", info.frames)
            w.field("sampleRate", info.sampleRate)
            w.field("channels", info.channels)
            w.field("format", info.format.rawValue)
            w.field("file", info.file)
            w.key("audioPath")
            w.string(audio.directory, info.file)
            w.key("size")
            if let size = audio.size(of: info.file) { w.int(size) } else { w.raw("null") }
            // Only once measured: the lists of an older store print as they did.
            if let loudness = info.analysis?.loudness { w.field("loudnessLUFS", loudness.integrated) }
            // Only when there is one, as `enhance`: the lists of a library never transcribed
            // print as they did. (`info --json` also has the transcript's summary.)
            if audio.transcribed(item.id) {
                w.field("transcribed", true)
                // Transcribed, and nothing was heard: no badge promises words.
                if audio.transcriptIsEmpty(item.id) { w.field("transcriptEmpty", true) }
            }
        } else {
            w.field("children", item.children.count)
        }
        writeAnnotations(item, to: &w)
        more(&w)
        w.endObject()
    }

    /// `"tags": [...], "note": "..."` on every item, and `"markers": [...]` on recordings,
    /// empty when there are none, so that a script never has to test for the key.
    static func writeAnnotations(_ item: Item, to w: inout JSONWriter) {
        w.field("tags", item.annotations.tags)
        w.field("note", item.annotations.note)
        if let info = item.recording {
            w.key("markers")
            writeMarkers(item, to: &w)
            w.key("trim")
            writeTrim(item.annotations.trim, info: info, to: &w)
            w.field("trimmedDuration", (item.trimmedDuration * 1000).rounded() / 1000)
            // Only when enhanced (store version 6), so that the lists of a library without
            // enhancement print as they did; `info --json` always has it (`object`).
            if !item.annotations.enhance.isOff { writeEnhancement(item.annotations.enhance, to: &w) }
        }
    }

    /// `"enhance": {"level": true, "denoise": false}`.
    static func writeEnhancement(_ enhance: Enhancement, to w: inout JSONWriter) {
        w.key("enhance")
        w.beginObject()
        w.field("level", enhance.level)
        w.field("denoise", enhance.denoise)
        w.endObject()
    }

    /// `{"in": 1.25, "out": 42.5, "inFrame": 60000, "outFrame": 2040000}`, or null.
    static func writeTrim(_ trim: TrimPoints?, info: RecordingInfo, to w: inout JSONWriter) {
        guard let trim else { return w.raw("null") }
        let rate = Double(max(info.sampleRate, 1))
        w.beginObject()
        w.field("in", (Double(trim.inFrame) / rate * 1000).rounded() / 1000)
        w.field("out", (Double(trim.outFrame) / rate * 1000).rounded() / 1000)
        w.field("inFrame", trim.inFrame)
        w.field("outFrame", trim.outFrame)
        w.endObject()
    }

    /// `path` from the working directory when it is relative (a relative `--store`), so
    /// that a script can open the audio file from anywhere.
    static func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let directory = String(cBuffer: buffer)
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return (directory == "/" ? "" : directory) + "/" + relative
    }

    /// A tree as nested objects: each folder gets a `contents` array.
    package static func tree(_ root: Item, in library: Library) -> String {
        var w = JSONWriter()
        writeTree(root, in: library, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Each item's path is its folder's (made once per folder) and its name.
    package static func writeTree(_ root: Item, in library: Library, to w: inout JSONWriter) {
        let audio = AudioFiles(library.location)
        let document = library.document
        func visit(_ item: Item, path: String, to w: inout JSONWriter) {
            guard item.isFolder else {
                write(item, path: path, audio: audio, to: &w)
                return w.boundary()
            }
            write(item, path: path, audio: audio, to: &w) { w in
                let prefix = path == "/" ? "/" : path + "/"
                w.field("contents", document.children(of: item.id).sorted(by: displayOrder)) { w, child in
                    visit(child, path: prefix + child.name, to: &w)
                }
            }
        }
        visit(root, path: document.path(of: root.id), to: &w)
    }

    package static func viewState(_ state: ViewState, in library: Library) -> String {
        let document = library.document
        var w = JSONWriter()
        w.beginObject()
        w.lineKey("folderStack")
        w.array(state.folderStack) { $0.id($1) }
        w.lineKey("currentFolder")
        w.string(document.path(of: state.currentFolder))
        w.lineKey("selection")
        if let selection = state.selection {
            w.beginObject()
            w.field("recording", selection.recording)
            w.field("path", document.path(of: selection.recording))
            w.field("position", selection.position)
            w.endObject()
        } else {
            w.raw("null")
        }
        w.lineKey("recording")
        if let r = state.recording {
            w.beginObject()
            w.field("uuid", r.id)
            w.field("parent", r.parent)
            w.field("name", r.name)
            w.field("file", r.file)
            w.field("output", ifPresent: r.output)
            w.field("pid", r.pid)
            w.field("started", r.started)
            w.endObject()
        } else {
            w.raw("null")
        }
        w.endLineObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

/// JSON for `trash ls --json` and `history --json`.
package enum RecordJSON {
    /// uuid, name, type, path (where it was), parent, removed, items (count), size (bytes of audio).
    package static func trash(_ entries: [TrashEntry], in library: Library) -> String {
        var w = JSONWriter()
        w.lines(entries) { w, entry in
            w.beginObject()
            w.field("uuid", entry.id)
            w.field("name", entry.item.name)
            w.field("type", entry.item.kind.rawValue)
            w.field("path", entry.path)
            w.field("parent", entry.parent)
            w.field("removed", entry.removed)
            w.field("items", entry.items.count)
            w.field(
                "size", entry.audioFiles.compactMap { FileSystem.size(library.location.audioPath($0)) }.reduce(0, +))
            w.endObject()
        }
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// `history --json`: seq, time, summary (the command line), change (what changed, null
    /// for an entry from before it was recorded), changes (count of steps).
    /// `undo --json`: {"seq", "time", "summary" (the command line), "change" (what the text
    /// output says after the number), "dryRun"}.
    package static func undo(_ undone: DocumentStore.Undone, dryRun: Bool) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("seq", undone.entry.sequence)
        w.field("time", undone.entry.time)
        w.field("summary", undone.entry.summary)
        w.field("change", undone.change)
        w.field("dryRun", dryRun)
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    package static func history(_ entries: [Journal.Entry]) -> String {
        var w = JSONWriter()
        w.lines(entries) { w, entry in
            w.beginObject()
            w.field("seq", entry.sequence)
            w.field("time", entry.time)
            w.field("summary", entry.summary)
            w.key("change")
            if let change = entry.change { w.string(change) } else { w.raw("null") }
            w.field("changes", entry.steps.count)
            w.endObject()
        }
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

/// `fsck --json`: {"clean": bool, "problems": [{"kind", "message", "repairable", "severity"}], "repairs": [string],
/// "notRepaired": [string], "remaining": int, "folders": int, "recordings": int}.
package enum CheckJSON {
    package static func report(_ report: StoreCheck.Report, repaired: Bool) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.field("clean", report.remaining.isEmpty)
        w.key("problems")
        w.lines(report.problems) { w, problem in
            w.beginObject()
            w.field("kind", kind(problem))
            w.field("message", problem.description)
            w.field("repairable", problem.isRepairable)
            w.field("severity", problem.severity.rawValue)
            w.endObject()
        }
        w.field("repairs", report.repairs)
        w.field("notRepaired", report.notRepaired)
        w.field("remaining", report.remaining.count)
        w.field("folders", report.folders)
        w.field("recordings", report.recordings)
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    static func kind(_ problem: StoreCheck.Problem) -> String {
        switch problem {
        case .link: return "link"
        case .missingAudio: return "missingAudio"
        case .unreadableAudio: return "unreadableAudio"
        case .orphanAudio: return "orphanAudio"
        case .staleRecording: return "staleRecording"
        case .danglingViewState: return "viewState"
        case .strayTemporary: return "strayTemporary"
        case .emptyOrphanAudio: return "emptyOrphanAudio"
        case .missingStore: return "missingStore"
        case .brokenStore: return "brokenStore"
        case .markersPastEnd: return "markersPastEnd"
        case .missingAnalysis: return "missingAnalysis"
        case .missingLoudness: return "missingLoudness"
        case .trimPastEnd: return "trimPastEnd"
        case .orphanTranscript: return "orphanTranscript"
        case .unreadableTranscript: return "unreadableTranscript"
        case .transcriptPastEnd: return "transcriptPastEnd"
        case .staleTranscriptIndex: return "staleTranscriptIndex"
        case .unusedUndoCopy: return "unusedUndoCopy"
        case .wrongSearchIndex: return "wrongSearchIndex"
        }
    }
}

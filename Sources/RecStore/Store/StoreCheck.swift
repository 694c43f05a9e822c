import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `fsck`: checks `store.json` against `audio/` and `viewstate.json`, and repairs only what
/// is safe, in two parts: `StoreDiagnosis` finds the problems and changes nothing,
/// `StoreRepair` repairs them under the store lock. Nothing that holds audio is deleted. A
/// lost `store.json`, or one that no longer decodes (kept aside as
/// `store.json.broken-<time>`), is rebuilt from its intact lines, the journal and the audio.
///
/// A problem is damage (exit status 1 until repaired) or information: what an older
/// version's store lacks is not damage, and `fsck` says what `--repair` would do about it.
/// What `fsck` asks of audio files. The store never decodes audio (RecStore knows no
/// engine): the layer above answers with the engine (RecCore's `SoundFileInspection`).
package protocol AudioInspection: Sendable {
    /// Throws why the file at `path` cannot be opened as audio.
    func check(path: String) throws
    /// What the file at `path` (`file` inside `audio/`) holds, as a recording records it, its
    /// analysis measured; nil when it is unreadable, empty, or in a format the store cannot name.
    func recordingInfo(path: String, file: String) -> RecordingInfo?
    /// `info` with its analysis measured from its audio at `path`; without one when the file
    /// cannot be decoded.
    func analyzed(_ info: RecordingInfo, path: String) -> RecordingInfo
    /// Why no loudness can be measured here (libebur128 cannot be loaded); nil when it can.
    func loudnessUnavailable() -> String?
}

package struct StoreCheck {
    package enum Problem: Equatable, Sendable, CustomStringConvertible {
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
        /// `store.json` does not decode (cut short, or damaged by an edit); `--repair` moves it
        /// aside and rebuilds it from its intact lines, the journal and the audio.
        case brokenStore(reason: String)
        /// Markers later than the recording's last frame (its audio was cut short, or the
        /// store was edited by hand); `--repair` moves them to the end.
        case markersPastEnd(path: String, count: Int)
        /// Recordings saved without their analysis (levels, waveform, speech): by a store
        /// older than version 3, or rebuilt by hand. Information, not damage: `info`
        /// measures them each time; `--repair` measures them once and stores them.
        case missingAnalysis(paths: [String])
        /// Recordings whose stored analysis has no loudness (EBU R128): by a store older than
        /// version 5, or saved where libebur128 could not be loaded. Information, as above;
        /// `--repair` measures it and stores it.
        case missingLoudness(paths: [String])
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

        package var description: String {
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
            case .brokenStore(let reason):
                return
                    "store.json: \(reason) (--repair moves it aside as store.json.broken-<time> and rebuilds it from its intact lines, journal.jsonl and audio/)"
            case .markersPastEnd(let path, let count):
                return "\(path): \(count) marker\(count == 1 ? " is" : "s are") past the end of the recording"
            case .missingAnalysis(let paths):
                let named = paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? ", …" : "")
                return
                    "\(paths.count) recording\(paths.count == 1 ? " has" : "s have") no stored levels and waveform yet (\(named)), as a store from an older version: info measures them each time, and --repair would measure them once and store them"
            case .missingLoudness(let paths):
                let named = paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? ", …" : "")
                return
                    "\(paths.count) recording\(paths.count == 1 ? " has" : "s have") no stored loudness yet (\(named)), as a store from an older version: --repair would measure it and store it"
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
            case .wrongSearchIndex(let file):
                let kind = file.hasSuffix(StoreTable.fileName) ? "the reads' table" : "find's index"
                return "\(file): \(kind) does not match what it was made from"
            }
        }

        /// What `--repair` can safely fix.
        package var isRepairable: Bool {
            switch self {
            case .missingAudio, .unreadableAudio: return false
            default: return true
            }
        }

        package enum Severity: String, Sendable {
            /// Something is wrong: `fsck` exits 1 while it remains.
            case damage
            /// Nothing is wrong: what `--repair` would add (an older store's analysis).
            case information
        }

        package var severity: Severity {
            switch self {
            case .missingAnalysis, .missingLoudness: return .information
            default: return .damage
            }
        }

        package var isDamage: Bool { severity == .damage }
    }

    package struct Report: Sendable {
        package var problems: [Problem]
        /// With `--repair`: what was done, one line each.
        package var repairs: [String]
        /// Damage still there afterwards (the CLI checks again after a repair); information
        /// is never counted.
        package var remaining: [Problem]
        /// With `--repair`: what could not be repaired or recovered, and why (one line each).
        package var notRepaired: [String] = []
        /// What the checked (or repaired) document holds, the root folder not counted.
        package var folders = 0
        package var recordings = 0
    }

    package static let recoveredFolder = "Recovered"

    package let location: StoreLocation
    /// The engine's answers about audio files: the store itself never decodes audio.
    let audio: any AudioInspection

    package init(location: StoreLocation, audio: any AudioInspection) {
        self.location = location
        self.audio = audio
    }

    /// Runs the check, and with `repair` fixes what is safe under the store lock. A store
    /// that cannot be written is checked without the lock, and repairing it is refused.
    package func run(repair: Bool, isAlive: (Int32) -> Bool = processIsAlive) throws -> Report {
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
        let diagnosis = try StoreDiagnosis(location: location, audio: audio, isAlive: isAlive)
        let problems = diagnosis.problems
        guard repair, !problems.isEmpty else {
            return Report(
                problems: problems, repairs: [], remaining: problems.filter(\.isDamage), document: diagnosis.document)
        }
        var repair = StoreRepair(location: location, audio: audio)
        var repairs: [String] = []
        var current = diagnosis
        if diagnosis.needsRebuild {
            repairs += try repair.rebuild(diagnosis)
            current = try StoreDiagnosis(location: location, audio: audio, isAlive: isAlive)
        }
        let (more, document) = try repair.apply(current)
        var report = Report(
            problems: problems, repairs: repairs + more,
            remaining: current.problems.filter { $0.isDamage && !$0.isRepairable }, document: document)
        report.notRepaired = repair.notRepaired
        return report
    }

    /// The pid embedded in the name of one of recnotes' temporary files, or nil for any
    /// other name: `.NAME.tmp-PID` (an atomic write) and `.import-PID-HEX.EXT` (an import).
    package static func temporaryFileOwner(_ name: String) -> Int32? {
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

import RecAudio
import RecStore
import RecSystem
import RecTranscripts
import RecValues

/// `transcribe`: which recordings, then one at a time: decode, run the engine, and save the
/// transcript atomically under the store lock, only if the recording is still there. A
/// transcript is saved whole or not at all, so an interrupted or killed run keeps every
/// transcript it finished and leaves no half one; `--missing` picks up the rest.
package final class Transcriber {
    package enum Event: Sendable {
        /// Recording `index` (from 0) of `count` is being transcribed.
        case started(index: Int, count: Int, item: Item)
        /// How much of recording `index`'s audio is decoded (0 to 1), where the engine can tell.
        case progress(index: Int, count: Int, item: Item, done: Double)
        case saved(index: Int, item: Item, transcript: Transcript)
        /// Not done: it has a transcript already (no `--force`), or it was removed meanwhile.
        case skipped(item: Item, reason: String)
        case failed(index: Int, item: Item, error: RecError)
    }

    package struct Summary: Sendable {
        package var saved = 0
        package var skipped = 0
        package var failed = 0
        package var interrupted = false
    }

    package let library: Library
    package let cancel = CancelFlag()
    /// What will be transcribed, in order.
    package private(set) var recordings: [Item] = []
    /// What already has a transcript and is left alone (without `force`).
    package private(set) var alreadyDone: [Item] = []

    /// `paths` (recordings, or folders meaning every recording under them), or every
    /// recording outside the trash with `all`. Without `force`, recordings that have a
    /// transcript are left out. A path that names nothing is an error before any work.
    /// `original` (`--original`): the audio as it is, without the recordings' enhancement.
    package let original: Bool

    /// `original`: each recording's stored enhancement is ignored (`transcribe --original`);
    /// otherwise what is transcribed is the enhanced audio, as it plays.
    package init(library: Library, paths: [String], all: Bool, force: Bool, original: Bool = false) throws {
        self.library = library
        self.original = original
        if library.isReadOnly { throw library.documents.readOnlyError }
        let files = TranscriptFiles(location: library.location)
        var chosen: [Item] = []
        var seen = Set<ItemID>()
        let tops: [Item] = all ? [library.document[.root]!] : try paths.map { try library.item(at: $0) }
        for top in tops {
            for item in library.document.subtree(of: top.id)
            where item.recording != nil && seen.insert(item.id).inserted {
                chosen.append(item)
            }
        }
        for item in chosen {
            if !force && files.exists(item.id) { alreadyDone.append(item) } else { recordings.append(item) }
        }
    }

    /// Transcribes each recording in turn with `engine`. Once `cancel` is set it stops: the
    /// recording in progress is given up (the engine stops within about a second) and its
    /// transcript, if it had one, stays as it was. A failure is reported and the next
    /// recording is tried.
    package func run(engine: any TranscriptionEngine, events: (Event) -> Void) -> Summary {
        var summary = Summary()
        recordings: for (index, item) in recordings.enumerated() {
            if cancel.isCancelled {
                summary.interrupted = true
                break
            }
            events(.started(index: index, count: recordings.count, item: item))
            do {
                let count = recordings.count
                let transcript = try transcript(of: item, with: engine) { done in
                    events(.progress(index: index, count: count, item: item, done: done))
                }
                // Stopped as the engine finished: nothing is replaced after a Ctrl-C.
                if cancel.isCancelled { throw RecError.transcriptionStopped }
                let stillThere = try Self.save(transcript, for: item, in: library)
                if stillThere {
                    summary.saved += 1
                    events(.saved(index: index, item: item, transcript: transcript))
                } else {
                    summary.skipped += 1
                    events(.skipped(item: item, reason: "was removed while it was transcribed"))
                }
            } catch let error as RecError where error == .transcriptionStopped {
                summary.interrupted = true
                break recordings
            } catch let error as RecError {
                summary.failed += 1
                events(.failed(index: index, item: item, error: library.inUserTerms(error) as? RecError ?? error))
            } catch {
                summary.failed += 1
                events(.failed(index: index, item: item, error: RecError.failure("transcribe", "\(error)")))
            }
        }
        return summary
    }

    /// What `engine` hears in recording `item`: its audio as it plays (enhanced unless
    /// `original`), decoded once.
    package func transcript(
        of item: Item, with engine: any TranscriptionEngine, progress: (Double) -> Void
    ) throws -> Transcript {
        let info = item.recording!
        let applied = try item.enhancement(
            levelOption: nil, denoiseOption: false, original: original, path: library.document.path(of: item.id))
        try library.requireAudioHere(item)
        let path = library.location.audioPath(info.file)
        let level = try applied.level.map {
            try info.leveller(target: $0, path: path, range: nil, rate: SpeechAudio.sampleRate, channels: 1)
        }
        let denoise = applied.denoise ? try Denoiser(rate: SpeechAudio.sampleRate, channels: 1) : nil
        // Where the speech starts, from the stored analysis (nothing is measured here).
        let speechStart = info.analysis?.speech.first.map { Double($0.lowerBound) / Double(info.sampleRate) }
        return try Transcription.transcribe(
            file: path, with: engine, speechStart: speechStart, level: level, denoise: denoise, cancel: cancel,
            progress: progress)
    }

    /// Saves `transcript` as `item`'s, replacing the one it has (kept for undo), only if the
    /// recording is still there with the same audio; returns whether it was. Under the store
    /// lock, so that a removal cannot slip in between the check and the write (removal
    /// deletes the transcript after the document).
    package static func save(_ transcript: Transcript, for item: Item, in library: Library) throws -> Bool {
        let files = TranscriptFiles(location: library.location)
        return try library.documents.transaction { transaction -> Bool in
            guard let current = transaction.document[item.id], let recording = current.recording,
                recording.file == item.recording?.file
            else { return false }
            // The one it replaces is kept for undo (see Journal.Step.transcribed).
            let replaced = try files.keepForUndo(item.id)
            do {
                try files.write(
                    transcript.clipped(to: recording.duration), for: item.id, duration: recording.duration)
            } catch {
                if let replaced { files.discardKept(replaced) }
                throw error
            }
            try transaction.transcribed(item.id, replaced: replaced)
            return true
        }
    }

    /// Puts `transcript` in the place of `item`'s, as the same act of transcription (no
    /// step of its own to undo), only if the transcript it has is still `saved`, byte for
    /// byte: one made, corrected or taken back meanwhile is never replaced. Returns whether
    /// it was.
    package static func amend(_ transcript: Transcript, over saved: [UInt8], for item: Item, in library: Library)
        throws -> Bool
    {
        let files = TranscriptFiles(location: library.location)
        return try library.documents.transaction { transaction -> Bool in
            guard let current = transaction.document[item.id], let recording = current.recording,
                recording.file == item.recording?.file, files.bytes(of: item.id) == saved
            else { return false }
            try files.write(transcript.clipped(to: recording.duration), for: item.id, duration: recording.duration)
            return true
        }
    }
}

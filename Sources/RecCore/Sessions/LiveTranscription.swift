import RecAudio
import RecStore
import RecSystem
import RecTranscripts
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The files of a recording's live words, in the store's cache: the tap the recorder
/// writes (`<uuid>.pcm`, one channel of 16-bit samples at the recording's rate), the words
/// the transcriber has decoded so far (`<uuid>.words`, a segment a line, as the transcript
/// holds them), the transcriber's own messages (`<uuid>.log`), and the lock it holds while
/// it runs (`<uuid>.lock`), by which files no transcriber will finish are told apart.
package struct LiveWordsFiles: Sendable {
    package let directory: String

    package init(location: StoreLocation) { directory = location.cacheDirectory + "/live" }

    package func tap(_ id: ItemID) -> String { "\(directory)/\(id).pcm" }
    package func words(_ id: ItemID) -> String { "\(directory)/\(id).words" }
    package func log(_ id: ItemID) -> String { "\(directory)/\(id).log" }
    package func lock(_ id: ItemID) -> String { "\(directory)/\(id).lock" }

    /// The segments decoded so far of recording `id` (none when there is no file).
    package func segments(of id: ItemID) -> [Transcript.Segment] {
        guard let bytes = try? FileSystem.read(words(id)) else { return [] }
        return bytes.split(separator: 0x0A).compactMap { TranscriptCodec.decodeSegment($0) }
    }

    /// The words decoded so far of recording `id`, as one text; nil when it is not
    /// transcribed live (no words file, and no tap).
    package func text(of id: ItemID) -> String? {
        guard FileSystem.exists(words(id)) || FileSystem.exists(tap(id)) else { return nil }
        return segments(of: id).map(\.text).joined(separator: " ")
    }

    package func removeAll(of id: ItemID) {
        removeProgress(of: id)
        try? FileSystem.remove(lock(id))
    }

    /// All but the lock: what tells that recording `id`'s transcript is still coming.
    package func removeProgress(of id: ItemID) {
        for path in [tap(id), words(id), log(id)] { try? FileSystem.remove(path) }
    }

    /// Removes what transcribers that died left (a tap can be large), but for recording
    /// `current`'s: the files of every recording whose lock nobody holds. Its transcript,
    /// if it has none, is then `transcribe --missing`'s to make.
    package func sweep(except current: ItemID) {
        let ids = Set(FileSystem.entries(of: directory).compactMap { name in name.split(separator: ".").first })
        for text in ids {
            guard let id = ItemID(String(text)), id != current,
                let held = try? FileLock(attempting: lock(id))
            else { continue }
            withExtendedLifetime(held) { removeAll(of: id) }
        }
    }
}

/// The transcriber's side of live words: it reads the tap as it grows, resamples it to
/// 16 kHz, finds the speech in it, and transcribes each stretch of speech once it has ended
/// (or, in speech that goes on, once it is `longestPiece` long, cut at its quietest moment),
/// so that words come while the recording goes on. Times are the recording's own.
package final class LiveTranscription {
    /// Speech with no pause is cut into pieces no longer than this, so words keep coming.
    package static let longestPiece = 15.0
    /// A long piece is cut at the quietest tenth of a second after this much of it.
    package static let shortestCut = 8.0

    private let engine: any TranscriptionEngine
    private let tap: OpenFile
    private let rate: Int
    private var offset: Int64 = 0
    private var resampler: Resampler?
    private var detector = VoiceActivityDetector(sampleRate: SpeechAudio.sampleRate)
    /// 16 kHz audio not yet transcribed, from frame `base` on.
    private var pending: [Int16] = []
    private var base: Int64 = 0
    private var pieceHasSpeech = false
    /// Pieces the engine could not do: the transcript is then made from the whole recording.
    package private(set) var failures: [RecError] = []
    package private(set) var segments: [Transcript.Segment] = []
    /// The pieces the engine was given.
    package private(set) var pieces = 0
    /// The first piece's transcript, for what the engine says of itself.
    private var made: Transcript?
    /// Frames of the recording (at its rate) read from the tap so far.
    package var framesRead: Int64 { offset / 2 }

    package init?(tapPath: String, rate: Int, engine: any TranscriptionEngine) {
        guard let tap = OpenFile(tapPath, O_RDONLY) else { return nil }
        self.tap = tap
        self.rate = rate
        self.engine = engine
        resampler =
            rate == SpeechAudio.sampleRate ? nil : Resampler(from: rate, to: SpeechAudio.sampleRate, channels: 1)
    }

    /// Reads up to a second of what the tap holds beyond what was read, and transcribes
    /// the pieces it completes. `final`: the tap has stopped growing, so what it ends with
    /// is a piece too. Returns the new segments, or nil when there was nothing new to read.
    package func advance(final: Bool) -> [Transcript.Segment]? {
        var bytes = [UInt8](repeating: 0, count: rate * 2)
        let n = tap.withDescriptor { fd in
            bytes.withUnsafeMutableBytes { buffer in
                System.retrying { pread(fd, buffer.baseAddress!, buffer.count, off_t(offset)) }
            }
        }
        let whole = max(n, 0) & ~1
        guard whole > 0 else {
            guard final, resampler != nil || !pending.isEmpty || pieceHasSpeech else { return nil }
            return finish()
        }
        offset += Int64(whole)
        let samples = (0..<(whole / 2)).map {
            Int16(bitPattern: UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8)
        }
        let speech = resampled(samples)
        return take(speech)
    }

    private func resampled(_ samples: [Int16]) -> [Int16] {
        guard resampler != nil else { return samples }
        let floats = samples.map { Float($0) / 32768 }
        return Self.samples(floats.withUnsafeBufferPointer { resampler!.process($0) })
    }

    private static func samples(_ floats: [Float]) -> [Int16] {
        floats.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
    }

    /// Feeds new 16 kHz audio and transcribes what it completes.
    private func take(_ speech: [Int16]) -> [Transcript.Segment] {
        pending += speech
        var new: [Transcript.Segment] = []
        for event in detector.feed(speech) {
            switch event {
            case .speechStarted(let at):
                // Silence before a piece's first speech is not worth the engine's time.
                if !pieceHasSpeech { drop(until: at) }
                pieceHasSpeech = true
            case .speechEnded(let at):
                new += transcribe(until: at)
            }
        }
        let end = base + Int64(pending.count)
        let longest = Int64(Self.longestPiece * Double(SpeechAudio.sampleRate))
        if pieceHasSpeech && end - base >= longest {
            new += transcribe(until: quietestCut())
        } else if !pieceHasSpeech {
            // Only what an onset can still point back to is kept.
            drop(until: end - detector.lookback - Int64(SpeechAudio.sampleRate / 10))
        }
        segments += new
        return new
    }

    private func finish() -> [Transcript.Segment] {
        if resampler != nil {
            let tail = Self.samples(resampler!.finish())
            resampler = nil
            pending += tail
            _ = detector.feed(tail)
        }
        for event in detector.finish() {
            if case .speechStarted = event { pieceHasSpeech = true }
        }
        let new = pieceHasSpeech ? transcribe(until: base + Int64(pending.count)) : []
        pending = []
        pieceHasSpeech = false
        segments += new
        return new
    }

    private func drop(until frame: Int64) {
        let count = Int(min(max(frame - base, 0), Int64(pending.count)))
        guard count > 0 else { return }
        pending.removeFirst(count)
        base += Int64(count)
    }

    /// Where a long piece is cut: the middle of its quietest tenth of a second after
    /// `shortestCut` seconds.
    private func quietestCut() -> Int64 {
        let step = SpeechAudio.sampleRate / 10
        var best = pending.count
        var bestEnergy = Double.infinity
        var at = Int(Self.shortestCut * Double(SpeechAudio.sampleRate))
        while at + step <= pending.count {
            var energy = 0.0
            for sample in pending[at..<(at + step)] { energy += Double(sample) * Double(sample) }
            if energy < bestEnergy { (best, bestEnergy) = (at + step / 2, energy) }
            at += step
        }
        return base + Int64(best)
    }

    /// Transcribes the piece from `base` to `frame`, and drops it.
    private func transcribe(until frame: Int64) -> [Transcript.Segment] {
        let count = Int(min(max(frame - base, 0), Int64(pending.count)))
        let start = Double(base) / Double(SpeechAudio.sampleRate)
        let piece = Array(pending[..<count])
        drop(until: frame)
        pieceHasSpeech = detector.isSpeech
        guard count > 0 else { return [] }
        pieces += 1
        do {
            let transcript = try engine.transcribe(SpeechAudio(samples: piece))
            if made == nil { made = transcript }
            return transcript.shifted(by: start).segments
        } catch {
            failures.append(error)
            return []
        }
    }

    /// What the segments make: the recording's transcript, named as the engine names its
    /// own (engine, model, language, quality).
    package var transcript: Transcript {
        var transcript = made ?? Transcript(engine: engine.name, model: "", quality: .draft, segments: [])
        transcript.created = .now()
        transcript.segments = segments
        return transcript
    }
}

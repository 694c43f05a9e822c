import RecAudio
import RecStore
import RecSystem
import RecValues

/// What a recording's audio holds, measured by the engine: the store keeps the values but
/// never decodes (RecStore knows no audio), so the measuring lives here, where the two meet.
extension RecordingInfo {
    /// This recording with its analysis measured from its audio at `path`, decoded once;
    /// without one when the file cannot be decoded (`fsck` then reports it).
    package func analyzed(path: String) -> RecordingInfo {
        var copy = self
        copy.analysis = try? measureAnalysis(path: path)
        return copy
    }

    /// The analysis of this recording's audio at `path`, decoded once, as the store keeps it.
    package func measureAnalysis(path: String) throws -> AudioAnalysis {
        own(try AudioAnalysis.analyze(path: path))
    }

    /// This recording with `analysis`, measured as its audio was written (`AnalysingSink`),
    /// so that saving decodes nothing.
    package func with(_ analysis: AudioAnalysis) -> RecordingInfo {
        var copy = self
        copy.analysis = own(analysis)
        return copy
    }

    /// `analysis` under the recording's own length and rate, as store.json reads it back.
    private func own(_ analysis: AudioAnalysis) -> AudioAnalysis {
        var analysis = analysis
        analysis.frames = frames
        analysis.sampleRate = sampleRate
        return analysis
    }

    /// The leveller of `export --level` and `play --level` to `target` LUFS for its audio at
    /// `path`, `range` of it (all when nil) at `rate`: the gain from the stored loudness when
    /// all of it is played or written, else from the loudness of that range, measured now (one
    /// more decode; also for an older store's recording, which has none stored). `channels`:
    /// of what is fed to it, when not the recording's own (a transcription's mono).
    package func leveller(target: Double, path: String, range: Range<Int64>?, rate: Int, channels: Int? = nil) throws
        -> Leveller
    {
        let loudness: Loudness
        if range == nil || range == 0..<frames, let stored = analysis?.loudness {
            loudness = stored
        } else {
            let clamped = range?.clamped(to: 0..<max(frames, 1))
            loudness = try LoudnessMeter.measure(
                path: path, from: clamped?.lowerBound ?? 0, frames: clamped.map { $0.upperBound - $0.lowerBound })
        }
        return Leveller(
            gain: Leveller.gain(to: target, from: loudness), channels: channels ?? self.channels, rate: rate)
    }

    /// Its speech regions: those stored with it (measured at the default settings when the
    /// audio was saved), so that nothing is decoded a second time; the file is decoded only
    /// for a `silenceThreshold` of the user's, or a recording from an older store.
    package func speechRegions(in location: StoreLocation, silenceThreshold: Double? = nil) throws -> [Range<Int64>] {
        if silenceThreshold == nil, let analysis { return analysis.speech }
        return try VoiceActivity.speechRegions(
            path: location.audioPath(file),
            configuration: VoiceActivityConfiguration(silenceThreshold: silenceThreshold))
    }
}

/// `fsck`'s questions about audio files, answered by the engine.
struct SoundFileInspection: AudioInspection {
    func check(path: String) throws {
        _ = try SoundFile.open(path: path)
    }

    func recordingInfo(path: String, file: String) -> RecordingInfo? {
        guard let audio = try? SoundFile.open(path: path), audio.frames > 0, let format = audio.audioFormat else {
            return nil
        }
        return RecordingInfo(
            duration: audio.duration, frames: audio.frames, sampleRate: audio.sampleRate,
            channels: audio.channels, format: format, file: file
        ).analyzed(path: path)
    }

    func analyzed(_ info: RecordingInfo, path: String) -> RecordingInfo {
        info.analyzed(path: path)
    }

    func loudnessUnavailable() -> String? {
        do throws(RecError) {
            try LoudnessMeter.load(for: "loudness")
            return nil
        } catch {
            return error.reason
        }
    }
}

extension StoreCheck {
    /// `fsck` on the store at `location`, the audio files read by the engine.
    package init(location: StoreLocation) {
        self.init(location: location, audio: SoundFileInspection())
    }

    /// After the store is sound, the view state is trimmed and a stale recording recovered;
    /// both go through the stores' own paths. A recovery that must wait (the store cannot be
    /// written) is left, and `report` says why.
    package static func repairViewState(_ library: Library, into report: inout Report) throws {
        do {
            if let note = try library.recoverInterruptedRecording() { report.repairs.append(note) }
        } catch let waiting as RecoveryWaits {
            report.notRepaired.append(waiting.description)
            return
        }
        let document = library.document
        if try library.viewState.transaction({ $0.trim(to: document) }) {
            report.repairs.append("trimmed the view state to folders and recordings that exist")
        }
    }
}

extension Item {
    /// What a play, an export or a transcription of this recording applies: its stored
    /// enhancement with the options typed winning (`Enhancement.resolved`; `original` is
    /// `--original`). `path` names the recording in the one-line error.
    ///
    /// Denoise on needs speexdsp: it is opened here, so that without it the recording is
    /// refused before a device or a file is touched, rather than played or written without it.
    package func enhancement(levelOption: Double?, denoiseOption: Bool, original: Bool, path: String) throws -> (
        level: Double?, denoise: Bool
    ) {
        let applied = annotations.enhance.resolved(
            levelOption: levelOption, denoiseOption: denoiseOption, original: original)
        if applied.denoise {
            do {
                try Denoiser.load(for: denoiseOption ? "--denoise" : path)
            } catch  where !denoiseOption {
                throw RecError.failure(
                    error.subject,
                    error.reason
                        + " (this recording is enhanced with it: 'recnotes enhance --no-denoise', or --original)")
            }
        }
        return applied
    }
}

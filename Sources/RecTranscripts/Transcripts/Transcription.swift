import RecAudio
import RecSystem
import RecValues

/// The front door for the integrator: which engine, and a file's transcript.
package enum Transcription {
    /// The engine to use: `command` (a `--engine` option) if given, else
    /// `$RECNOTES_TRANSCRIBER`, else Whisper when it is installed under `storeDirectory`
    /// (`recnotes engine install whisper`), else the built-in PocketSphinx. A command of
    /// `pocketsphinx` or `whisper` names that engine; any other is an external command.
    /// `model` and `language` are Whisper's (a model name or directory; a language code or
    /// `auto`); Whisper is told your words (`Vocabulary`) too.
    package static func engine(
        command: String? = nil, timeout: Double? = nil, storeDirectory: String? = nil, model: String? = nil,
        language: String? = nil
    ) throws(RecError) -> any TranscriptionEngine {
        let installation = storeDirectory.map { WhisperInstallation(storeDirectory: $0) }
        let prompt = storeDirectory.flatMap { Vocabulary(storeDirectory: $0).prompt }
        func named(_ command: String) throws(RecError) -> any TranscriptionEngine {
            switch command.trimmingBlanks() {
            case "pocketsphinx": return PocketSphinxEngine()
            case WhisperInstallation.name:
                guard let installation else {
                    throw .transcribe(WhisperInstallation.name, "no store directory to find the engine in")
                }
                return try WhisperEngine(installation: installation, model: model, language: language, prompt: prompt)
            default: return try ExternalEngine(command: command, timeout: timeout)
            }
        }
        if let command, command.contains(where: { !$0.isWhitespace }) { return try named(command) }
        if let variable = Environment.value(ExternalEngine.environmentVariable),
            variable.contains(where: { !$0.isWhitespace })
        {
            return try named(variable)
        }
        if let installation, installation.isInstalled {
            return try WhisperEngine(installation: installation, model: model, language: language, prompt: prompt)
        }
        return PocketSphinxEngine()
    }

    /// Decodes the audio file at `path` (any format the store holds) to 16 kHz mono and
    /// transcribes it. Throws `RecError`: the file cannot be read, or the engine failed
    /// (`transcribe: <engine>: <why>`).
    /// `speechStart`: where the first speech is, in seconds, if known (the stored speech
    /// regions). An engine that `needsLeadingSilenceCut` is given the audio from
    /// `leadingMargin` before it, and its times are moved back to the recording's own.
    /// `level`: a recording enhanced with `level` on is transcribed levelled, as it plays
    /// (a `Leveller` for one channel at `SpeechAudio.sampleRate`); `denoise`, one with
    /// `denoise` on, denoised first, as it plays (a `Denoiser` for the same).
    package static func transcribe(
        file path: String, with engine: any TranscriptionEngine, speechStart: Double? = nil, level: Leveller? = nil,
        denoise: Denoiser? = nil, cancel: CancelFlag = CancelFlag(), progress: (Double) -> Void = { _ in }
    ) throws(RecError) -> Transcript {
        var audio = try SpeechAudio.decode(path: path)
        if cancel.isCancelled { throw .transcriptionStopped }
        // As the player does: the noise learnt from the first second, then every frame given
        // back in place (`finishing` takes back the suppressor's delay and the limiter's
        // look-ahead), so times stay. Levelled for the built-in engine it hardly matters, since
        // PocketSphinx normalises each cepstral coefficient by its running mean (a constant gain
        // is a constant in c0, taken away) and its voice detector compares energy with the noise
        // floor it tracks. It is done all the same, so that what is transcribed is what plays,
        // and an external engine gets it at the level it was asked for.
        if let denoise {
            let priming = min(Int(Double(SpeechAudio.sampleRate) * Denoiser.primingSeconds), audio.samples.count)
            audio.samples.withUnsafeBufferPointer { denoise.prime(UnsafeBufferPointer(rebasing: $0[..<priming])) }
        }
        let chain = try AudioChain(
            AudioEffects(denoise: denoise, level: level), rate: SpeechAudio.sampleRate, channels: 1)
        if !chain.isEmpty {
            var processed: [Int16] = []
            audio.samples.withUnsafeBufferPointer { chain.process($0, finishing: true, into: &processed) }
            audio.samples = processed
        }
        var cut = 0.0
        if engine.needsLeadingSilenceCut, let speechStart, speechStart > leadingMargin {
            let samples = min(Int((speechStart - leadingMargin) * Double(SpeechAudio.sampleRate)), audio.samples.count)
            cut = Double(samples) / Double(SpeechAudio.sampleRate)
            audio.samples.removeFirst(samples)
        }
        let transcript = try engine.transcribe(audio, cancel: cancel, progress: progress)
        return cut > 0 ? transcript.shifted(by: cut) : transcript
    }

    /// How much of the silence before the first speech the engine still gets: enough for its
    /// voice-activity detector to see the speech begin.
    package static let leadingMargin = 0.3
}

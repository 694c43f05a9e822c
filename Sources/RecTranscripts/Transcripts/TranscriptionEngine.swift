import RecAudio
import RecSystem
import RecValues

/// A transcription engine: takes 16 kHz mono 16-bit speech, returns its transcript.
package protocol TranscriptionEngine: Sendable {
    /// The name errors carry: `recnotes: transcribe: <name>: <why>`.
    var name: String { get }
    /// Soon after `cancel` is set (within a second of audio's decoding), gives up with
    /// `RecError.transcriptionStopped`. `progress` is told the fraction of the audio done,
    /// where the engine can tell (on the calling thread).
    func transcribe(_ audio: SpeechAudio, cancel: CancelFlag, progress: (Double) -> Void) throws(RecError)
        -> Transcript
    /// See the default below (false).
    var needsLeadingSilenceCut: Bool { get }
    /// See the default below (false).
    var hearsBetterWhole: Bool { get }
    /// Gets ready for the first `transcribe` ahead of it (a model to load), so that the
    /// first words of a recording come as soon as the next ones; nothing by default.
    func prepare()
}

extension TranscriptionEngine {
    /// Whether silence before the first word misleads the engine, so that it should be
    /// given the audio from shortly before the speech starts. PocketSphinx's cepstral mean
    /// normalisation starts from the first frames it sees: seconds of silence (digital, or a
    /// quiet room) leave it estimating the wrong mean for the first words.
    package var needsLeadingSilenceCut: Bool { false }

    /// Whether the engine's words for a stretch of speech are better when it hears the
    /// whole recording around it than that stretch alone (as live words give it), so that a
    /// transcript made live is worth making again from the whole once saved. Whisper's
    /// encoder hears up to 30 s around each word; PocketSphinx decodes each stretch alone.
    package var hearsBetterWhole: Bool { false }

    package func prepare() {}

    /// The whole of `audio`, with no way to stop it early.
    package func transcribe(_ audio: SpeechAudio) throws(RecError) -> Transcript {
        try transcribe(audio, cancel: CancelFlag(), progress: { _ in })
    }
}

extension RecError {
    /// A transcription given up because it was asked to stop (Ctrl-C): nothing was saved.
    package static let transcriptionStopped = RecError.failure("transcribe", "stopped")
}

extension RecError {
    /// `transcribe: <engine>: <why>`, exit status 1.
    static func transcribe(_ engine: String, _ reason: String) -> RecError {
        .failure("transcribe: \(engine)", reason)
    }
}

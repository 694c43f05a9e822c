/// A transcription engine: takes 16 kHz mono 16-bit speech, returns its transcript.
public protocol TranscriptionEngine: Sendable {
    /// The name errors carry: `recnotes: transcribe: <name>: <why>`.
    var name: String { get }
    func transcribe(_ audio: SpeechAudio) throws(RecError) -> Transcript
}

extension RecError {
    /// `transcribe: <engine>: <why>`, exit status 1.
    static func transcribe(_ engine: String, _ reason: String) -> RecError {
        .failure("transcribe: \(engine)", reason)
    }
}

/// The front door for the integrator: which engine, and a file's transcript.
public enum Transcription {
    /// The engine to use: `command` (a `--engine`/`--transcriber` option) if given, else
    /// `$RECNOTES_TRANSCRIBER`, else the built-in PocketSphinx.
    public static func engine(command: String? = nil, timeout: Double? = nil) throws(RecError)
        -> any TranscriptionEngine
    {
        if let command, command.contains(where: { !$0.isWhitespace }) {
            return try ExternalEngine(command: command, timeout: timeout)
        }
        if let external = try ExternalEngine.fromEnvironment(timeout: timeout) { return external }
        return PocketSphinxEngine()
    }

    /// Decodes the audio file at `path` (any format the store holds) to 16 kHz mono and
    /// transcribes it. Throws `RecError`: the file cannot be read, or the engine failed
    /// (`transcribe: <engine>: <why>`).
    public static func transcribe(
        file path: String, with engine: any TranscriptionEngine, cancel: CancelFlag = CancelFlag(),
        progress: (Double) -> Void = { _ in }
    ) throws(RecError) -> Transcript {
        let audio = try SpeechAudio.decode(path: path)
        if cancel.isCancelled { throw .transcriptionStopped }
        return try engine.transcribe(audio, cancel: cancel, progress: progress)
    }
}

import RecValues

/// Where a recorder or player is, counted in frames of audio.
package struct AudioPosition: Equatable, Sendable {
    package var frames: Int64
    package var sampleRate: Int

    package init(frames: Int64, sampleRate: Int) {
        self.frames = frames
        self.sampleRate = sampleRate
    }

    package var seconds: Double { Double(frames) / Double(sampleRate) }
}

/// What a recorder or player reports, in order, to whoever subscribes: the terminal
/// renderer, the JSON-lines writer, tests. Progress comes about ten times per second of
/// audio, computed from frame counts, so a device faster than real time (a file) produces
/// the same events as a real one, only sooner.
package enum AudioEvent: Equatable, Sendable {
    package struct Started: Equatable, Sendable {
        package var device: String
        package var file: String
        package var sampleRate: Int
        package var channels: Int
        package var position: AudioPosition
        /// For playback: the length of what is being played.
        package var total: AudioPosition?
        /// For playback at another speed than 1× (`play --speed`); positions stay in the
        /// recording's own time.
        package var speed: PlaybackSpeed? = nil
    }

    package struct Progress: Equatable, Sendable {
        package var position: AudioPosition
        /// The level of the audio since the previous progress event.
        package var level: Level
        /// For recording: the file's size on disk so far.
        package var bytes: Int64?
        /// For playback: the length of what is being played.
        package var total: AudioPosition?
        /// For a recording with `--start-on-voice` or `--stop-on-silence`.
        package var voice: VoiceState? = nil
    }

    package struct Finished: Equatable, Sendable {
        package var position: AudioPosition
        /// Xruns and suspends recovered from.
        package var xruns: Int
        /// Times the ring between capture and the writer was full (recording only).
        package var overruns: Int
        /// Peak and RMS of everything recorded or played.
        package var level: Level
    }

    case started(Started)
    case progress(Progress)
    case paused(AudioPosition)
    case resumed(AudioPosition)
    case seeked(from: AudioPosition, to: AudioPosition)
    case xrun(AudioPosition, count: Int)
    case finished(Finished)
    case failed(AudioPosition, message: String)
    /// A marker was asked for (a key or `recnotes mark`), at this position.
    case marked(AudioPosition, label: String)
    /// The player's speed changed (a key or `recnotes speed`), at this position.
    case speedChanged(AudioPosition, speed: PlaybackSpeed)
    /// Words heard in the recording so far (live words): a segment, final once sent.
    case words(Transcript.Segment)

    package var name: String {
        switch self {
        case .started: return "started"
        case .progress: return "progress"
        case .paused: return "paused"
        case .resumed: return "resumed"
        case .seeked: return "seeked"
        case .xrun: return "xrun"
        case .finished: return "finished"
        case .failed: return "failed"
        case .marked: return "marked"
        case .speedChanged: return "speed"
        case .words: return "words"
        }
    }
}

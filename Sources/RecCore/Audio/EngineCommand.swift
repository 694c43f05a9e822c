/// What a running Recorder or Player can be told to do, from a key or from another
/// process. The engine's own vocabulary: the view state maps its actions onto it.
public enum EngineCommand: Equatable, Sendable {
    case pause, resume, toggle, stop
    /// Seconds from the start.
    case seek(to: Double)
    /// Seconds forward (negative: back) from wherever the player is when it applies it.
    case skip(by: Double)
}

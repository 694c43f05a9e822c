/// What a running Recorder or Player can be told to do, from a key or from another
/// process. The engine's own vocabulary: the view state maps its actions onto it.
package enum EngineCommand: Equatable, Sendable {
    case pause, resume, toggle, stop
    /// Seconds from the start.
    case seek(to: Double)
    /// Seconds forward (negative: back) from wherever the player is when it applies it.
    case skip(by: Double)
    /// A marker where the engine is (what was captured, or what was heard) when it applies
    /// it: the engine answers with a `marked` event.
    case mark(label: String)
    /// A marker at `frame`, where the engine was when the user asked for it (`M`, whose
    /// label is typed while the audio goes on).
    case markAt(label: String, frame: Int64)
    /// To the first of `frames` after where the player is (`forward`), or the last one
    /// more than half a second before it (so that a second press goes on back, as players
    /// do; none: the start).
    case seekMark(forward: Bool, frames: [Int64])
    /// Plays at `factor` from now on (a player; `recnotes speed 1.5`).
    case speed(to: Double)
    /// Faster by `by` (negative: slower) than the player is when it applies it, held inside
    /// `PlaybackSpeed.range` (keys, `recnotes speed +0.25`).
    case speedBy(Double)
}

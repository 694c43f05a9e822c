import RecAudio
import RecStore

/// A running engine's mailbox is what a `RemoteFollower` feeds: the view state's commands
/// become the engine's here, where the two meet (the engine knows nothing of the view
/// state, and the view state nothing of the engine).
extension ControlMailbox: FollowedEngine {
    package func submit(_ action: ViewState.ControlAction, sequence: Int) {
        submit(action.engineCommand, sequence: sequence)
    }
}

extension ViewState.ControlAction {
    /// The engine's command for this view-state action: the engine knows nothing of the
    /// view state, so the mapping lives on this side.
    var engineCommand: EngineCommand {
        switch self {
        case .pause: return .pause
        case .resume: return .resume
        case .toggle: return .toggle
        case .stop: return .stop
        case .seek(let to): return .seek(to: to)
        case .skip(let by): return .skip(by: by)
        case .mark(let label): return .mark(label: label)
        case .seekMark(let forward, let frames): return .seekMark(forward: forward, frames: frames)
        case .speed(let to): return .speed(to: to)
        case .speedBy(let by): return .speedBy(by)
        }
    }
}

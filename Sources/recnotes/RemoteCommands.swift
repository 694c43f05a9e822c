import ArgumentParser
import RecCore
import RecStore
import RecSystem

/// What every control command does: say what dead processes left (and clear it), queue the
/// action in the view state, wait until the running process has applied it, and print the
/// state it reports. Rendering follows the store: what is printed is what the running
/// process acknowledged, not what was asked.
enum RemoteCommand {
    static func run(
        _ global: GlobalOptions, json: Bool, action: ViewState.ControlAction,
        send: (RemoteControl) throws -> RemoteControl.Sent,
        applied: ((RemoteControl, RemoteControl.Sent, RemoteControl.Status) throws -> String)? = nil
    ) throws {
        let library = try global.openLibrary(recover: false)
        let control = RemoteControl(library: library)
        for note in try control.clearDead() { Terminal.warning(note) }
        // Made before sending, so the acknowledgement cannot come unseen in between.
        let watcher = try ViewStateWatcher(location: library.location)
        let sent = try send(control)
        let verb = action.verb
        switch control.wait(for: sent, until: action, watcher: watcher, timeout: action == .stop ? 30 : 5) {
        case .applied(let status):
            if let applied {
                print(try applied(control, sent, status))
            } else {
                print(json ? ItemJSON.status(status) : status.line)
            }
        case .ended:
            guard action == .stop else {
                throw RecError.failure(verb, "the \(sent.job.noun) ended before applying it")
            }
            // The recording is saved by now: read it back from the store, not from memory.
            // One made with --output went elsewhere, and the store has nothing to say.
            var path = sent.output ?? ""
            if sent.output == nil {
                let fresh = try Library(location: library.location)
                path = fresh.document[sent.id].map { fresh.document.path(of: $0.id) } ?? ""
            }
            if json {
                print(ItemJSON.stopped(sent.job, id: sent.id, path: path))
            } else {
                print("stopped  \(sent.job == .recording ? "recording" : "playing")  \(path)")
            }
        case .died:
            throw RecError.failure(verb, "the \(sent.job.noun) (pid \(sent.pid)) died before applying it")
        case .timedOut:
            throw RecError.failure(
                verb,
                "the \(sent.job.noun) (pid \(sent.pid)) did not answer within \(action == .stop ? 30 : 5) s; the command stays queued"
            )
        }
    }
}

extension ViewState.Job {
    var noun: String { self == .recording ? "recorder" : "player" }
}

extension ViewState.ControlAction {
    var verb: String {
        switch self {
        case .pause: return "pause"
        case .resume: return "resume"
        case .toggle: return "toggle"
        case .stop: return "stop"
        case .seek, .skip, .seekMark: return "seek"
        case .mark: return "mark"
        case .speed, .speedBy: return "speed"
        }
    }
}

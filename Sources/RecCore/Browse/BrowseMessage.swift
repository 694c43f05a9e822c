import RecStore
import RecValues

/// Everything that can happen to `browse`: a key, the terminal resized, and what the driver
/// reports back (a store changed on disk, progress of audio, the result of an effect).
package enum BrowseMessage: Equatable, Sendable {
    case key(Key)
    case resized(width: Int, height: Int)
    case documentChanged(Document)
    case jobsChanged([BrowseState.Job])
    case playing(BrowseState.PlayerLine)
    case playbackEnded(ItemID)
    case recording(frames: Int64, sampleRate: Int, peak: Double, bytes: Int64, paused: Bool)
    /// The recorder stopped; the recording waits for its name.
    case recordingStopped(defaultName: String)
    /// Live words heard by the recording in progress.
    case heard(String)
    /// The stopped recording was saved or discarded (off the browser's thread): what to say,
    /// and the item to select. nil: it failed, and `.failed` said why.
    case recordingFinished(String?, select: ItemID?)
    case recordingEnded
    case details(BrowseState.Details)
    case filtered(query: String, hits: [ItemID])
    /// An effect finished: what to say on the status line; `select` moves the cursor to an
    /// item it made or renamed.
    case done(String, select: ItemID? = nil)
    case failed(String)
}

/// What `update` asks the driver to do. The driver runs each one and answers with messages.
package enum BrowseEffect: Equatable, Sendable {
    case play(ItemID)
    case player(ViewState.ControlAction)
    case seekMark(forward: Bool)
    case record(into: ItemID)
    case recorder(ViewState.ControlAction)
    case saveRecording(name: String)
    case discardRecording
    case makeFolder(name: String, in: ItemID)
    case rename(ItemID, to: String)
    case trash(ItemID)
    case undo
    case setTags(ItemID, [String])
    /// `E`: the recording's enhancement, both on or both off ('recnotes enhance').
    case setEnhancement(ItemID, Enhancement)
    case editNote(ItemID)
    case loadDetails(ItemID)
    /// The folder's items, which the document does not hold yet, read and sent back as
    /// `.documentChanged` (the driver reads through the reads' table what the browser shows).
    case list(ItemID)
    case filter(String, in: ItemID)
    /// Keep where the user is in the view state (`recnotes pwd` shows it): the folder stack
    /// and the selected recording.
    case keepPlace(folderStack: [ItemID], selected: ItemID?)
    /// To a recording or playback of another process, as `recnotes pause` and the like send
    /// it (a recording first, if one runs).
    case remote(ViewState.ControlAction)
    case quit
}

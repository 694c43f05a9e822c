import RecStore
import RecValues

/// The one state value of `recnotes browse` (the book's Elm Architecture chapter): what the
/// store holds, where the user is in it, and what is playing or recording. `document` holds
/// what the browser shows, not necessarily the whole store: the driver reads a folder's
/// items as the browser enters it (`BrowseEffect.list`), so that a library of any size
/// opens at once. `BrowseUpdate`
/// changes it in answer to a `BrowseMessage`; `BrowseView` draws it. A value, so both are
/// tested without a terminal.
public struct BrowseState: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var document: Document { didSet { refreshRows() } }
    /// The folder shown: the top of the view state's folder stack.
    public var folder: ItemID { didSet { refreshRows() } }
    /// The row under the cursor, and the first row on screen (the list scrolls to keep the
    /// cursor in sight).
    public var cursor = 0
    public var top = 0
    public var mode: Mode = .list
    /// `/`: the rows that match the text typed so far (find's `--text`).
    public var filter: Filter? { didSet { if filter?.hits != oldValue?.hits { refreshRows() } } }
    /// The folder's items as `ls` sorts them, narrowed to the filter's hits when filtering.
    /// Kept, not computed: a key press must not sort ten thousand items again.
    public private(set) var rows: [Item] = []
    public var player: PlayerLine?
    public var recorder: RecorderLine?
    /// Recordings and playbacks of other processes (a `record --background`, another shell).
    public var jobs: [Job] = []
    /// What the driver read for the selected recording beyond the document.
    public var details: Details?
    /// The recording whose details were last asked for, so they are asked for once.
    public var detailsAsked: ItemID?
    /// A folder entered before its items were read: where the cursor goes once they come.
    public var entering: Entering?
    /// The status line's message, until the next key.
    public var message: Message?
    public var quitting = false

    public init(width: Int, height: Int, document: Document, folder: ItemID, selected: ItemID? = nil) {
        self.width = width
        self.height = height
        self.document = document
        self.folder = document[folder]?.isFolder == true ? folder : .root
        refreshRows()
        if let selected, let index = rows.firstIndex(where: { $0.id == selected }) { cursor = index }
    }

    public enum Mode: Equatable, Sendable {
        case list
        case help
        case alert(Alert)
        case confirm(Confirmation)
    }

    /// A one-line text field over the screen: the app's name alert, and the same for a new
    /// folder, a rename and tags.
    public struct Alert: Equatable, Sendable {
        public enum Purpose: Equatable, Sendable {
            case nameRecording, newFolder
            case rename(ItemID)
            case tags(ItemID)
        }

        public var purpose: Purpose
        public var line: LineEditor
        /// Why Enter did not take the text (a bad name), shown under the field.
        public var problem: String?

        public init(_ purpose: Purpose, text: String = "") {
            self.purpose = purpose
            line = LineEditor(text)
        }
    }

    public enum Confirmation: Equatable, Sendable {
        case trash(ItemID)
        case discardRecording
    }

    public struct Filter: Equatable, Sendable {
        public var line = LineEditor()
        /// nil until the driver has searched for the current text.
        public var hits: Set<ItemID>?
        /// Typing, or applied (Enter) and navigating the hits.
        public var typing = true
    }

    public struct PlayerLine: Equatable, Sendable {
        public var id: ItemID
        public var frames: Int64
        /// The last frame that plays (the out point or the end).
        public var end: Int64
        public var sampleRate: Int
        public var paused: Bool
        /// As the player last published it (keys `}` `{` `=`, `recnotes speed`).
        public var speed: PlaybackSpeed

        public init(
            id: ItemID, frames: Int64, end: Int64, sampleRate: Int, paused: Bool, speed: PlaybackSpeed = .normal
        ) {
            self.id = id
            self.frames = frames
            self.end = end
            self.sampleRate = sampleRate
            self.paused = paused
            self.speed = speed
        }
    }

    public struct RecorderLine: Equatable, Sendable {
        public var folder: ItemID
        public var frames: Int64 = 0
        public var sampleRate: Int
        /// The peak of the latest audio, dBFS.
        public var peak: Double = -.infinity
        public var bytes: Int64 = 0
        public var paused = false
        /// Stopped and waiting for its name (the name alert is open).
        public var stopped = false
        public var defaultName = ""

        public init(folder: ItemID, sampleRate: Int) {
            self.folder = folder
            self.sampleRate = sampleRate
        }
    }

    public struct Job: Equatable, Sendable {
        public var kind: ViewState.Job
        public var id: ItemID
        public var path: String
        public var pid: Int32
        public var paused: Bool
        public var position: Double

        public init(kind: ViewState.Job, id: ItemID, path: String, pid: Int32, paused: Bool, position: Double) {
            self.kind = kind
            self.id = id
            self.path = path
            self.pid = pid
            self.paused = paused
            self.position = position
        }
    }

    public struct Entering: Equatable, Sendable {
        /// The row to put the cursor on (the folder we came up from), else the first.
        public var select: ItemID?

        public init(select: ItemID?) { self.select = select }
    }

    public struct Details: Equatable, Sendable {
        public var id: ItemID
        public var size: Int64?
        public var transcript: [String]
        /// A folder's: what it holds, when the document does not hold its items.
        public var contents: Contents?

        public init(id: ItemID, size: Int64?, transcript: [String], contents: Contents? = nil) {
            self.id = id
            self.size = size
            self.transcript = transcript
            self.contents = contents
        }
    }

    /// What a folder holds directly, as its detail pane says it.
    public struct Contents: Equatable, Sendable {
        public var folders: Int
        public var recordings: Int

        public init(folders: Int, recordings: Int) {
            self.folders = folders
            self.recordings = recordings
        }
    }

    public struct Message: Equatable, Sendable {
        public var text: String
        public var isError: Bool

        public init(_ text: String, isError: Bool = false) {
            self.text = text
            self.isError = isError
        }
    }

    private mutating func refreshRows() {
        let items = SortKey.name.sorted(document.children(of: folder))
        if let hits = filter?.hits {
            rows = items.filter { hits.contains($0.id) }
        } else {
            rows = items
        }
    }

    public var selected: Item? { rows.indices.contains(cursor) ? rows[cursor] : nil }

    /// Whether the document holds every item of the folder shown (else the driver is asked
    /// for them).
    public var isListed: Bool { isListed(folder) }

    func isListed(_ id: ItemID) -> Bool {
        guard let item = document[id] else { return false }
        return item.children.allSatisfy { document[$0] != nil }
    }

    /// What a folder holds, from the document when it holds the folder's items, else from
    /// the details the driver read; nil until then.
    public func contents(of item: Item) -> Contents? {
        if isListed(item.id) {
            let folders = document.children(of: item.id).filter(\.isFolder).count
            return Contents(folders: folders, recordings: item.children.count - folders)
        }
        return details?.id == item.id ? details?.contents : nil
    }

    /// The folder stack from the root, as the view state keeps it.
    public var folderStack: [ItemID] { document.ancestry(of: folder).map(\.id) }

    /// Rows of the list on screen.
    public var listHeight: Int { max(height - BrowseLayout.chromeRows, 1) }
}

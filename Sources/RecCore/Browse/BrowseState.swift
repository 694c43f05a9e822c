import RecStore
import RecValues

/// The one state value of `recnotes browse` (the book's Elm Architecture chapter): what the
/// store holds, where the user is in it, and what is playing or recording. `document` holds
/// what the browser shows, not necessarily the whole store: the driver reads a folder's
/// items as the browser enters it (`BrowseEffect.list`), so that a library of any size
/// opens at once. `BrowseUpdate`
/// changes it in answer to a `BrowseMessage`; `BrowseView` draws it. A value, so both are
/// tested without a terminal.
package struct BrowseState: Equatable, Sendable {
    package var width: Int
    package var height: Int
    package var document: Document { didSet { refreshRows() } }
    /// The folder shown: the top of the view state's folder stack.
    package var folder: ItemID { didSet { refreshRows() } }
    /// The row under the cursor, and the first row on screen (the list scrolls to keep the
    /// cursor in sight).
    package var cursor = 0
    package var top = 0
    package var mode: Mode = .list
    /// `/`: the rows that match the text typed so far (find's `--text`).
    package var filter: Filter? { didSet { if filter?.hits != oldValue?.hits { refreshRows() } } }
    /// The folder's items as `ls` sorts them, narrowed to the filter's hits when filtering.
    /// Kept, not computed: a key press must not sort ten thousand items again.
    package private(set) var rows: [Item] = []
    package var player: PlayerLine?
    package var recorder: RecorderLine?
    /// Recordings and playbacks of other processes (a `record --background`, another shell).
    package var jobs: [Job] = []
    /// The live words under the recorder's line: this browser's recorder's, or those of the
    /// other process's recording that line shows when this browser neither records nor plays.
    package var liveWords: String {
        if let recorder { return recorder.words }
        guard player == nil, let job = jobs.first, job.kind == .recording else { return "" }
        return job.words
    }
    /// What the driver read for the selected recording beyond the document.
    package var details: Details?
    /// The recording whose details were last asked for, so they are asked for once.
    package var detailsAsked: ItemID?
    /// A folder entered before its items were read: where the cursor goes once they come.
    package var entering: Entering?
    /// The status line's message, until the next key.
    package var message: Message?
    package var quitting = false

    package init(width: Int, height: Int, document: Document, folder: ItemID, selected: ItemID? = nil) {
        self.width = width
        self.height = height
        self.document = document
        self.folder = document[folder]?.isFolder == true ? folder : .root
        refreshRows()
        if let selected, let index = rows.firstIndex(where: { $0.id == selected }) { cursor = index }
    }

    package enum Mode: Equatable, Sendable {
        case list
        case help
        case alert(Alert)
        case confirm(Confirmation)
    }

    /// A one-line text field over the screen: the app's name alert, and the same for a new
    /// folder, a rename and tags.
    package struct Alert: Equatable, Sendable {
        package enum Purpose: Equatable, Sendable {
            case nameRecording, newFolder
            case rename(ItemID)
            case tags(ItemID)
        }

        package var purpose: Purpose
        package var line: LineEditor
        /// Why Enter did not take the text (a bad name), shown under the field.
        package var problem: String?

        package init(_ purpose: Purpose, text: String = "") {
            self.purpose = purpose
            line = LineEditor(text)
        }
    }

    package enum Confirmation: Equatable, Sendable {
        case trash(ItemID)
        case discardRecording
    }

    package struct Filter: Equatable, Sendable {
        package var line = LineEditor()
        /// nil until the driver has searched for the current text.
        package var hits: Set<ItemID>?
        /// Typing, or applied (Enter) and navigating the hits.
        package var typing = true
    }

    package struct PlayerLine: Equatable, Sendable {
        package var id: ItemID
        package var frames: Int64
        /// The last frame that plays (the out point or the end).
        package var end: Int64
        package var sampleRate: Int
        package var paused: Bool
        /// As the player last published it (keys `}` `{` `=`, `recnotes speed`).
        package var speed: PlaybackSpeed

        package init(
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

    package struct RecorderLine: Equatable, Sendable {
        package var folder: ItemID
        package var frames: Int64 = 0
        package var sampleRate: Int
        /// The peak of the latest audio, dBFS.
        package var peak: Double = -.infinity
        package var bytes: Int64 = 0
        package var paused = false
        /// Stopped and waiting for its name (the name alert is open).
        package var stopped = false
        package var defaultName = ""
        /// Its live words so far (empty without them).
        package var words = ""

        package init(folder: ItemID, sampleRate: Int) {
            self.folder = folder
            self.sampleRate = sampleRate
        }
    }

    package struct Job: Equatable, Sendable {
        package var kind: ViewState.Job
        package var id: ItemID
        package var path: String
        package var pid: Int32
        package var paused: Bool
        package var position: Double
        /// A recording's live words so far (empty without them).
        package var words: String

        package init(
            kind: ViewState.Job, id: ItemID, path: String, pid: Int32, paused: Bool, position: Double,
            words: String = ""
        ) {
            self.kind = kind
            self.id = id
            self.path = path
            self.pid = pid
            self.paused = paused
            self.position = position
            self.words = words
        }
    }

    package struct Entering: Equatable, Sendable {
        /// The row to put the cursor on (the folder we came up from), else the first.
        package var select: ItemID?

        package init(select: ItemID?) { self.select = select }
    }

    package struct Details: Equatable, Sendable {
        package var id: ItemID
        package var size: Int64?
        package var transcript: [String]
        /// A folder's: what it holds, when the document does not hold its items.
        package var contents: Contents?
        /// A transcribed recording's: the terms it stands out by (`topics`) and where its
        /// subject changes (`chapters`).
        package var topics: [String]
        package var chapters: [Chapters.Chapter]

        package init(
            id: ItemID, size: Int64?, transcript: [String], contents: Contents? = nil, topics: [String] = [],
            chapters: [Chapters.Chapter] = []
        ) {
            self.id = id
            self.size = size
            self.transcript = transcript
            self.contents = contents
            self.topics = topics
            self.chapters = chapters
        }
    }

    /// What a folder holds directly, as its detail pane says it.
    package struct Contents: Equatable, Sendable {
        package var folders: Int
        package var recordings: Int

        package init(folders: Int, recordings: Int) {
            self.folders = folders
            self.recordings = recordings
        }
    }

    package struct Message: Equatable, Sendable {
        package var text: String
        package var isError: Bool

        package init(_ text: String, isError: Bool = false) {
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

    package var selected: Item? { rows.indices.contains(cursor) ? rows[cursor] : nil }

    /// Whether the document holds every item of the folder shown (else the driver is asked
    /// for them).
    package var isListed: Bool { isListed(folder) }

    func isListed(_ id: ItemID) -> Bool {
        guard let item = document[id] else { return false }
        return item.children.allSatisfy { document[$0] != nil }
    }

    /// What a folder holds, from the document when it holds the folder's items, else from
    /// the details the driver read; nil until then.
    package func contents(of item: Item) -> Contents? {
        if isListed(item.id) {
            let folders = document.children(of: item.id).filter(\.isFolder).count
            return Contents(folders: folders, recordings: item.children.count - folders)
        }
        return details?.id == item.id ? details?.contents : nil
    }

    /// The folder stack from the root, as the view state keeps it.
    package var folderStack: [ItemID] { document.ancestry(of: folder).map(\.id) }

    /// Rows of the list on screen.
    package var listHeight: Int { max(height - BrowseLayout.chromeRows, 1) }
}

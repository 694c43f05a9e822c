import RecValues

/// What a recording carries besides its name: enough to list, sort and play it without
/// opening the audio file.
package struct RecordingInfo: Equatable, Sendable {
    package var duration: Double
    package var frames: Int64
    package var sampleRate: Int
    package var channels: Int
    /// The container and codec.
    package var format: AudioFormat
    /// The audio file's name inside `audio/`: the recording's UUID plus an extension.
    package var file: String
    /// Levels, waveform and speech regions, measured once when the audio was saved (store
    /// version 3). nil in older stores, or when the file could not be decoded: `info`
    /// then measures them each time, and `fsck --repair` stores them.
    package var analysis: AudioAnalysis?

    package init(
        duration: Double, frames: Int64, sampleRate: Int, channels: Int, format: AudioFormat, file: String,
        analysis: AudioAnalysis? = nil
    ) {
        self.duration = duration
        self.frames = frames
        self.sampleRate = sampleRate
        self.channels = channels
        self.format = format
        self.file = file
        self.analysis = analysis
    }
}

package enum ItemKind: String, Sendable, CaseIterable {
    case folder
    case recording
}

/// One node of the document: a folder or a recording. A value type, as the book's
/// `Item` subclasses are replaced here by a kind and optional recording details.
package struct Item: Equatable, Sendable {
    package var id: ItemID
    /// nil only for the root folder.
    package var parent: ItemID?
    package var name: String
    package var created: Timestamp
    /// For folders: the children's UUIDs, kept in display order (name, then UUID).
    package var children: [ItemID]
    /// For recordings.
    package var recording: RecordingInfo?
    /// Note, tags and (for recordings) markers.
    package var annotations: Annotations = .none
    /// When the name, folder, trim points and trash state last changed (store version 4).
    package var changed: ChangeTimes = .unknown

    // A switch on the case, not `recording == nil`: that comparison copied the recording's
    // info (and released it again), twice for each of find --json's hits.
    package var kind: ItemKind { isFolder ? .folder : .recording }
    package var isFolder: Bool {
        switch recording {
        case .none: true
        case .some: false
        }
    }

    package static func folder(id: ItemID = .random(), name: String, parent: ItemID?, created: Timestamp = .now())
        -> Item
    {
        Item(id: id, parent: parent, name: name, created: created, children: [], recording: nil)
    }

    package static func recording(
        id: ItemID = .random(), name: String, parent: ItemID, created: Timestamp = .now(), info: RecordingInfo
    ) -> Item {
        Item(id: id, parent: parent, name: name, created: created, children: [], recording: info)
    }
}

/// Display order within a folder, the order the store keeps children in: by name as file
/// managers sort (`NameOrder`), ties by code point and then by UUID, so that the order is
/// total and stable across runs, and items of the same name are neighbours (which is how
/// `checkLinks` finds duplicates).
@inline(__always)
package func displayOrder(_ a: Item, _ b: Item) -> Bool {
    if let precedes = NameOrder.precedes(a.name, b.name) { return precedes }
    if a.name != b.name { return a.name < b.name }
    return a.id < b.id
}

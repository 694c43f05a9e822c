import RecSystem
import RecValues

/// What a person adds to an item so that it can be found later: a free-text note and tags
/// on any item, markers and trim points on a recording. Document data (store version 2):
/// covered by undo, the trash, fsck and export, like the item itself.
package struct Annotations: Equatable, Sendable {
    /// Free UTF-8 text; empty when there is none.
    package var note: String
    /// Sorted and unique (`TagRules.normalized`).
    package var tags: [String]
    /// For recordings: sorted by frame (then label), as `MarkerRules.sorted` keeps them.
    package var markers: [Marker]
    /// For recordings: where `play` (and `export --trimmed`) start and stop. The audio file
    /// is never cut; a store without them (any store before version 2) simply has none.
    package var trim: TrimPoints?
    /// For recordings: how `play`, `export` and `transcribe` enhance it (store version 6);
    /// `.off` in an older store's recordings, as in a new one's.
    package var enhance: Enhancement

    package init(
        note: String = "", tags: [String] = [], markers: [Marker] = [], trim: TrimPoints? = nil,
        enhance: Enhancement = .off
    ) {
        self.note = note
        self.tags = tags
        self.markers = markers
        self.trim = trim
        self.enhance = enhance
    }

    package static let none = Annotations()

    package var isEmpty: Bool { note.isEmpty && tags.isEmpty && markers.isEmpty && trim == nil && enhance.isOff }
}

/// In and out points of a recording, in frames: the stretch `inFrame..<outFrame` is what
/// plays. Non-destructive: the audio outside them stays in the file.
package struct TrimPoints: Equatable, Hashable, Sendable {
    package var inFrame: Int64
    package var outFrame: Int64

    package init(inFrame: Int64, outFrame: Int64) {
        self.inFrame = inFrame
        self.outFrame = outFrame
    }

    /// What `trim --auto` and `record --stop-on-silence` keep around the speech (seconds).
    package static let defaultMargin = 0.3

    package var frames: Int64 { outFrame - inFrame }
    package var range: Range<Int64> { inFrame..<max(inFrame, outFrame) }

    /// Within a recording of `length` frames: `nil` when nothing of it is left.
    package func clamped(to length: Int64) -> TrimPoints? {
        let clamped = TrimPoints(inFrame: min(max(inFrame, 0), length), outFrame: min(outFrame, length))
        return clamped.outFrame > clamped.inFrame ? clamped : nil
    }

    /// `trim --auto`: from `margin` seconds before the first speech to `margin` after the
    /// last, within the recording; nil when there is no speech.
    package static func around(speech regions: [Range<Int64>], margin: Double, sampleRate: Int, length: Int64)
        -> TrimPoints?
    {
        guard let first = regions.first, let last = regions.last else { return nil }
        let pad = Int64((max(margin, 0) * Double(sampleRate)).rounded())
        return TrimPoints(inFrame: max(first.lowerBound - pad, 0), outFrame: min(last.upperBound + pad, length))
            .clamped(to: length)
    }
}

/// A moment in a recording: a frame position, an optional label and, from store version 4,
/// an identity that a merge of two libraries follows (a marker added on one machine and one
/// removed on the other are told apart by it, not by where they are).
package struct Marker: Equatable, Hashable, Sendable {
    package var frame: Int64
    /// Empty when the marker has none.
    package var label: String
    /// `unassigned` until the marker is in a recording of the document: a transaction or
    /// the codec gives it one (`Annotations.assignMarkerIDs`). Never shown in text output.
    package var id: ItemID

    package init(frame: Int64, label: String = "", id: ItemID = Marker.unassigned) {
        self.frame = frame
        self.label = label
        self.id = id
    }

    /// The id of a marker not yet in a stored recording (one made while recording, or read
    /// from a store older than version 4).
    package static let unassigned = ItemID(high: 0, low: 0)

    /// Seconds from the start at `sampleRate`.
    package func seconds(sampleRate: Int) -> Double { Double(frame) / Double(max(sampleRate, 1)) }

    /// The same moment and label, keeping this marker's identity.
    package func moved(to frame: Int64, label: String? = nil) -> Marker {
        Marker(frame: frame, label: label ?? self.label, id: id)
    }

    /// The id a marker without one gets in recording `item`: derived from the recording,
    /// its frame, label and `occurrence` (the how-many-th of its kind), not random, so that
    /// two machines upgrading the same older store give its markers the same ids, and a
    /// merge sees one marker, not two. A UUID of version 8 (custom).
    static func derivedID(item: ItemID, frame: Int64, label: String, occurrence: Int) -> ItemID {
        var h1: UInt64 = 0xcbf2_9ce4_8422_2325 ^ item.high
        var h2: UInt64 = 0x8422_2325_cbf2_9ce4 ^ item.low
        func mix(_ byte: UInt8) {
            h1 = (h1 ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            h2 = (h2 ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 &+ 0x9E37_79B9_7F4A_7C15
        }
        for word in [item.high, item.low, UInt64(bitPattern: frame), UInt64(occurrence)] {
            for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        for byte in label.utf8 { mix(byte) }
        // Finish each half (splitmix64's finalizer), so that near inputs spread.
        func finish(_ x: UInt64) -> UInt64 {
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let high = (finish(h1) & ~0xF000) | 0x8000
        let low = (finish(h2 ^ h1) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return ItemID(high: high, low: low)
    }
}

extension Annotations {
    /// Gives each marker of recording `item` without an id (or with one another marker
    /// already has) its derived id. Cheap when every marker has one.
    mutating func assignMarkerIDs(item: ItemID) {
        guard !markers.isEmpty else { return }
        if markers.count == 1, markers[0].id != Marker.unassigned { return }
        var used = Set<ItemID>()
        var needs = false
        for marker in markers where marker.id == Marker.unassigned || !used.insert(marker.id).inserted {
            needs = true
            break
        }
        guard needs else { return }
        used = Set(markers.map(\.id))
        var seen = Set<ItemID>()
        for i in markers.indices {
            let id = markers[i].id
            if id != Marker.unassigned, seen.insert(id).inserted { continue }
            var occurrence = 0
            var candidate: ItemID
            repeat {
                candidate = Marker.derivedID(
                    item: item, frame: markers[i].frame, label: markers[i].label, occurrence: occurrence)
                occurrence += 1
            } while used.contains(candidate)
            used.insert(candidate)
            seen.insert(candidate)
            markers[i].id = candidate
        }
    }
}

/// When a field that a merge of two libraries cannot combine was last changed on this
/// machine (store version 4): the name, the folder (a move), the trim points and the trash
/// state; and, from store version 6, the enhancement. Set by every transaction that changes the field (undo included, which is a change
/// too); `unknown` (0, older than any real time) in a store upgraded from an earlier version
/// until the field changes. The merge lets the later change win.
package struct ChangeTimes: Equatable, Hashable, Sendable {
    package var name: Timestamp
    package var parent: Timestamp
    package var trim: Timestamp
    package var trash: Timestamp
    package var enhance: Timestamp

    package static let unknownTime = Timestamp(millisecondsSinceEpoch: 0)

    package init(
        name: Timestamp = unknownTime, parent: Timestamp = unknownTime, trim: Timestamp = unknownTime,
        trash: Timestamp = unknownTime, enhance: Timestamp = unknownTime
    ) {
        self.name = name
        self.parent = parent
        self.trim = trim
        self.trash = trash
        self.enhance = enhance
    }

    package static let unknown = ChangeTimes()

    package var isUnknown: Bool { self == .unknown }
}

package enum NoteRules {
    /// A note is at most 1 MB of UTF-8.
    package static let maxBytes = 1_000_000

    package static func validate(_ note: String, subject: String) throws {
        guard note.utf8.count <= maxBytes else {
            throw RecError.usage(
                subject, "a note is at most \(maxBytes) bytes of UTF-8 (this one has \(note.utf8.count))")
        }
    }
}

/// A tag is one word a person types after `+` or `-`: 1 to 64 bytes of UTF-8, no whitespace,
/// no control characters, no `,`, not starting with `+`, `-` or `#`. Tags compare exactly
/// as typed, except that they are kept sorted.
package enum TagRules {
    package static let maxBytes = 64

    package static func violation(_ tag: String) -> String? {
        if isPlainASCIITag(tag) { return nil }
        if tag.isEmpty { return "a tag cannot be empty" }
        if tag.utf8.count > maxBytes { return "a tag is at most \(maxBytes) bytes of UTF-8" }
        if let first = tag.first, "+-#".contains(first) { return "a tag cannot start with '\(first)'" }
        for scalar in tag.unicodeScalars {
            if scalar.properties.isWhitespace { return "a tag cannot contain whitespace" }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                return "a tag cannot contain control characters"
            }
            if scalar == "," { return "a tag cannot contain ','" }
        }
        return nil
    }

    /// The common case, checked on bytes (every store load checks every tag): printable
    /// ASCII without space or ',', not starting with '+', '-' or '#'. Anything else takes
    /// the full check.
    @inline(__always)
    static func isPlainASCIITag(_ tag: String) -> Bool {
        var tag = tag
        return tag.withUTF8 { b in
            guard b.count > 0, b.count <= maxBytes, b[0] != UInt8(ascii: "+"), b[0] != UInt8(ascii: "-"),
                b[0] != UInt8(ascii: "#")
            else { return false }
            for byte in b where byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: ",") { return false }
            return true
        }
    }

    package static func validate(_ tag: String) throws {
        if let problem = violation(tag) { throw RecError.usage(NameRules.quoted(tag), problem) }
    }

    package static func normalized(_ tags: [String]) -> [String] {
        // Tags as stored are already sorted and unique.
        if isStrictlyIncreasing(tags, by: <) { return tags }
        return Array(Set(tags)).sorted()
    }
}

/// Words as `tag` takes them, in every front end (the CLI, browse's `t`, the page): `+TAG`
/// adds, `-TAG` removes, and any other word (`-` alone included) is the front end's own, a
/// path for the CLI. After `--`, every word is the front end's own.
package struct TagWords: Equatable, Sendable {
    package var adding: [String] = []
    package var removing: [String] = []
    package var others: [String] = []

    package init<Words: Sequence>(_ words: Words) where Words.Element: StringProtocol {
        var onlyOthers = false
        for word in words {
            if !onlyOthers && word == "--" {
                onlyOthers = true
            } else if !onlyOthers && word.hasPrefix("+") {
                adding.append(String(word.dropFirst()))
            } else if !onlyOthers && word.hasPrefix("-") && word.count > 1 {
                removing.append(String(word.dropFirst()))
            } else {
                others.append(String(word))
            }
        }
    }

    package init(adding: [String], removing: [String]) {
        self.adding = adding
        self.removing = removing
    }

    /// Whether any word adds or removes.
    package var changes: Bool { !adding.isEmpty || !removing.isEmpty }

    /// `tags` with these changes made: what `tag` leaves on an item.
    package func applied(to tags: [String]) -> [String] {
        TagRules.normalized(tags.filter { !removing.contains($0) } + adding)
    }
}

package enum MarkerRules {
    /// A label is one line of at most 255 bytes of UTF-8, as a name is.
    package static let maxLabelBytes = 255

    package static func validate(label: String) throws {
        if label.utf8.count > maxLabelBytes {
            throw RecError.usage(NameRules.quoted(label), "a marker label is at most \(maxLabelBytes) bytes of UTF-8")
        }
        if label.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw RecError.usage(
                NameRules.quoted(label), "a marker label cannot contain control characters or line breaks")
        }
    }

    /// Markers made while a recording ran (kept in its in-progress entry), as the saved
    /// recording of `frames` frames keeps them: within it, in order; a label that breaks
    /// the rules is dropped, the marker kept.
    package static func saved(_ markers: [Marker], frames: Int64) -> [Marker] {
        sorted(
            markers.map { marker in
                let label = (try? validate(label: marker.label)) != nil ? marker.label : ""
                return marker.moved(to: min(max(marker.frame, 0), frames), label: label)
            })
    }

    /// The order markers are kept and numbered in: by frame, then label (then id, so that
    /// the order is total).
    package static func sorted(_ markers: [Marker]) -> [Marker] {
        // Markers as stored are already in order.
        if isStrictlyIncreasing(markers, by: comesBefore) { return markers }
        return markers.sorted(by: comesBefore)
    }

    private static func comesBefore(_ a: Marker, _ b: Marker) -> Bool {
        if a.frame != b.frame { return a.frame < b.frame }
        if a.label != b.label { return a.label < b.label }
        return a.id < b.id
    }
}

/// Whether each element comes before the next: a sorted (and, for tags, unique) list needs
/// no sorting.
func isStrictlyIncreasing<Element>(_ elements: [Element], by comesBefore: (Element, Element) -> Bool) -> Bool {
    guard elements.count > 1 else { return true }
    for i in 1..<elements.count where !comesBefore(elements[i - 1], elements[i]) { return false }
    return true
}

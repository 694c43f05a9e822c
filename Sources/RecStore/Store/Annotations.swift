/// What a person adds to an item so that it can be found later: a free-text note and tags
/// on any item, markers and trim points on a recording. Document data (store version 2):
/// covered by undo, the trash, fsck and export, like the item itself.
public struct Annotations: Equatable, Sendable {
    /// Free UTF-8 text; empty when there is none.
    public var note: String
    /// Sorted and unique (`TagRules.normalized`).
    public var tags: [String]
    /// For recordings: sorted by frame (then label), as `MarkerRules.sorted` keeps them.
    public var markers: [Marker]
    /// For recordings: where `play` (and `export --trimmed`) start and stop. The audio file
    /// is never cut; a store without them (any store before issue 15) simply has none.
    public var trim: TrimPoints?

    public init(note: String = "", tags: [String] = [], markers: [Marker] = [], trim: TrimPoints? = nil) {
        self.note = note
        self.tags = tags
        self.markers = markers
        self.trim = trim
    }

    public static let none = Annotations()

    public var isEmpty: Bool { note.isEmpty && tags.isEmpty && markers.isEmpty && trim == nil }
}

/// In and out points of a recording, in frames: the stretch `inFrame..<outFrame` is what
/// plays. Non-destructive: the audio outside them stays in the file.
public struct TrimPoints: Equatable, Hashable, Sendable {
    public var inFrame: Int64
    public var outFrame: Int64

    public init(inFrame: Int64, outFrame: Int64) {
        self.inFrame = inFrame
        self.outFrame = outFrame
    }

    /// What `trim --auto` and `record --stop-on-silence` keep around the speech (seconds).
    public static let defaultMargin = 0.3

    public var frames: Int64 { outFrame - inFrame }
    public var range: Range<Int64> { inFrame..<max(inFrame, outFrame) }

    /// Within a recording of `length` frames: `nil` when nothing of it is left.
    public func clamped(to length: Int64) -> TrimPoints? {
        let clamped = TrimPoints(inFrame: min(max(inFrame, 0), length), outFrame: min(outFrame, length))
        return clamped.outFrame > clamped.inFrame ? clamped : nil
    }

    /// `trim --auto`: from `margin` seconds before the first speech to `margin` after the
    /// last, within the recording; nil when there is no speech.
    public static func around(speech regions: [Range<Int64>], margin: Double, sampleRate: Int, length: Int64)
        -> TrimPoints?
    {
        guard let first = regions.first, let last = regions.last else { return nil }
        let pad = Int64((max(margin, 0) * Double(sampleRate)).rounded())
        return TrimPoints(inFrame: max(first.lowerBound - pad, 0), outFrame: min(last.upperBound + pad, length))
            .clamped(to: length)
    }
}

/// A moment in a recording: a frame position and an optional label.
public struct Marker: Equatable, Hashable, Sendable {
    public var frame: Int64
    /// Empty when the marker has none.
    public var label: String

    public init(frame: Int64, label: String = "") {
        self.frame = frame
        self.label = label
    }

    /// Seconds from the start at `sampleRate`.
    public func seconds(sampleRate: Int) -> Double { Double(frame) / Double(max(sampleRate, 1)) }
}

public enum NoteRules {
    /// A note is at most 1 MB of UTF-8.
    public static let maxBytes = 1_000_000

    public static func validate(_ note: String, subject: String) throws {
        guard note.utf8.count <= maxBytes else {
            throw RecError.usage(
                subject, "a note is at most \(maxBytes) bytes of UTF-8 (this one has \(note.utf8.count))")
        }
    }
}

/// A tag is one word a person types after `+` or `-`: 1 to 64 bytes of UTF-8, no whitespace,
/// no control characters, no `,`, not starting with `+`, `-` or `#`. Tags compare exactly
/// as typed, except that they are kept sorted.
public enum TagRules {
    public static let maxBytes = 64

    public static func violation(_ tag: String) -> String? {
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

    public static func validate(_ tag: String) throws {
        if let problem = violation(tag) { throw RecError.usage(NameRules.quoted(tag), problem) }
    }

    public static func normalized(_ tags: [String]) -> [String] {
        // Tags as stored are already sorted and unique.
        if isStrictlyIncreasing(tags, by: <) { return tags }
        return Array(Set(tags)).sorted()
    }
}

public enum MarkerRules {
    /// A label is one line of at most 255 bytes of UTF-8, as a name is.
    public static let maxLabelBytes = 255

    public static func validate(label: String) throws {
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
    public static func saved(_ markers: [Marker], frames: Int64) -> [Marker] {
        sorted(
            markers.map { marker in
                let label = (try? validate(label: marker.label)) != nil ? marker.label : ""
                return Marker(frame: min(max(marker.frame, 0), frames), label: label)
            })
    }

    /// The order markers are kept and numbered in: by frame, then label.
    public static func sorted(_ markers: [Marker]) -> [Marker] {
        // Markers as stored are already in order.
        if isStrictlyIncreasing(markers, by: comesBefore) { return markers }
        return markers.sorted(by: comesBefore)
    }

    private static func comesBefore(_ a: Marker, _ b: Marker) -> Bool {
        a.frame != b.frame ? a.frame < b.frame : a.label < b.label
    }
}

/// Whether each element comes before the next: a sorted (and, for tags, unique) list needs
/// no sorting.
func isStrictlyIncreasing<Element>(_ elements: [Element], by comesBefore: (Element, Element) -> Bool) -> Bool {
    guard elements.count > 1 else { return true }
    for i in 1..<elements.count where !comesBefore(elements[i - 1], elements[i]) { return false }
    return true
}

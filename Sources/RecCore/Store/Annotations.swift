/// What a person adds to an item so that it can be found later: a free-text note and tags
/// on any item, markers on a recording. Document data (store version 2): covered by undo,
/// the trash, fsck and export, like the item itself.
public struct Annotations: Equatable, Sendable {
    /// Free UTF-8 text; empty when there is none.
    public var note: String
    /// Sorted and unique (`TagRules.normalized`).
    public var tags: [String]
    /// For recordings: sorted by frame (then label), as `MarkerRules.sorted` keeps them.
    public var markers: [Marker]

    public init(note: String = "", tags: [String] = [], markers: [Marker] = []) {
        self.note = note
        self.tags = tags
        self.markers = markers
    }

    public static let none = Annotations()

    public var isEmpty: Bool { note.isEmpty && tags.isEmpty && markers.isEmpty }
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
            throw RecError.usage(subject, "a note is at most \(maxBytes) bytes of UTF-8 (this one has \(note.utf8.count))")
        }
    }
}

/// A tag is one word a person types after `+` or `-`: 1 to 64 bytes of UTF-8, no whitespace,
/// no control characters, no `,`, not starting with `+`, `-` or `#`. Tags compare exactly
/// as typed, except that they are kept sorted.
public enum TagRules {
    public static let maxBytes = 64

    public static func violation(_ tag: String) -> String? {
        if tag.isEmpty { return "a tag cannot be empty" }
        if tag.utf8.count > maxBytes { return "a tag is at most \(maxBytes) bytes of UTF-8" }
        if let first = tag.first, "+-#".contains(first) { return "a tag cannot start with '\(first)'" }
        for scalar in tag.unicodeScalars {
            if scalar.properties.isWhitespace { return "a tag cannot contain whitespace" }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return "a tag cannot contain control characters" }
            if scalar == "," { return "a tag cannot contain ','" }
        }
        return nil
    }

    public static func validate(_ tag: String) throws {
        if let problem = violation(tag) { throw RecError.usage(NameRules.quoted(tag), problem) }
    }

    public static func normalized(_ tags: [String]) -> [String] {
        Array(Set(tags)).sorted()
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
            throw RecError.usage(NameRules.quoted(label), "a marker label cannot contain control characters or line breaks")
        }
    }

    /// Markers made while a recording ran (kept in its in-progress entry), as the saved
    /// recording of `frames` frames keeps them: within it, in order; a label that breaks
    /// the rules is dropped, the marker kept.
    public static func saved(_ markers: [Marker], frames: Int64) -> [Marker] {
        sorted(markers.map { marker in
            let label = (try? validate(label: marker.label)) != nil ? marker.label : ""
            return Marker(frame: min(max(marker.frame, 0), frames), label: label)
        })
    }

    /// The order markers are kept and numbered in: by frame, then label.
    public static func sorted(_ markers: [Marker]) -> [Marker] {
        markers.sorted { $0.frame != $1.frame ? $0.frame < $1.frame : $0.label < $1.label }
    }
}

import RecSystem
import RecValues

/// What `tag`, `note`, `mark --at`, `unmark`, `trim` and `enhance` mean, as transactions on
/// the document.
extension DocumentStore.Transaction {
    /// `tag PATH... +work -draft`: adds and removes tags on every item. Returns the items
    /// that changed.
    @discardableResult
    package mutating func tag(_ paths: [String], adding: [String], removing: [String], from currentFolder: ItemID)
        throws
        -> [Item]
    {
        for tag in adding + removing { try TagRules.validate(tag) }
        var changed: [Item] = []
        for (_, item) in try items(at: paths, from: currentFolder) {
            var annotations = document[item.id]!.annotations
            annotations.tags = TagWords(adding: adding, removing: removing).applied(to: annotations.tags)
            if try annotate(item.id, with: annotations) != nil { changed.append(document[item.id]!) }
        }
        return changed
    }

    /// `note PATH --set TEXT`: replaces the note (empty text removes it).
    @discardableResult
    package mutating func setNote(_ text: String, at path: String, from currentFolder: ItemID) throws -> Item {
        try NoteRules.validate(text, subject: path)
        let item = try items(at: [path], from: currentFolder)[0].item
        var annotations = item.annotations
        annotations.note = text
        try annotate(item.id, with: annotations)
        return document[item.id]!
    }

    /// `mark PATH --at TIME [LABEL]`: a marker at `time` (any `TimeSpec`, resolved against
    /// the recording's length). Returns the recording and the marker's number (1-based, in
    /// time order).
    @discardableResult
    package mutating func addMarker(at path: String, time: String, label: String, from currentFolder: ItemID) throws
        -> (
            Item, Int
        )
    {
        try MarkerRules.validate(label: label)
        let item = try items(at: [path], from: currentFolder)[0].item
        guard let info = item.recording else {
            throw RecError.failure(path, "is a folder; only recordings have markers")
        }
        let seconds = try TimeSpec.parse(time, option: "--at").resolve(
            duration: info.duration, spec: time, option: "--at")
        let frame = min(Int64((seconds * Double(info.sampleRate)).rounded()), info.frames)
        let marker = Marker(frame: frame, label: label)
        return (document[item.id]!, try addMarker(marker, to: item))
    }

    /// A marker made while `id` plays (`m`, `M`, `recnotes mark`), at a frame the player
    /// reached: clamped to the recording. Returns its number (1-based, in time order).
    @discardableResult
    package mutating func addMarker(to id: ItemID, _ marker: Marker) throws -> Int {
        try MarkerRules.validate(label: marker.label)
        guard let item = document[id], let info = item.recording else {
            throw RecError.failure(document.path(of: id), "is no longer a recording in the store")
        }
        return try addMarker(marker.moved(to: min(max(marker.frame, 0), info.frames)), to: item)
    }

    /// Adds `marker` to `item` (the annotation gives it its id) and returns its number.
    private mutating func addMarker(_ marker: Marker, to item: Item) throws -> Int {
        var annotations = item.annotations
        annotations.markers.append(marker)
        try annotate(item.id, with: annotations)
        let before = Set(item.annotations.markers.map(\.id))
        let markers = document[item.id]!.annotations.markers
        return (markers.lastIndex { !before.contains($0.id) } ?? markers.lastIndex(of: marker) ?? 0) + 1
    }

    /// `unmark PATH (N | LABEL)`: removes one marker. Returns it.
    @discardableResult
    package mutating func removeMarker(at path: String, selector: String, from currentFolder: ItemID) throws -> Marker {
        let item = try items(at: [path], from: currentFolder)[0].item
        guard item.recording != nil else { throw RecError.failure(path, "is a folder; only recordings have markers") }
        let (index, marker) = try item.annotations.marker(matching: selector, in: path)
        var annotations = item.annotations
        annotations.markers.remove(at: index - 1)
        try annotate(item.id, with: annotations)
        return marker
    }

    /// `trim PATH --in T --out T`: sets the trim points by time (any `TimeSpec`, resolved
    /// against the recording's length). A point not given stays where it was (or at the
    /// start / the end). Returns the recording.
    @discardableResult
    package mutating func setTrim(at path: String, in inTime: String?, out outTime: String?, from currentFolder: ItemID)
        throws -> Item
    {
        let (item, info) = try trimmable(path, from: currentFolder)
        let rate = Double(info.sampleRate)
        func frame(_ spec: String, _ option: String) throws -> Int64 {
            let seconds = try TimeSpec.parse(spec, option: option).resolve(
                duration: info.duration, spec: spec, option: option)
            return min(Int64((seconds * rate).rounded()), info.frames)
        }
        let current = item.annotations.trim ?? TrimPoints(inFrame: 0, outFrame: info.frames)
        let inFrame = try inTime.map { try frame($0, "--in") } ?? current.inFrame
        let outFrame = try outTime.map { try frame($0, "--out") } ?? current.outFrame
        guard outFrame > inFrame else {
            let subject = [inTime.map { "--in \($0)" }, outTime.map { "--out \($0)" }].compactMap { $0 }.joined(
                separator: " ")
            throw RecError.usage(
                subject,
                "the in point (\(Format.preciseClock(Double(inFrame) / rate))) must come before the out point (\(Format.preciseClock(Double(outFrame) / rate)))"
            )
        }
        return try setTrim(TrimPoints(inFrame: inFrame, outFrame: outFrame), at: path, from: currentFolder)
    }

    /// `trim PATH --auto` (with points computed from the audio) and `trim PATH --clear`
    /// (nil): sets or removes the trim points, in frames. Returns the recording.
    @discardableResult
    package mutating func setTrim(_ trim: TrimPoints?, at path: String, from currentFolder: ItemID) throws -> Item {
        let (item, info) = try trimmable(path, from: currentFolder)
        if let trim, trim.inFrame < 0 || trim.outFrame <= trim.inFrame || trim.outFrame > info.frames {
            throw RecError.usage(
                path, "trim points \(trim.inFrame)..<\(trim.outFrame) are not inside its \(info.frames) frames")
        }
        var annotations = item.annotations
        annotations.trim = trim
        try annotate(item.id, with: annotations)
        return document[item.id]!
    }

    /// `enhance PATH... --level --no-denoise`: turns each flag given (non-nil) on or off on
    /// every recording (a folder's, with `recursive`). Returns the recordings, as they are
    /// now (changed or already so).
    @discardableResult
    package mutating func enhance(
        _ paths: [String], level: Bool?, denoise: Bool?, recursive: Bool = false, from currentFolder: ItemID
    ) throws -> [Item] {
        var result: [Item] = []
        for item in try document.recordings(at: items(at: paths, from: currentFolder), recursive: recursive) {
            var annotations = document[item.id]!.annotations
            if let level { annotations.enhance.level = level }
            if let denoise { annotations.enhance.denoise = denoise }
            try annotate(item.id, with: annotations)
            result.append(document[item.id]!)
        }
        return result
    }

    /// Sets `id`'s enhancement as a whole (browse's key).
    @discardableResult
    package mutating func enhance(_ id: ItemID, _ enhance: Enhancement) throws -> Item {
        guard var annotations = document[id]?.annotations else {
            throw RecError.failure("@\(id)", "no such item")
        }
        annotations.enhance = enhance
        try annotate(id, with: annotations)
        return document[id]!
    }

    private func trimmable(_ path: String, from currentFolder: ItemID) throws -> (Item, RecordingInfo) {
        let item = try items(at: [path], from: currentFolder)[0].item
        guard let info = item.recording else {
            throw RecError.usage(path, "is a folder; only recordings have trim points")
        }
        return (item, info)
    }
}

extension Document {
    /// The recordings that `enhance` (and, in general, a command that takes recordings and,
    /// with `recursive`, folders of them) acts on, from paths already resolved: a recording
    /// as it is, a folder's recordings (all of its subtree, in display order) only with
    /// `recursive`; each once, in the order given. A folder without `recursive` is refused
    /// (exit 64), as `trim` refuses one.
    package func recordings(at resolved: [(path: String, item: Item)], recursive: Bool) throws -> [Item] {
        var seen = Set<ItemID>()
        var found: [Item] = []
        for (path, item) in resolved {
            if item.isFolder && !recursive {
                throw RecError.usage(path, "is a folder; -r enhances every recording in it")
            }
            for recording in item.isFolder ? subtree(of: item.id).filter({ !$0.isFolder }) : [item]
            where seen.insert(recording.id).inserted {
                found.append(recording)
            }
        }
        return found
    }
}

extension Item {
    /// The frames `play` plays and `export --trimmed` writes: the trim points, else all.
    package var playedRange: Range<Int64> {
        let length = recording?.frames ?? 0
        return annotations.trim?.clamped(to: length)?.range ?? 0..<length
    }

    /// Seconds between the trim points (the whole duration when there are none).
    package var trimmedDuration: Double {
        guard let info = recording else { return 0 }
        guard let trim = annotations.trim?.clamped(to: info.frames) else { return info.duration }
        return Double(trim.frames) / Double(max(info.sampleRate, 1))
    }
}

extension Annotations {
    /// The marker `selector` names, and its number (1-based): `3` or `#3` by number,
    /// `mark:LABEL` or `LABEL` by label (exactly, else ignoring case and accents). A label
    /// that several markers share is ambiguous.
    package func marker(matching selector: String, in path: String) throws -> (Int, Marker) {
        var text = selector
        if text.hasPrefix("mark:") {
            text.removeFirst(5)
        } else if text.hasPrefix("#"), Int(text.dropFirst()) != nil {
            text.removeFirst()
        }
        guard !markers.isEmpty else { throw RecError.failure(path, "has no markers") }
        if !selector.hasPrefix("mark:"), let number = Int(text) {
            guard (1...markers.count).contains(number) else {
                throw RecError.failure(NameRules.quoted(selector), "\(path) has markers 1 to \(markers.count)")
            }
            return (number, markers[number - 1])
        }
        var matches = markers.indices.filter { markers[$0].label == text }
        if matches.isEmpty {
            let folded = TextFolding.fold(text)
            matches = markers.indices.filter { TextFolding.fold(markers[$0].label) == folded }
        }
        guard let first = matches.first else {
            throw RecError.failure(NameRules.quoted(selector), "no marker of \(path) has this label")
        }
        guard matches.count == 1 else {
            throw RecError.failure(
                NameRules.quoted(selector),
                "several markers have this label (\(matches.map { "#\($0 + 1)" }.joined(separator: ", "))); give its number"
            )
        }
        return (first + 1, markers[first])
    }
}

import RecValues

/// Notes, tags, markers and trim points as JSON fields, the one way store.json and the
/// journal write and read them: `"tags": [...]`, `"note": "..."`,
/// `"markers": [{"frame": 48000, "label": "..."}]`, `"trim": {"in": 4800, "out": 96000}`
/// (frames), `"enhance": {"level": true, "denoise": false}` (store version 6), each present
/// only when there is one (an enhancement when either is on).
package enum AnnotationCodec {
    static func write(_ a: Annotations, to w: inout JSONWriter) {
        if !a.tags.isEmpty { w.field("tags", a.tags) }
        if !a.note.isEmpty { w.field("note", a.note) }
        if !a.markers.isEmpty {
            w.key("markers")
            writeMarkers(a.markers, to: &w)
        }
        if let trim = a.trim {
            w.key("trim")
            w.beginObject()
            w.field("in", trim.inFrame)
            w.field("out", trim.outFrame)
            w.endObject()
        }
        writeEnhancement(a.enhance, to: &w)
    }

    /// `"enhance": {"level": true, "denoise": false}`, nothing when both are off (also the
    /// recording-in-progress entry's, `ViewStateCodec`).
    static func writeEnhancement(_ enhance: Enhancement, to w: inout JSONWriter) {
        guard !enhance.isOff else { return }
        w.key("enhance")
        w.beginObject()
        w.field("level", enhance.level)
        w.field("denoise", enhance.denoise)
        w.endObject()
    }

    /// `{"tags": [...], "note": "...", "markers": [...]}`, `{}` when there is nothing.
    static func writeObject(_ a: Annotations, to w: inout JSONWriter) {
        w.beginObject()
        write(a, to: &w)
        w.endObject()
    }

    static func readObject(_ r: inout JSONReader) throws -> Annotations {
        var annotations = Annotations()
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if try !read(key, from: &r, into: &annotations) { try r.skipValue() }
        }
        return annotations
    }

    /// Reads the value of `key` into `annotations` if it is one of the five; false otherwise
    /// (the caller reads the value).
    static func read(_ key: UnsafeBufferPointer<UInt8>, from r: inout JSONReader, into annotations: inout Annotations)
        throws -> Bool
    {
        if key.equals("note") {
            let at = r.position
            annotations.note = try r.readString()
            if annotations.note.utf8.count > NoteRules.maxBytes {
                throw r.failure("note is longer than \(NoteRules.maxBytes) bytes", at: at)
            }
        } else if key.equals("tags") {
            annotations.tags.reserveCapacity(4)  // one allocation for the usual few
            try r.beginArray()
            var first = true
            while try r.nextElement(first: &first) {
                let at = r.position
                let tag = try r.readString()
                if let problem = TagRules.violation(tag) { throw r.failure("invalid tag: \(problem)", at: at) }
                annotations.tags.append(tag)
            }
            annotations.tags = TagRules.normalized(annotations.tags)
        } else if key.equals("markers") {
            annotations.markers = MarkerRules.sorted(try readMarkers(&r))
        } else if key.equals("trim") {
            annotations.trim = try readTrim(&r)
        } else if key.equals("enhance") {
            annotations.enhance = try readEnhancement(&r)
        } else {
            return false
        }
        return true
    }

    /// Both points, in frames, in before out. (Past the end of the audio is fsck's to report.)
    private static func readTrim(_ r: inout JSONReader) throws -> TrimPoints {
        let start = r.position
        var inFrame: Int64?
        var outFrame: Int64?
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("in") {
                inFrame = try r.readInt()
            } else if key.equals("out") {
                outFrame = try r.readInt()
            } else {
                try r.skipValue()
            }
        }
        guard let inFrame, let outFrame, inFrame >= 0, outFrame > inFrame else {
            throw r.failure("trim needs frames \"in\" of 0 or more and \"out\" after it", at: start)
        }
        return TrimPoints(inFrame: inFrame, outFrame: outFrame)
    }

    /// Either flag may be left out (off).
    static func readEnhancement(_ r: inout JSONReader) throws -> Enhancement {
        var enhance = Enhancement.off
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("level") {
                enhance.level = try r.readBool()
            } else if key.equals("denoise") {
                enhance.denoise = try r.readBool()
            } else {
                try r.skipValue()
            }
        }
        return enhance
    }

    /// `[{"frame": 48000, "label": "...", "id": "..."}, ...]`, a label only when there is
    /// one, an id once the marker has one (store version 4; a marker made while recording
    /// gets it as the recording is saved): the one way markers are kept, in store.json and
    /// in a recording-in-progress entry alike.
    package static func writeMarkers(_ markers: [Marker], to w: inout JSONWriter) {
        w.array(markers) { w, marker in
            w.beginObject()
            w.field("frame", marker.frame)
            if !marker.label.isEmpty { w.field("label", marker.label) }
            if marker.id != Marker.unassigned { w.field("id", marker.id) }
            w.endObject()
        }
    }

    /// A marker without a label may omit it.
    package static func readMarkers(_ r: inout JSONReader) throws -> [Marker] {
        var markers: [Marker] = []
        markers.reserveCapacity(8)  // one allocation for the usual few
        try r.beginArray()
        var first = true
        while try r.nextElement(first: &first) {
            let start = r.position
            var frame: Int64?
            var label = ""
            var id = Marker.unassigned
            try r.beginObject()
            var firstKey = true
            while let key = try r.nextKey(first: &firstKey) {
                if key.equals("frame") {
                    frame = try r.readInt()
                } else if key.equals("label") {
                    label = try r.readString()
                } else if key.equals("id") {
                    let at = r.position
                    guard let value = ItemID(utf8: try r.readRawString()) else {
                        throw r.failure("a marker's id is not a UUID", at: at)
                    }
                    id = value
                } else {
                    try r.skipValue()
                }
            }
            guard let frame, frame >= 0 else { throw r.failure("a marker needs a \"frame\" of 0 or more", at: start) }
            markers.append(Marker(frame: frame, label: label, id: id))
        }
        return markers
    }
}

/// `"changed": {"name": "…", "parent": "…", "trim": "…", "trash": "…", "enhance": "…"}`
/// (store version 4; `enhance` from version 6):
/// when each field a merge cannot combine last changed; only the times known, and no
/// `changed` at all when none is (an item upgraded from an older store, never changed since).
enum ChangeTimesCodec {
    static func write(_ times: ChangeTimes, to w: inout JSONWriter) {
        guard !times.isUnknown else { return }
        w.key("changed")
        w.beginObject()
        let unknown = ChangeTimes.unknownTime
        if times.name != unknown { w.field("name", times.name) }
        if times.parent != unknown { w.field("parent", times.parent) }
        if times.trim != unknown { w.field("trim", times.trim) }
        if times.trash != unknown { w.field("trash", times.trash) }
        if times.enhance != unknown { w.field("enhance", times.enhance) }
        w.endObject()
    }

    static func read(_ r: inout JSONReader) throws -> ChangeTimes {
        var times = ChangeTimes.unknown
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            let at = r.position
            func time(_ r: inout JSONReader) throws -> Timestamp {
                guard let t = Timestamp(utf8: try r.readRawString()) else {
                    throw r.failure("a change time is not an ISO 8601 time", at: at)
                }
                return t
            }
            if key.equals("name") {
                times.name = try time(&r)
            } else if key.equals("parent") {
                times.parent = try time(&r)
            } else if key.equals("trim") {
                times.trim = try time(&r)
            } else if key.equals("trash") {
                times.trash = try time(&r)
            } else if key.equals("enhance") {
                times.enhance = try time(&r)
            } else {
                try r.skipValue()
            }
        }
        return times
    }
}

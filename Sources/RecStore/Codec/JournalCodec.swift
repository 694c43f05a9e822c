import RecValues

/// The journal's on-disk form (`journal.jsonl`): one JSON object per line, an entry each,
/// with its steps. Entries written by earlier releases (without placements or the change's
/// description) still decode.
enum JournalCodec {
    static func encode(_ entry: Journal.Entry) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.field("seq", entry.sequence)
        w.field("time", entry.time)
        w.field("summary", entry.summary)
        w.field("change", ifPresent: entry.change)
        w.key("steps")
        w.array(entry.steps) { w, step in
            w.beginObject()
            switch step {
            case .added(let id, let placement):
                w.field("op", "added")
                w.field("uuid", id)
                encode(placement, to: &w)
            case .moved(let id, let fromParent, let fromName, let toParent, let toName):
                w.field("op", "moved")
                w.field("uuid", id)
                w.field("fromParent", fromParent)
                w.field("fromName", fromName)
                w.field("toParent", toParent)
                w.field("toName", toName)
            case .trashed(let id):
                w.field("op", "trashed")
                w.field("uuid", id)
            case .removedPermanently(let id, let path):
                w.field("op", "removedPermanently")
                w.field("uuid", id)
                w.field("path", path)
            case .restored(let id, let placement):
                w.field("op", "restored")
                w.field("uuid", id)
                encode(placement, to: &w)
            case .annotated(let id, let before, let after):
                w.field("op", "annotated")
                w.field("uuid", id)
                w.key("before")
                AnnotationCodec.writeObject(before, to: &w)
                w.key("after")
                AnnotationCodec.writeObject(after, to: &w)
            case .transcribed(let id, let replaced):
                w.field("op", "transcribed")
                w.field("uuid", id)
                w.field("replaced", ifPresent: replaced)
            }
            w.endObject()
        }
        w.endObject()
        w.raw("\n")
        return w.bytes
    }

    private static func encode(_ placement: Journal.Placement?, to w: inout JSONWriter) {
        guard let placement else { return }
        w.field("parent", placement.parent)
        w.field("name", placement.name)
        w.field("type", placement.kind.rawValue)
        w.field("created", placement.created)
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Journal.Entry {
        var r = JSONReader(bytes)
        var entry = Journal.Entry(sequence: 0, time: Timestamp(millisecondsSinceEpoch: 0), summary: "", steps: [])
        func id(_ r: inout JSONReader) throws -> ItemID {
            guard let value = ItemID(utf8: try r.readRawString()) else { throw r.failure("not a UUID") }
            return value
        }
        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("seq") {
                entry.sequence = Int(try r.readInt())
            } else if key.equals("time") {
                entry.time = Timestamp(utf8: try r.readRawString()) ?? entry.time
            } else if key.equals("summary") {
                entry.summary = try r.readString()
            } else if key.equals("change") {
                entry.change = try r.readString()
            } else if key.equals("steps") {
                try r.beginArray()
                var firstStep = true
                while try r.nextElement(first: &firstStep) {
                    var op = ""
                    var uuid: ItemID?
                    var fromParent: ItemID?
                    var toParent: ItemID?
                    var parent: ItemID?
                    var fromName = ""
                    var toName = ""
                    var path = ""
                    var name: String?
                    var kind: ItemKind?
                    var created: Timestamp?
                    var replaced: String?
                    var before = Annotations()
                    var after = Annotations()
                    try r.beginObject()
                    var f = true
                    while let k = try r.nextKey(first: &f) {
                        if k.equals("op") {
                            op = try r.readString()
                        } else if k.equals("uuid") {
                            uuid = try id(&r)
                        } else if k.equals("fromParent") {
                            fromParent = try id(&r)
                        } else if k.equals("toParent") {
                            toParent = try id(&r)
                        } else if k.equals("fromName") {
                            fromName = try r.readString()
                        } else if k.equals("toName") {
                            toName = try r.readString()
                        } else if k.equals("path") {
                            path = try r.readString()
                        } else if k.equals("parent") {
                            parent = try id(&r)
                        } else if k.equals("name") {
                            name = try r.readString()
                        } else if k.equals("type") {
                            kind = ItemKind(rawValue: try r.readString())
                        } else if k.equals("created") {
                            created = Timestamp(utf8: try r.readRawString())
                        } else if k.equals("before") {
                            before = try AnnotationCodec.readObject(&r)
                        } else if k.equals("after") {
                            after = try AnnotationCodec.readObject(&r)
                        } else if k.equals("replaced") {
                            replaced = try r.readString()
                        } else {
                            try r.skipValue()
                        }
                    }
                    guard let uuid else { throw r.failure("step without uuid") }
                    var placement: Journal.Placement?
                    if let parent, let name, let kind {
                        placement = Journal.Placement(
                            parent: parent, name: name, kind: kind, created: created ?? entry.time)
                    }
                    switch op {
                    case "added": entry.steps.append(.added(uuid, placement))
                    case "trashed": entry.steps.append(.trashed(uuid))
                    case "restored": entry.steps.append(.restored(uuid, placement))
                    case "annotated": entry.steps.append(.annotated(uuid, before: before, after: after))
                    case "removedPermanently": entry.steps.append(.removedPermanently(uuid, path: path))
                    case "transcribed":
                        if let replaced, !TranscriptFiles.isKeptName(replaced) {
                            throw r.failure("not a kept transcript's name")
                        }
                        entry.steps.append(.transcribed(uuid, replaced: replaced))
                    case "moved":
                        guard let fromParent, let toParent else { throw r.failure("moved step without parents") }
                        entry.steps.append(
                            .moved(uuid, fromParent: fromParent, fromName: fromName, toParent: toParent, toName: toName)
                        )
                    default: throw r.failure("unknown step")
                    }
                }
            } else {
                try r.skipValue()
            }
        }
        try r.finish()
        return entry
    }
}

import RecValues

/// viewstate.json: the view state as JSON, written and read by hand like the document codec.
package enum ViewStateCodec {
    package static func encode(_ state: ViewState) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.lineKey("version")
        w.int(ViewState.currentVersion)
        w.lineKey("folderStack")
        w.ids(state.folderStack)
        w.lineKey("selection")
        if let s = state.selection {
            w.beginObject()
            w.field("recording", s.recording)
            w.field("position", s.position)
            w.endObject()
        } else {
            w.raw("null")
        }
        w.lineKey("recording")
        if let r = state.recording {
            w.beginObject()
            w.field("uuid", r.id)
            w.field("parent", r.parent)
            w.field("name", r.name)
            w.field("file", r.file)
            w.field("output", ifPresent: r.output)
            w.field("pid", r.pid)
            w.field("started", r.started)
            w.field("format", r.format?.rawValue ?? "raw")
            w.field("sampleRate", r.sampleRate)
            w.field("channels", r.channels)
            w.field("position", r.position)
            if !r.markers.isEmpty {
                w.key("markers")
                AnnotationCodec.writeMarkers(r.markers, to: &w)
            }
            AnnotationCodec.writeEnhancement(r.enhance, to: &w)
            encodeControl(r.control, &w)
            w.endObject()
        } else {
            w.raw("null")
        }
        w.lineKey("speed")
        w.double(state.speed.factor)
        w.lineKey("playing")
        if let p = state.playing {
            w.beginObject()
            w.field("uuid", p.id)
            w.field("pid", p.pid)
            w.field("started", p.started)
            encodeControl(p.control, &w)
            w.endObject()
        } else {
            w.raw("null")
        }
        w.endLineObject()
        w.raw("\n")
        return w.bytes
    }

    private static func encodeControl(_ c: ViewState.Control, _ w: inout JSONWriter) {
        w.key("control")
        w.beginObject()
        w.field("paused", c.paused)
        w.field("lastSequence", c.lastSequence)
        w.field("reportedAt", ifPresent: c.reportedAt)
        w.field("pending", c.pending) { w, command in
            w.beginObject()
            w.field("sequence", command.sequence)
            w.key("action")
            switch command.action {
            case .pause: w.string("pause")
            case .resume: w.string("resume")
            case .toggle: w.string("toggle")
            case .stop: w.string("stop")
            case .seek(let to):
                w.string("seek")
                w.field("seconds", to)
            case .skip(let by):
                w.string("skip")
                w.field("seconds", by)
            case .mark(let label):
                w.string("mark")
                w.field("label", label)
            case .seekMark(let forward, let frames):
                w.string(forward ? "nextMark" : "prevMark")
                w.field("frames", frames) { $0.int($1) }
            case .speed(let to):
                w.string("speed")
                w.field("factor", to)
            case .speedBy(let by):
                w.string("speedBy")
                w.field("factor", by)
            }
            w.endObject()
        }
        w.endObject()
    }

    /// A missing control object (a file from before remote control) reads as an idle one.
    private static func decodeControl(_ r: inout JSONReader) throws -> ViewState.Control {
        var control = ViewState.Control()
        let start = r.position
        try r.beginObject()
        var f = true
        while let k = try r.nextKey(first: &f) {
            if k.equals("paused") {
                control.paused = try r.readBool()
            } else if k.equals("lastSequence") {
                control.lastSequence = Int(try r.readInt())
            } else if k.equals("reportedAt") {
                control.reportedAt = Timestamp(utf8: try r.readRawString())
            } else if k.equals("pending") {
                try r.beginArray()
                var first = true
                while try r.nextElement(first: &first) {
                    var sequence: Int64?
                    var action: String?
                    var seconds: Double?
                    var label: String?
                    var frames: [Int64]?
                    var factor: Double?
                    try r.beginObject()
                    var g = true
                    while let key = try r.nextKey(first: &g) {
                        if key.equals("sequence") {
                            sequence = try r.readInt()
                        } else if key.equals("action") {
                            action = try r.readString()
                        } else if key.equals("seconds") {
                            seconds = try r.readDouble()
                        } else if key.equals("factor") {
                            factor = try r.readDouble()
                        } else if key.equals("label") {
                            label = try r.readString()
                        } else if key.equals("frames") {
                            var list: [Int64] = []
                            try r.beginArray()
                            var h = true
                            while try r.nextElement(first: &h) { list.append(try r.readInt()) }
                            frames = list
                        } else {
                            try r.skipValue()
                        }
                    }
                    let decoded: ViewState.ControlAction?
                    switch action {
                    case "pause": decoded = .pause
                    case "resume": decoded = .resume
                    case "toggle": decoded = .toggle
                    case "stop": decoded = .stop
                    case "seek": decoded = seconds.map { .seek(to: $0) }
                    case "skip": decoded = seconds.map { .skip(by: $0) }
                    case "mark": decoded = label.map { .mark(label: $0) }
                    case "nextMark", "prevMark":
                        decoded = frames.map { .seekMark(forward: action == "nextMark", frames: $0) }
                    case "speed": decoded = factor.map { .speed(to: $0) }
                    case "speedBy": decoded = factor.map { .speedBy($0) }
                    default: decoded = nil
                    }
                    guard let sequence, let decoded, sequence > 0 else {
                        throw r.failure("malformed control command", at: start)
                    }
                    control.pending.append(.init(sequence: Int(sequence), action: decoded))
                }
            } else {
                try r.skipValue()
            }
        }
        guard control.pending.allSatisfy({ $0.sequence <= control.lastSequence }) else {
            throw r.failure("malformed control state", at: start)
        }
        return control
    }

    private static func decodePlayback(_ r: inout JSONReader, id: (inout JSONReader) throws -> ItemID) throws
        -> ViewState.Playback
    {
        let start = r.position
        var uuid: ItemID?
        var pid: Int64?
        var started: Timestamp?
        var control = ViewState.Control()
        try r.beginObject()
        var f = true
        while let k = try r.nextKey(first: &f) {
            if k.equals("uuid") {
                uuid = try id(&r)
            } else if k.equals("pid") {
                pid = try r.readInt()
            } else if k.equals("started") {
                started = Timestamp(utf8: try r.readRawString())
            } else if k.equals("control") {
                control = try decodeControl(&r)
            } else {
                try r.skipValue()
            }
        }
        guard let uuid, let pid, let started, pid > 0, pid <= Int64(Int32.max) else {
            throw r.failure("incomplete playback entry", at: start)
        }
        return .init(id: uuid, pid: Int32(pid), started: started, control: control)
    }

    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws -> ViewState {
        var r = JSONReader(bytes)
        var state = ViewState()
        var sawVersion = false

        func id(_ r: inout JSONReader) throws -> ItemID {
            let at = r.position
            guard let value = ItemID(utf8: try r.readRawString()) else { throw r.failure("not a UUID", at: at) }
            return value
        }

        try r.beginObject()
        var first = true
        while let key = try r.nextKey(first: &first) {
            if key.equals("version") {
                let at = r.position
                let version = try r.readInt()
                guard version == Int64(ViewState.currentVersion) else {
                    throw r.failure("unsupported version \(version)", at: at)
                }
                sawVersion = true
            } else if key.equals("folderStack") {
                var stack: [ItemID] = []
                try r.beginArray()
                var firstID = true
                while try r.nextElement(first: &firstID) { stack.append(try id(&r)) }
                state.folderStack = stack.isEmpty ? [.root] : stack
            } else if key.equals("selection") {
                if r.readNull() { continue }
                var recording: ItemID?
                var position = 0.0
                try r.beginObject()
                var f = true
                while let k = try r.nextKey(first: &f) {
                    if k.equals("recording") {
                        recording = try id(&r)
                    } else if k.equals("position") {
                        position = try r.readDouble()
                    } else {
                        try r.skipValue()
                    }
                }
                guard let recording, position >= 0 else {
                    throw r.failure("selection needs a recording and a position")
                }
                state.selection = .init(recording: recording, position: position)
            } else if key.equals("recording") {
                if r.readNull() { continue }
                state.recording = try decodeInProgress(&r, id: id)
            } else if key.equals("speed") {
                // A file from before the speed was kept has none: 1×. One out of range too.
                state.speed = PlaybackSpeed(factor: try r.readDouble()) ?? .normal
            } else if key.equals("playing") {
                if r.readNull() { continue }
                state.playing = try decodePlayback(&r, id: id)
            } else {
                try r.skipValue()
            }
        }
        try r.finish()
        guard sawVersion else { throw r.failure("no \"version\" field") }
        return state
    }

    private static func decodeInProgress(_ r: inout JSONReader, id: (inout JSONReader) throws -> ItemID) throws
        -> ViewState.RecordingInProgress
    {
        let start = r.position
        var uuid: ItemID?
        var parent: ItemID?
        var name: String?
        var file: String?
        var output: String?
        var format: AudioFormat??
        var rate: Int64?
        var channels: Int64?
        var pid: Int64?
        var started: Timestamp?
        var position = 0.0
        // An entry written before markers has none.
        var markers: [Marker] = []
        // One written before enhancements were kept in it (or with none): off.
        var enhance = Enhancement.off
        var control = ViewState.Control()
        try r.beginObject()
        var f = true
        while let k = try r.nextKey(first: &f) {
            if k.equals("uuid") {
                uuid = try id(&r)
            } else if k.equals("parent") {
                parent = try id(&r)
            } else if k.equals("name") {
                name = try r.readString()
            } else if k.equals("file") {
                file = try r.readString()
            } else if k.equals("output") {
                output = try r.readString()
            } else if k.equals("format") {
                format = .some(AudioFormat(rawValue: try r.readString()))
            } else if k.equals("sampleRate") {
                rate = try r.readInt()
            } else if k.equals("channels") {
                channels = try r.readInt()
            } else if k.equals("pid") {
                pid = try r.readInt()
            } else if k.equals("started") {
                started = Timestamp(utf8: try r.readRawString())
            } else if k.equals("position") {
                position = try r.readDouble()
            } else if k.equals("markers") {
                markers = try AnnotationCodec.readMarkers(&r)
            } else if k.equals("enhance") {
                enhance = try AnnotationCodec.readEnhancement(&r)
            } else if k.equals("control") {
                control = try decodeControl(&r)
            } else {
                try r.skipValue()
            }
        }
        guard let uuid, let parent, let name, let file, case let format?? = Optional(format), let rate, let channels,
            let pid, let started,
            StoredLayout.isPlausible(rate: rate, channels: channels), position.isFinite, position >= 0, pid > 0,
            pid <= Int64(Int32.max),
            !file.contains("/"),
            output.map({ file.isEmpty && ViewState.RecordingInProgress.isValidOutput($0) }) ?? !file.isEmpty
        else { throw r.failure("incomplete recording-in-progress entry", at: start) }
        return .init(
            id: uuid, parent: parent, name: name, file: file, output: output, format: format, sampleRate: Int(rate),
            channels: Int(channels), pid: Int32(pid), started: started, position: position, markers: markers,
            enhance: enhance, control: control)
    }
}

import RecAudio
import RecStore
import RecSystem
import RecValues

/// The routes of a recording made in the page (`PageRecordings`), each keyed by the UUID the
/// page chose, so that any request may be sent again after its answer was lost:
///
/// - `POST /api/recording-start?id=UUID&path=FOLDER&rate=HZ&channels=N`: starts it (or
///   answers where it is);
/// - `POST /api/recording-audio?id=UUID&offset=BYTES`, the body 16-bit little-endian samples:
///   the part past what is here is kept; one that starts past it is 409 with `received`;
/// - `POST /api/recording-mark?id=UUID&at=SECONDS[&label=L]`;
/// - `POST /api/recording-stop?id=UUID&frames=N[&name=NAME]`: saved once all N frames are
///   here (409 with `received` until then), answering the item as `import --json` prints it;
/// - `POST /api/recording-cancel?id=UUID`: saved to the trash, answering the item there;
/// - `GET /api/recording?id=UUID`: where it is.
///
/// Where it is: `{"id", "name" (the default), "received", "seconds", "markers"}`, or 404 when
/// there is no such recording in progress; one already saved (stopped, or saved without its
/// page) says `"saved"` (its path), `"name"` and `"frames"`.
extension LibraryAPI {
    package static let pageRecordingRoutes: [(route: String, parameters: [String])] = [
        ("recording-start", ["id", "path", "rate", "channels"]),
        ("recording-audio", ["id", "offset"]),
        ("recording-mark", ["id", "at", "label"]),
        ("recording-stop", ["id", "frames", "name"]),
        ("recording-cancel", ["id"]),
        ("recording", ["id"]),
    ]

    /// The route that only says where a recording is: a `GET`, the others `POST`s.
    package static let pageRecordingStatusRoute = "recording"

    package static func isPageRecordingRoute(_ route: String) -> Bool {
        pageRecordingRoutes.contains { $0.route == route }
    }

    /// The answer of one of `pageRecordingRoutes`, with the request's body (`recording-audio`'s
    /// samples; empty for the others).
    package static func pageRecording(
        _ route: String, parameters: [(String, String)], body: [UInt8], location: StoreLocation
    ) -> Answer {
        answering {
            let known = pageRecordingRoutes.first { $0.route == route }?.parameters ?? []
            try refuseUnknown(parameters, known: known, route: route)
            func value(_ key: String) -> String? { parameters.last { $0.0 == key }?.1 }
            guard let typed = value("id") else { throw RecError.usage("id", "\(route) needs the recording's id=UUID") }
            guard let id = ItemID(typed) else { throw RecError.usage("id", "'\(typed)' is not a UUID") }
            let recordings = PageRecordings(location: location)
            do {
                switch route {
                case "recording":
                    guard let entry = recordings.entry(id) else { throw PageRecordingGone(id: id) }
                    return progress(entry)
                case "recording-start":
                    let rate = try number(value("rate") ?? "48000", "rate")
                    let channels = try number(value("channels") ?? "1", "channels")
                    try AudioFormat.default.validate(rate: rate, channels: channels)
                    let folder = storePath(value("path"))
                    let library = try Library(location: location)
                    let parent = try found { try library.item(at: folder) }
                    guard parent.isFolder else { throw RecError.failure(folder, "not a folder") }
                    if library.isReadOnly { throw library.documents.readOnlyError }
                    if library.document[id] != nil { throw PageRecordingGone(id: id) }
                    let now = Timestamp.now()
                    return progress(
                        try recordings.start(
                            id, parent: parent.id, name: Format.defaultRecordingName(now), sampleRate: rate,
                            channels: channels, started: now))
                case "recording-audio":
                    guard let text = value("offset"), let offset = Int64(text), offset >= 0 else {
                        throw RecError.usage("offset", "recording-audio needs offset=BYTES, where the body starts")
                    }
                    return progress(try recordings.append(id, offset: offset, bytes: body))
                case "recording-mark":
                    guard let text = value("at"), let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                        throw RecError.usage("at", "recording-mark needs at=SECONDS")
                    }
                    return progress(try recordings.mark(id, seconds: seconds, label: value("label") ?? ""))
                default:
                    let library = try Library(location: location)
                    let changed = ChangedItems(library: library)
                    let ending: PageRecordings.Ending
                    if route == "recording-cancel" {
                        ending = .trash
                        library.documents.summary = "recnotes serve: a recording made in the page, cancelled"
                    } else {
                        guard let text = value("frames"), let frames = Int64(text), frames >= 0 else {
                            throw RecError.usage("frames", "recording-stop needs frames=N, how many were recorded")
                        }
                        let name = value("name").flatMap { $0.isEmpty ? nil : $0 }
                        ending = .save(name: name, frames: frames)
                        library.documents.summary =
                            "recnotes serve: a recording made in the page" + (name.map { ", saved as \($0)" } ?? "")
                    }
                    guard let item = try recordings.end(id, ending, library: library) else {
                        return .error(404, "recording \(id): nothing was recorded, so nothing was saved")
                    }
                    // Asked again after it was saved: the item, as the first answer gave it.
                    let text = changed.json
                    return text == "[]" ? json(ItemJSON.array([item], in: library)) : json(text)
                }
            } catch let gone as PageRecordingGone {
                let library = try? Library(location: location)
                guard let library, let item = library.document[gone.id], let recording = item.recording else {
                    return .error(404, "recording \(gone.id): no such recording in progress")
                }
                // Saved (perhaps without its page, which did not come back in time): what it
                // holds, so that a page with more sends the rest as a recording of its own.
                let path = library.document.path(of: item.id)
                var w = JSONWriter()
                w.beginObject()
                w.field("error", "recording \(gone.id): not in progress: it is saved as \(path)")
                w.field("saved", path)
                w.field("name", item.name)
                w.field("frames", recording.frames)
                w.endObject()
                w.raw("\n")
                return Answer(status: 404, body: w.bytes)
            } catch let gap as PageRecordingGap {
                var w = JSONWriter()
                w.beginObject()
                w.field("error", "recording \(id): the server has \(gap.received) bytes of it; send from there")
                w.field("received", gap.received)
                w.endObject()
                w.raw("\n")
                return Answer(status: 409, body: w.bytes)
            }
        }
    }

    private static func number(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text) else { throw RecError.usage(name, "'\(text)' is not a whole number") }
        return value
    }

    private static func progress(_ entry: PageRecording) -> Answer {
        var w = JSONWriter()
        w.beginObject()
        w.field("id", entry.id.description)
        w.field("name", entry.name)
        w.field("received", entry.received)
        w.field("seconds", entry.seconds)
        w.field("markers", entry.markers.count)
        w.endObject()
        w.raw("\n")
        return Answer(status: 200, body: w.bytes)
    }
}

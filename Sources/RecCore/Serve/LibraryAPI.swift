import RecStore
import RecSync
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// What the server's `/api/` routes and `/audio/<uuid>` answer, apart from HTTP
/// itself: each route is the CLI command of its name with `--json`, made by the same
/// presenters (`ItemJSON`, `ItemReport.json`, `Finder`), so that its body is byte for byte
/// what the command prints. Each answer opens the library afresh, so another process's change
/// is seen by the next request.
package enum LibraryAPI {
    /// An HTTP status and a JSON body (a line feed at its end, as the CLI prints).
    package struct Answer: Sendable, Equatable {
        package var status: Int
        package var body: [UInt8]

        package init(status: Int, body: [UInt8]) {
            self.status = status
            self.body = body
        }

        /// `{"error": "<subject>: <reason>"}`: the CLI's one line, without its `recnotes: `.
        /// `inTrash`: the item asked for was removed to the trash; `copies`: where the audio
        /// of a recording that has none here is (its other machines and remotes).
        package static func error(_ status: Int, _ message: String, inTrash: Bool = false, copies: [String]? = nil)
            -> Answer
        {
            var w = JSONWriter()
            w.beginObject()
            w.field("error", message)
            if inTrash { w.field("inTrash", true) }
            if let copies {
                w.field("copies", copies) { w, name in w.string(name) }
            }
            w.endObject()
            w.raw("\n")
            return Answer(status: status, body: w.bytes)
        }
    }

    /// The routes under `/api/`, by name.
    package static let routes = ["ls", "info", "tree", "marks", "find", "transcript", "topics", "chapters"]

    /// The parameters each read route takes (`find`'s are its options: `findOptions`).
    static let readParameters = [
        "ls": ["path", "sort", "reverse"], "info": ["path"], "tree": ["path"], "marks": ["path"],
        "transcript": ["path"], "topics": ["path", "count"], "chapters": ["path"],
    ]

    /// The answer of `/api/<route>` with the request's query parameters (decoded, in order;
    /// `tag` may repeat). `path` is a path as the CLI takes it, absolute or `@uuid-prefix`;
    /// a relative one is taken from the root (the server has no current folder), and none is
    /// the root.
    package static func answer(_ route: String, parameters: [(String, String)], location: StoreLocation) -> Answer {
        answering {
            if let known = readParameters[route] { try refuseUnknown(parameters, known: known, route: route) }
            let path = storePath(parameters.last { $0.0 == "path" }?.1)
            var w = JSONWriter(capacity: 1 << 16)
            switch route {
            case "ls":
                let library = try reading([path], listing: true, location: location)
                let item = try found { try library.item(at: path) }
                // `ls --sort KEY [--reverse]`: `sort=KEY`, `reverse=1`.
                let sortName = parameters.last { $0.0 == "sort" }?.1 ?? SortKey.name.rawValue
                guard let sort = SortKey(rawValue: sortName) else {
                    throw RecError.usage("sort", "'\(sortName)' is not one of name, date, duration, size")
                }
                let reverse = ["1", "true"].contains(parameters.last { $0.0 == "reverse" }?.1 ?? "")
                let items = sort.sorted(
                    item.isFolder ? library.document.children(of: item.id) : [item], reverse: reverse,
                    size: library.audioSize(of:))
                ItemJSON.writeArray(items, in: library, to: &w)
            case "info":
                let library = try reading([path], location: location)
                let item: Item
                do { item = try found { try library.item(at: path) } } catch let missing as Missing {
                    // A page open on a recording that a shell then removed says where it went.
                    guard let entry = trashed(path, in: library.document) else { throw missing }
                    return .error(404, "\(path): moved to the trash from \(entry.path)", inTrash: true)
                }
                return json(library.report(on: item, copies: false).json(in: library))
            case "tree":
                let library = try Library(location: location)
                let item = try found { try library.item(at: path) }
                ItemJSON.writeTree(item, in: library, to: &w)
            case "marks":
                let library = try Library(location: location)
                let item = try found { try library.item(at: path) }
                guard item.recording != nil else {
                    throw RecError.failure(path, "is a folder; only recordings have markers")
                }
                return json(ItemJSON.markers(item))
            case "transcript":
                // `transcript --format json`: the JSON kept in transcripts/UUID.json.
                let library = try Library(location: location)
                let item = try found { try library.item(at: path) }
                guard let recording = item.recording else {
                    throw RecError.failure(path, "is a folder, not a recording")
                }
                let transcript = try found {
                    try TranscriptFiles(location: library.location).required(item.id, path: path)
                }
                return Answer(
                    status: 200,
                    body: Array(TranscriptFormat.json.render(transcript, duration: recording.duration).utf8))
            case "topics", "chapters":
                // `topics --json` (`count=N`, 10 by default) and `chapters --json`.
                let library = try Library(location: location)
                let item = try found { try library.item(at: path) }
                guard item.recording != nil else { throw RecError.failure(path, "is a folder, not a recording") }
                // A recording without a transcript has neither: an empty list, not an error.
                guard TranscriptFiles(location: library.location).exists(item.id) else { return json("[]") }
                if route == "chapters" {
                    return json(RecordingChapters.json(try RecordingChapters.of(item, in: library)))
                }
                let typed = parameters.last { $0.0 == "count" }?.1 ?? "10"
                guard let count = Int(typed), count > 0 else {
                    throw RecError.usage("count", "'\(typed)' is not a number of at least 1")
                }
                return json(RecordingTopics.json(try RecordingTopics.of(item, in: library, limit: count)))
            case "find":
                var query = try findOptions(parameters).query()
                query.snippets = true
                let found = try found(path) {
                    try Finder.find(query, in: path, details: true, location: location) {
                        try Library(location: location)
                    }
                }
                try ItemJSON.writeFound(found, matches: query.hasTextFilters, to: &w)
            default:
                return .error(404, "/api/\(route): no such route (there are \(routes.joined(separator: ", ")))")
            }
            w.raw("\n")
            return Answer(status: 200, body: w.bytes)
        }
    }

    /// The library for a request that resolves `paths` (and lists a folder's children when
    /// `listing`), as the CLI's `ls` and `info` open it: the few items the reads' table leads
    /// to (`Library.reading`, which checks the table against store.json), else the whole store,
    /// after which the table is made for the next request. A request then costs what it
    /// touches, not the size of the library.
    static func reading(_ paths: [String?], listing: Bool = false, location: StoreLocation) throws -> Library {
        if let library = Library.reading(location, paths: paths, listing: listing) { return library }
        let library = try Library(location: location)
        library.keepReadTable()
        return library
    }

    /// `body`'s answer, or its error's: a missing item 404, any other RecError 400 (what the
    /// CLI would refuse), anything else 500.
    static func answering(_ body: () throws -> Answer) -> Answer {
        do {
            return try body()
        } catch let missing as Missing {
            return .error(404, missing.error.description)
        } catch let error as RecError {
            return .error(status(of: error, otherwise: 400), error.description)
        } catch {
            return .error(500, "\(error)")
        }
    }

    /// A RecError's status: 507 when what failed was writing to a full disk (its reason is
    /// the system's, `systemReason`), else `otherwise`.
    package static func status(of error: RecError, otherwise: Int) -> Int {
        let full = [ENOSPC, EDQUOT].map(systemReason)
        return full.contains { error.reason.contains($0) } ? 507 : otherwise
    }

    /// `find`'s options from the query: the CLI's option names without `--` (`tag` repeated
    /// for several tags); an unknown parameter is an error, as an unknown option is.
    static func findOptions(_ parameters: [(String, String)]) throws -> FindOptions {
        var options = FindOptions()
        for (key, value) in parameters {
            switch key {
            case "path": break
            case "name": options.name = value
            case "iname": options.iname = value
            case "type":
                guard let kind = ItemKind(rawValue: value) else {
                    throw RecError.usage("type", "'\(value)' is neither folder nor recording")
                }
                options.type = kind
            case "tag": options.tags.append(value)
            case "text": options.text = value
            case "after": options.after = value
            case "before": options.before = value
            case "longer": options.longer = value
            case "shorter": options.shorter = value
            default: throw RecError.usage(key, "find has no such parameter")
            }
        }
        return options
    }

    /// The path of a request's `path` parameter, as the library resolves it.
    static func storePath(_ typed: String?) -> String {
        guard let typed, !typed.isEmpty else { return "/" }
        return typed.hasPrefix("/") || typed.hasPrefix("@") ? typed : "/" + typed
    }

    /// A path that names no item (or names it wrongly): 404, not 400.
    struct Missing: Error { var error: RecError }

    static func found<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as RecError where error.kind == .failure {
            throw Missing(error: error)
        }
    }

    /// `find` resolves its path itself (from its index when it can): a failure about that
    /// path is a missing item.
    private static func found<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as RecError where error.kind == .failure && error.subject == path {
            throw Missing(error: error)
        }
    }

    static func json(_ text: String) -> Answer {
        Answer(status: 200, body: Array((text + "\n").utf8))
    }

    /// A recording's audio file, open for reading, found by its UUID alone: nothing of the
    /// request but the UUID reaches the file system. The file (after symbolic links: a synced
    /// store's audio is git-annex's links into `.git/annex`) must lie inside the store
    /// directory, so a link planted in `audio/` that leads out of the store is not served.
    /// A class, so that a server can keep it open across requests and a response still being
    /// written holds the descriptor after the server let it go: it is closed with the last.
    package final class AudioFile: Sendable {
        package let file: OpenFile
        package let size: Int64
        package let contentType: String
        /// The recording's path in the store (links not followed) and what it led to when
        /// opened, to tell whether the path still leads to this file (`isCurrent`).
        let path: String
        let identity: FileIdentity

        init(file: OpenFile, path: String, identity: FileIdentity, contentType: String) {
            self.file = file
            self.path = path
            self.identity = identity
            self.size = identity.size
            self.contentType = contentType
        }

        /// Whether the recording's path still leads to this file, unchanged: false once it
        /// was replaced (a rename makes a new inode), written in place (its size or time
        /// changed), removed, or its link made to lead elsewhere. One `stat`: what a server
        /// that keeps the file open checks before each use of it.
        package var isCurrent: Bool { FileIdentity(path: path) == identity }
    }

    /// nil when `uuid` is not a whole UUID, names no recording, or its file is not there
    /// (or leads out of the store): all of which the server answers with 404.
    package static func audio(_ uuid: Substring, location: StoreLocation) -> AudioFile? {
        guard uuid.utf8.count == 36, let id = ItemID(String(uuid)),
            let library = try? reading(["@" + uuid], location: location),
            let item = library.document[id], let info = item.recording,
            let store = realPath(location.directory),
            let file = realPath(location.audioPath(info.file)),
            file.hasPrefix(store == "/" ? "/" : store + "/")
        else { return nil }
        guard let opened = OpenFile(file, O_RDONLY | O_NOFOLLOW) else { return nil }
        var status = stat()
        guard opened.withDescriptor({ fstat($0, &status) }) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            return nil
        }
        return AudioFile(
            file: opened, path: location.audioPath(info.file), identity: FileIdentity(status),
            contentType: contentType(info.format))
    }

    /// Why the recording `uuid` names has no audio to serve, as a 409 that says where its
    /// copies are: audio that sync left on other machines (dropped here, or never brought),
    /// or a file lost from the store. nil when `uuid` names no recording, or its file is here.
    package static func audioAbsence(_ uuid: Substring, location: StoreLocation) -> Answer? {
        guard uuid.utf8.count == 36, let id = ItemID(String(uuid)),
            let library = try? reading(["@" + uuid], location: location),
            let item = library.document[id], let info = item.recording,
            !FileSystem.exists(location.audioPath(info.file))
        else { return nil }
        let path = library.document.path(of: item.id)
        guard location.audioIsElsewhere(info.file) else {
            return .error(409, "\(path): its audio file is missing from the store", copies: [])
        }
        let copies = ((try? Annex.copies(location, files: [info.file]))?[info.file] ?? []).filter { $0 != "here" }
        return .error(409, Annex.notHere(location, file: info.file, path: path).description, copies: copies)
    }

    /// The trash entry of the item `path` named when it is `@` and a UUID (prefix) of a
    /// removed item.
    static func trashed(_ path: String, in document: Document) -> TrashEntry? {
        guard path.hasPrefix("@") else { return nil }
        return try? document.trashEntry(matching: path, from: .root)
    }

    /// The path with every symbolic link followed, nil when it does not lead to a file.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The media type a browser's `<audio>` expects for each stored format.
    package static func contentType(_ format: AudioFormat) -> String {
        switch format {
        case .opus: return "audio/ogg; codecs=opus"
        case .vorbis: return "audio/ogg"
        case .flac: return "audio/flac"
        case .wav: return "audio/wav"
        case .mp3: return "audio/mpeg"
        }
    }
}

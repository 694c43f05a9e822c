import RecStore
import RecSync
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The server's write routes (small writes): `POST /api/<route>`, each the CLI
/// command of its name made through the same transaction (so undo, the journal, history and
/// sync see it), answering what that command prints with `--json`: the items it changed.
/// Who may write (the token header, the origin, `--read-only`) is the HTTP side's to check.
extension LibraryAPI {
    /// The write routes and the parameters each takes (`path` names the item, as for reads).
    package static let writeRoutes: [(route: String, parameters: [String])] = [
        ("mark", ["path", "at", "label"]),  // mark PATH --at TIME [LABEL]
        ("tag", ["path", "add", "remove"]),  // tag PATH +ADD... -REMOVE... (add, remove repeat)
        // note PATH --set BODY (the request's body, UTF-8; empty removes it); `version`: the
        // note's `noteVersion` as the writer read it, refused (409) when the note has changed since.
        ("note", ["path", "version"]),
        ("get", ["path"]),  // get PATH: the audio brought here from the copies elsewhere
        // A segment of the transcript said as the body (UTF-8, one line), its words aligned to
        // the old times as `transcript --edit` does; `segment`: its index, from 0; `version`:
        // `noteVersion` of the segment's text as read, refused (409) when it has changed since.
        ("correct", ["path", "segment", "version"]),
        ("words", ["add", "remove"]),  // words add WORD... / words rm WORD...
    ]

    /// A note's version as a page read it: FNV-1a (64 bits) of its UTF-8, in 16 hex digits.
    /// A page computes it from the note `info` gave it, and sends it back with its change.
    package static func noteVersion(_ note: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in note.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
    /// `upload`'s, whose body is streamed to a file first (`Upload`, `upload(_:parameters:location:)`).
    package static let uploadParameters = ["path", "name", "filename", "format"]

    /// An unknown parameter is refused, as an unknown option is.
    static func refuseUnknown(_ parameters: [(String, String)], known: [String], route: String) throws {
        for (key, _) in parameters where !known.contains(key) {
            throw RecError.usage(key, "\(route) has no such parameter")
        }
    }

    /// The library a write changes, its journal entry summarised as the request (what `history
    /// --json` and `undo` show; the CLI puts its command line there). `tag` and `note` change
    /// annotations alone, and open only the items they name, as the CLI's do (`Library.changing`).
    private static func libraryForWrite(
        _ route: String, path: String, parameters: [(String, String)], location: StoreLocation
    ) throws -> Library {
        let annotating = route == "tag" || route == "note"
        let library = try (annotating ? Library.changing(location, paths: [path]) : nil) ?? Library(location: location)
        library.documents.summary =
            "recnotes serve: POST /api/\(route) " + parameters.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        return library
    }

    /// The answer of `POST /api/<route>` with the request's query parameters and body.
    package static func write(
        _ route: String, parameters: [(String, String)], body: [UInt8], location: StoreLocation
    ) -> Answer {
        answering {
            guard let known = writeRoutes.first(where: { $0.route == route })?.parameters else {
                let names = (writeRoutes.map(\.route) + ["upload"]).joined(separator: ", ")
                return .error(404, "POST /api/\(route): no such write route (there are \(names))")
            }
            try refuseUnknown(parameters, known: known, route: route)
            func values(_ key: String) -> [String] { parameters.filter { $0.0 == key }.map(\.1) }
            let path = storePath(values("path").last)
            let library = try libraryForWrite(route, path: path, parameters: parameters, location: location)
            let named = try found { try library.item(at: path) }
            let changed = ChangedItems(library: library)
            switch route {
            case "mark":
                guard let at = values("at").last else {
                    throw RecError.usage("at", "mark needs the marker's time (seconds, or any --at form)")
                }
                let label = values("label").last ?? ""
                try library.documents.transaction { tx in
                    _ = try tx.addMarker(at: path, time: at, label: label, from: .root)
                }
            case "tag":
                let (adding, removing) = (values("add"), values("remove"))
                if adding.isEmpty && removing.isEmpty {
                    throw RecError.usage("tag", "needs add=TAG or remove=TAG")
                }
                try library.documents.transaction { tx in
                    _ = try tx.tag([path], adding: adding, removing: removing, from: .root)
                }
            case "note":
                guard let text = String(validating: body, as: UTF8.self) else {
                    throw RecError.usage("note", "the body is not valid UTF-8")
                }
                let version = values("version").last
                var changedSince = false
                try library.documents.transaction { tx in
                    // Checked under the store's lock: no other writer comes between.
                    changedSince = false
                    if let version, let item = tx.document[named.id],
                        noteVersion(item.annotations.note) != version.lowercased()
                    {
                        changedSince = true
                        return
                    }
                    _ = try tx.setNote(text, at: path, from: .root)
                }
                if changedSince {
                    return .error(409, "\(path): its note was changed elsewhere after it was read")
                }
            case "get":
                _ = try SyncRemotes.requireSetUp(location, command: "get")
                let elsewhere = library.document.subtree(of: named.id).compactMap { item in
                    item.recording.flatMap { location.audioIsElsewhere($0.file) ? ($0.file, item.id) : nil }
                }
                let moved = try Annex.get(location, files: elsewhere.map(\.0))
                if let first = moved.failed.first, let id = elsewhere.first(where: { $0.0 == first })?.1 {
                    throw Annex.notHere(location, file: first, path: library.document.path(of: id))
                }
                return json(ItemJSON.array(library.document.subtree(of: named.id), in: library))
            case "correct":
                return try correct(
                    named, segment: values("segment").last, version: values("version").last, body: body, in: library)
            case "words":
                let vocabulary = Vocabulary(storeDirectory: location.directory)
                let (adding, removing) = (values("add"), values("remove"))
                if adding.isEmpty && removing.isEmpty {
                    throw RecError.usage("words", "needs add=WORD or remove=WORD")
                }
                if !adding.isEmpty { _ = try vocabulary.add(adding) }
                if !removing.isEmpty { try vocabulary.remove(removing) }
                var w = JSONWriter()
                w.beginObject()
                w.key("words")
                w.strings(vocabulary.words)
                w.endObject()
                return json(String(decoding: w.bytes, as: UTF8.self))
            default:
                preconditionFailure("a write route without its case: \(route)")
            }
            return json(changed.json)
        }
    }
}

extension LibraryAPI {
    /// `POST /api/correct`: one segment of `item`'s transcript corrected (`TranscriptCorrector`),
    /// answering `{"segment": N, "text": "…", "newWords": [...]}`, the names it brought in
    /// that are not among your words yet, for the page to offer to add.
    static func correct(_ item: Item, segment: String?, version: String?, body: [UInt8], in library: Library) throws
        -> Answer
    {
        let path = library.document.path(of: item.id)
        guard item.recording != nil else { throw RecError.failure(path, "is a folder, not a recording") }
        guard let segment, let index = Int(segment), index >= 0 else {
            throw RecError.usage("segment", "correct needs segment=N, the segment's index from 0")
        }
        guard let typed = String(validating: body, as: UTF8.self) else {
            throw RecError.usage("correct", "the body is not valid UTF-8")
        }
        let transcript = try found { try TranscriptFiles(location: library.location).required(item.id, path: path) }
        guard index < transcript.segments.count else {
            throw RecError.usage(
                "segment",
                "the transcript has \(transcript.segments.count) segments (0 to \(transcript.segments.count - 1))")
        }
        let old = transcript.segments[index].text
        if let version, noteVersion(old) != version.lowercased() {
            return .error(409, "\(path): that part of its transcript was changed elsewhere after it was read")
        }
        // One line, as a segment is in the editor.
        let text = typed.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var texts = transcript.segments.map(\.text)
        texts[index] = text
        var newWords: [String] = []
        if text != old {
            let corrected = transcript.correcting(texts: texts)
            try TranscriptCorrector.save(corrected, for: item, in: library)
            newWords = TranscriptCorrector.newNames(
                in: corrected, comparedTo: transcript,
                vocabulary: Vocabulary(storeDirectory: library.location.directory).words)
        }
        var w = JSONWriter()
        w.beginObject()
        w.field("segment", index)
        w.field("text", text)
        w.key("newWords")
        w.strings(newWords)
        w.endObject()
        return json(String(decoding: w.bytes, as: UTF8.self))
    }
}

/// An upload's body on its way in (`POST /api/upload`): written to a temporary file in
/// `audio/`, named as an import's temporary files are (`.import-PID-HEX.upload`), so that
/// `fsck` sweeps it if the server dies, and removed when this goes away unless the import
/// made it the recording (a file already in the format asked for is renamed into place, so
/// an upload needs room for its audio once).
package final class Upload {
    package let path: String
    /// Open while the body comes in.
    private var file: OpenFile?
    package private(set) var size: Int64 = 0

    package init(location: StoreLocation) throws {
        try FileSystem.makeDirectories(location.audioDirectory)
        let path = Importer.temporaryPath(in: location.audioDirectory, tag: "upload")
        self.path = path
        file = try OpenFile.opening(path, O_WRONLY | O_CREAT | O_EXCL) {
            RecError.failure("upload", "cannot store it: \($0)")
        }
    }

    deinit {
        file = nil
        unlink(path)
    }

    package func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard let file else { preconditionFailure("an upload was appended to after it was finished") }
        do throws(Errno) { try file.withDescriptor { fd throws(Errno) in try System.writeAll(fd, bytes) } } catch {
            throw RecError.failure("upload", "cannot store it: \(error)")
        }
        size += Int64(bytes.count)
    }

    /// The whole body is in: the file is closed for the importer to read.
    func finish() { file = nil }
}

extension LibraryAPI {
    /// `POST /api/upload?path=FOLDER&name=NAME&filename=FILE&format=FORMAT`: `recnotes import`
    /// of the uploaded file, all or nothing, into FOLDER (the root by default) as NAME (else
    /// FILE's name without its extension, as `import` names a file), stored in FORMAT (Opus by
    /// default). Answers the new recording's JSON, as `import --json` prints it.
    package static func upload(_ upload: Upload, parameters: [(String, String)], location: StoreLocation) -> Answer {
        answering {
            try refuseUnknown(parameters, known: uploadParameters, route: "upload")
            func value(_ key: String) -> String? { parameters.last { $0.0 == key }?.1 }
            upload.finish()
            guard upload.size > 0 else { throw RecError.usage("upload", "the body is empty: send the audio file") }
            var format = AudioFormat.default
            if let typed = value("format") {
                // As `import --format` takes it: any case, and its aliases.
                guard let chosen = AudioFormat(name: typed) else {
                    let names = AudioFormat.allCases.map(\.rawValue).joined(separator: ", ")
                    throw RecError.usage("format", "'\(typed)' is not one of \(names)")
                }
                format = chosen
            }
            let name = value("name") ?? value("filename").map(Importer.defaultName(for:))
            guard let name, !name.isEmpty else {
                throw RecError.usage("name", "an upload needs name=NAME or filename=FILE")
            }
            let folder = storePath(value("path"))
            let library = try libraryForWrite("upload", path: folder, parameters: parameters, location: location)
            _ = try found { try library.item(at: folder) }
            let changed = ChangedItems(library: library)
            do {
                let importer = try Importer(
                    library: library, files: [upload.path], folder: folder, name: name, storage: .transcode(format),
                    raw: nil, consumesFiles: true)
                try importer.run()
            } catch let error as RecError where error.subject.hasSuffix(upload.path) {
                // The file is the upload, not a path of the server's: say so.
                throw RecError(error.kind, "upload", error.reason)
            }
            return json(changed.json)
        }
    }
}

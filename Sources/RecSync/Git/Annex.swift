import RecStore
import RecSystem
import RecValues

/// Where recordings' audio is, and moving it here or away: git-annex's location tracking,
/// for `info`'s copies, `get`, `drop` and the error of a command whose audio is not here.
public enum Annex {
    /// Whether the store is a sync repository whose audio git-annex tracks.
    public static func isSetUp(_ location: StoreLocation) -> Bool {
        Git(directory: location.directory).isAnnex
    }

    /// For each audio file (a name inside audio/), where its content is: "here", a remote's
    /// name, or another machine's name (its git-annex description), here first.
    public static func copies(_ location: StoreLocation, files: [String]) throws -> [String: [String]] {
        guard !files.isEmpty else { return [:] }
        let git = Git(directory: location.directory)
        let remotes = try git.capture(["config", "--get-regexp", #"^remote\..*\.annex-uuid$"#])
        var names: [String: String] = [:]
        for line in remotes.lines {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            names[String(parts[1])] = String(parts[0].dropFirst("remote.".count).dropLast(".annex-uuid".count))
        }
        let result = try git.capture(["annex", "whereis", "--json", "--"] + files.map { "audio/" + $0 })
        var copies: [String: [String]] = [:]
        for line in result.lines where line.hasPrefix("{") {
            guard let record = parse(line), let file = record.file else { continue }
            var here = false
            var places: [String] = []
            for place in record.whereis {
                if place.here {
                    here = true
                } else if let name = names[place.uuid] {
                    places.append(name)
                } else {
                    // git-annex describes a remote it knows by name as "[name]".
                    var label = place.description
                    if label.hasPrefix("["), label.hasSuffix("]") { label = String(label.dropFirst().dropLast()) }
                    places.append(label.isEmpty ? place.uuid : label)
                }
            }
            copies[FileSystem.baseName(of: file)] = (here ? ["here"] : []) + places.sorted()
        }
        return copies
    }

    /// The one line of a command whose recording's audio is on other machines only.
    public static func notHere(_ location: StoreLocation, file: String, path: String) -> RecError {
        let places = ((try? copies(location, files: [file]))?[file] ?? []).filter { $0 != "here" }
        let whereabouts = places.isEmpty ? "no copy is known" : "it is on \(places.joined(separator: ", "))"
        return RecError.failure(
            path,
            "the audio is not on this machine (\(whereabouts)); bring it with 'recnotes get \(quotedForShell(path))'")
    }

    public struct Moved: Sendable {
        public var count = 0
        public var bytes: Int64 = 0
        public var failed: [String] = []
    }

    /// Brings the files' audio here from wherever git-annex can reach it; `observer` is told
    /// how far it has got (with git-annex's progress records, for a terminal's live line).
    public static func get(
        _ location: StoreLocation, files: [String], observer: TransferObserver? = nil
    ) throws -> Moved {
        let held = try RepositoryLock.require(Git(directory: location.directory), what: "get")
        defer { withExtendedLifetime(held) {} }
        return try transfer(
            location, ["get"], files, plan: ["--not", "--in", "here"],
            progress: TransferProgress(direction: .receiving, remote: nil), observer: observer)
    }

    /// Drops the files' audio here. Refused, dropping nothing, when a file has no other known
    /// copy: the error names where each copy is.
    public static func drop(_ location: StoreLocation, files: [String], paths: [String: String]) throws -> Moved {
        let held = try RepositoryLock.require(Git(directory: location.directory), what: "drop")
        defer { withExtendedLifetime(held) {} }
        let known = try copies(location, files: files)
        for file in files {
            let places = known[file] ?? []
            guard places.contains("here") else { continue }
            if places.count < 2 {
                throw RecError.failure(
                    "drop",
                    "\(paths[file] ?? file): no other copy is known (copies: \(places.joined(separator: ", "))); nothing was dropped; sync it first"
                )
            }
        }
        return try transfer(location, ["drop"], files.filter { known[$0]?.contains("here") == true })
    }

    static func transfer(
        _ location: StoreLocation, _ command: [String], _ files: [String], plan: [String] = [],
        progress: TransferProgress? = nil, observer: TransferObserver? = nil
    ) throws -> Moved {
        guard !files.isEmpty else { return Moved() }
        let tally = try AnnexTransfer.run(
            Git(directory: location.directory), command, files: files.map { "audio/" + $0 }, plan: plan,
            what: command[0], progress: progress, observer: observer)
        return Moved(count: tally.count, bytes: tally.bytes, failed: tally.failed.map(FileSystem.baseName(of:)))
    }

    struct Record {
        var file: String?
        var key: String?
        var success = false
        /// A progress record's bytes moved of its file (`--json-progress`); nil in the record
        /// that ends a file.
        var progress: Int64?
        /// What git-annex says of the file under way: `from origin...`, `to hub...`.
        var note: String?

        /// The bytes the record's key holds: `SHA256E-s12345--…`, the field after the
        /// backend's name that starts with `s`, before the `--` that starts the name; 0 when
        /// the key says none.
        var size: Int64 {
            let fields = key?.split(separator: "--", maxSplits: 1).first?.split(separator: "-") ?? []
            for field in fields.dropFirst() where field.first == "s" {
                return Int64(field.dropFirst()) ?? 0
            }
            return 0
        }

        /// The remote a `note` names (`from origin...`): where `get` is taking the file from.
        var noteRemote: String? {
            guard let note, note.hasPrefix("from "), note.hasSuffix("...") else { return nil }
            let name = note.dropFirst("from ".count).dropLast("...".count)
            return name.isEmpty ? nil : String(name)
        }
        var whereis: [(uuid: String, description: String, here: Bool)] = []
    }

    /// The fields of git-annex's `--json` records that recnotes reads.
    static func parse(_ line: String) -> Record? {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBufferPointer { buffer -> Record? in
            var reader = JSONReader(buffer)
            var record = Record()
            do {
                try reader.beginObject()
                var first = true
                while let key = try reader.nextKey(first: &first) {
                    if key.equals("file") {
                        record.file = try reader.readString()
                    } else if key.equals("key") {
                        record.key = try reader.readString()
                    } else if key.equals("success") {
                        record.success = try reader.readBool()
                    } else if key.equals("byte-progress") {
                        record.progress = try reader.readInt()
                    } else if key.equals("note") {
                        record.note = try reader.readString()
                    } else if key.equals("action") {
                        // A progress record's file, key and note are inside its "action".
                        try reader.beginObject()
                        var firstField = true
                        while let field = try reader.nextKey(first: &firstField) {
                            if field.equals("note") {
                                record.note = try reader.readString()
                            } else {
                                try reader.skipValue()
                            }
                        }
                    } else if key.equals("whereis") {
                        try reader.beginArray()
                        var firstPlace = true
                        while try reader.nextElement(first: &firstPlace) {
                            try reader.beginObject()
                            var place = (uuid: "", description: "", here: false)
                            var firstField = true
                            while let field = try reader.nextKey(first: &firstField) {
                                if field.equals("uuid") {
                                    place.uuid = try reader.readString()
                                } else if field.equals("description") {
                                    place.description = try reader.readString()
                                } else if field.equals("here") {
                                    place.here = try reader.readBool()
                                } else {
                                    try reader.skipValue()
                                }
                            }
                            record.whereis.append(place)
                        }
                    } else {
                        try reader.skipValue()
                    }
                }
                return record
            } catch {
                return nil
            }
        }
    }

    /// A path as a shell takes it back: quoted when it holds anything but plain characters.
    static func quotedForShell(_ path: String) -> String {
        let plain = path.allSatisfy { $0.isLetter || $0.isNumber || "/._-+@:,".contains($0) }
        return plain ? path : "'" + path.replacingQuotes() + "'"
    }
}

extension String {
    fileprivate func replacingQuotes() -> String {
        var out = ""
        for c in self { out += c == "'" ? "'\\''" : String(c) }
        return out
    }
}

import RecStore
import RecSystem
import RecValues

/// Where recordings' audio is, and moving it here or away: git-annex's location tracking,
/// for `info`'s copies, `get`, `drop` and the error of a command whose audio is not here.
package enum Annex {
    /// Whether the store is a sync repository whose audio git-annex tracks.
    package static func isSetUp(_ location: StoreLocation) -> Bool {
        Git(directory: location.directory).isAnnex
    }

    /// For each audio file (a name inside audio/), where its content is: "here", a remote's
    /// name (as `sync remote add` named it), or another machine's name (its git-annex
    /// description), here first. A remote `sync remote remove` forgot is left out: this
    /// machine no longer reaches it. One process, `git annex whereis`; the remotes' names
    /// are read from the repository's config file.
    package static func copies(_ location: StoreLocation, files: [String]) throws -> [String: [String]] {
        guard !files.isEmpty else { return [:] }
        let git = Git(directory: location.directory)
        let config = RepositoryConfig(git)
        let names = config.remoteNames
        let forgotten = config.forgottenRemotes
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
                } else if !forgotten.contains(place.uuid) {
                    places.append(label(place.description, uuid: place.uuid))
                }
            }
            copies[FileSystem.baseName(of: file)] = (here ? ["here"] : []) + places.sorted()
        }
        // Audio git-annex does not know yet (not synced since it was saved) is here only.
        for file in files where copies[file] == nil {
            copies[file] = FileSystem.exists(location.audioPath(file)) ? ["here"] : []
        }
        return copies
    }

    /// A repository no remote here names, by its git-annex description: git-annex adds the
    /// remote's name in brackets when it knows one (`notes.git [usb]`, or `[usb]`), which is
    /// the name the user gave.
    static func label(_ description: String, uuid: String) -> String {
        if description.hasSuffix("]"), let open = description.lastIndex(of: "[") {
            let name = description[description.index(after: open)..<description.index(before: description.endIndex)]
            if !name.isEmpty { return String(name) }
        }
        return description.isEmpty ? uuid : description
    }

    /// The one line of a command whose recording's audio is on other machines only.
    package static func notHere(_ location: StoreLocation, file: String, path: String) -> RecError {
        let places = ((try? copies(location, files: [file]))?[file] ?? []).filter { $0 != "here" }
        let whereabouts = places.isEmpty ? "no copy is known" : "it is on \(places.joined(separator: ", "))"
        return RecError.failure(
            path,
            "the audio is not on this machine (\(whereabouts)); bring it with 'recnotes get \(quotedForShell(path))'")
    }

    package struct Moved: Sendable {
        package var count = 0
        package var bytes: Int64 = 0
        package var failed: [String] = []
        /// `drop`: the files kept because no other copy is known (the audio is here only).
        package var onlyHere: [String] = []
        /// Why files failed, in git-annex's words, each reason once, in the order met.
        package var reasons: [String] = []
    }

    /// Brings the files' audio here from wherever git-annex can reach it (those not here);
    /// `observer` is told how far it has got (with git-annex's progress records, for a
    /// terminal's live line).
    package static func get(
        _ location: StoreLocation, files: [String], observer: TransferObserver? = nil
    ) throws -> Moved {
        let git = Git(directory: location.directory)
        let held = try RepositoryLock.require(git, what: "get")
        defer { withExtendedLifetime(held) {} }
        let moved = try transfer(
            location, ["get"], files.filter(location.audioIsElsewhere), plan: ["--not", "--in", "here"],
            progress: TransferProgress(direction: .receiving, remote: nil), observer: observer)
        // Asked for again, a dropped recording's audio travels with sync again.
        let failed = Set(moved.failed)
        try DroppedHere.forget(git, files: files.filter { !failed.contains($0) })
        return moved
    }

    /// Drops the files' audio here, and keeps it away from later syncs (`DroppedHere`) until
    /// `get` asks for it, as it does audio of the files that is not here already. A file whose only known copy is here (never synced, or on no remote
    /// yet) is kept and named in `onlyHere`; the others are dropped. git-annex checks each
    /// remaining copy before it drops (`failed`: one it could not check).
    package static func drop(_ location: StoreLocation, files: [String]) throws -> Moved {
        let git = Git(directory: location.directory)
        let held = try RepositoryLock.require(git, what: "drop")
        defer { withExtendedLifetime(held) {} }
        // Audio not yet in the annex is a regular file git-annex does not know: here only.
        let present = files.filter { FileSystem.exists(location.audioPath($0)) }
        let known = try copies(location, files: present)
        let onlyHere = present.filter { (known[$0] ?? ["here"]).allSatisfy { $0 == "here" } }
        let other = Set(onlyHere)
        let droppable = present.filter { !other.contains($0) }
        var moved = try transfer(location, ["drop"], droppable)
        let failed = Set(moved.failed)
        // Audio not here already stays away too: drop says it is not wanted here.
        try DroppedHere.add(
            git, files: droppable.filter { !failed.contains($0) } + files.filter(location.audioIsElsewhere))
        moved.onlyHere = onlyHere
        return moved
    }

    static func transfer(
        _ location: StoreLocation, _ command: [String], _ files: [String], plan: [String] = [],
        progress: TransferProgress? = nil, observer: TransferObserver? = nil
    ) throws -> Moved {
        guard !files.isEmpty else { return Moved() }
        let tally = try AnnexTransfer.run(
            Git(directory: location.directory), command, files: files.map { "audio/" + $0 }, plan: plan,
            what: command[0], progress: progress, observer: observer)
        return Moved(
            count: tally.count, bytes: tally.bytes, failed: tally.failed.map(FileSystem.baseName(of:)),
            reasons: tally.reasons)
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
        /// Why a file failed, in git-annex's words (`--json-error-messages`): `not enough free
        /// space, need 98.8 MB more (…)`.
        var errors: [String] = []

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
                    } else if key.equals("error-messages") {
                        try reader.beginArray()
                        var firstMessage = true
                        while try reader.nextElement(first: &firstMessage) {
                            record.errors.append(try reader.readString())
                        }
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

/// The recordings whose audio `drop` took away from this machine, which sync then leaves
/// on the other machines: without it, the next sync's `git annex get` would bring back what
/// was dropped. Per machine (in the git directory, so it never travels), one audio file name
/// a line; `get` takes a recording off it. Read and written under the `RepositoryLock`.
enum DroppedHere {
    static func path(_ git: Git) -> String { git.gitDirectory + "/recnotes/dropped" }

    static func files(_ git: Git) throws -> Set<String> {
        guard let bytes = try FileSystem.read(path(git)) else { return [] }
        return Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    static func add(_ git: Git, files added: [String]) throws {
        guard !added.isEmpty else { return }
        try write(git, try files(git).union(added))
    }

    static func forget(_ git: Git, files forgotten: [String]) throws {
        let listed = try files(git)
        guard !listed.isDisjoint(with: forgotten) else { return }
        try write(git, listed.subtracting(forgotten))
    }

    /// git-annex's matching options that leave the dropped files out of a `get`.
    static func exclusions(_ git: Git) throws -> [String] {
        try files(git).sorted().map { "--exclude=audio/" + $0 }
    }

    private static func write(_ git: Git, _ files: Set<String>) throws {
        try FileSystem.makeDirectories(git.gitDirectory + "/recnotes")
        let text = files.sorted().map { $0 + "\n" }.joined()
        try FileSystem.writeAtomically(Array(text.utf8), to: path(git))
    }
}

extension String {
    fileprivate func replacingQuotes() -> String {
        var out = ""
        for c in self { out += c == "'" ? "'\\''" : String(c) }
        return out
    }
}

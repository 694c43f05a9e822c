import RecStore
import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `sync remote add|list|remove`: the store repository's git remotes, each one also a
/// git-annex remote (git-annex uses every git remote it can reach).
package enum SyncRemotes {
    package struct Remote: Equatable, Sendable {
        package var name: String
        package var url: String
    }

    /// Every sync subcommand but init and clone needs a repository `sync init` made.
    package static func requireSetUp(_ location: StoreLocation, command: String) throws -> Git {
        let git = Git(directory: location.directory)
        guard git.isRepository, git.isAnnex else {
            throw RecError.failure(
                command, "\(location.directory) is not set up for sync; run 'recnotes sync init' first")
        }
        return git
    }

    package static func list(_ git: Git) throws -> [Remote] {
        let result = try git.capture(["config", "--get-regexp", #"^remote\..*\.url$"#])
        // Exit status 1: no remote at all.
        guard result.succeeded else { return [] }
        return result.lines.compactMap { line in
            guard let space = line.firstIndex(of: " ") else { return nil }
            let key = line[..<space].dropFirst("remote.".count).dropLast(".url".count)
            return Remote(name: String(key), url: String(line[line.index(after: space)...]))
        }
    }

    /// What a URL names: a directory here, or a repository reached over ssh.
    enum Kind: Equatable {
        case path(String)
        case ssh
        case other
    }

    static func kind(of url: String) -> Kind {
        if url.hasPrefix("ssh://") { return .ssh }
        if url.hasPrefix("file://") { return .path(String(url.dropFirst("file://".count))) }
        if url.contains("://") { return .other }
        // scp-like `host:path`, as git reads it: a colon before the first slash.
        if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/"), colon != url.startIndex {
            return .ssh
        }
        return .path(url)
    }

    /// Names a remote cannot take: `info`'s copies say "here" for this machine, and
    /// `recnotes sync NAME` would run a subcommand of sync rather than sync with it.
    package static let reservedNames: Set<String> = ["here", "now", "init", "remote", "clone", "merge-driver", "help"]

    /// Adds remote `name`. A path that is missing or an empty directory becomes a bare git
    /// and git-annex repository; a repository already there is used as it is. Refused, with
    /// nothing changed, for a name in use, a path under a regular file, a directory holding
    /// something else, or an ssh remote that cannot be reached.
    /// Returns one line per thing done.
    package static func add(_ git: Git, name: String, url: String, currentDirectory: String) throws -> [String] {
        let what = "sync remote add"
        guard !name.isEmpty, !name.hasPrefix("-"), !name.contains(where: { $0 == "/" || $0 == " " || $0 == ":" })
        else {
            throw RecError.usage(what, "'\(name)' is not a remote name (no spaces, '/' or ':')")
        }
        guard !reservedNames.contains(name) else {
            throw RecError.usage(
                what, "'\(name)' cannot name a remote: 'recnotes sync \(name)' means something else")
        }
        let held = try RepositoryLock.require(git, what: what)
        defer { withExtendedLifetime(held) {} }
        if try list(git).contains(where: { $0.name == name }) {
            throw RecError.failure(what, "a remote named '\(name)' exists already")
        }
        var said: [String] = []
        var stored = url
        switch kind(of: url) {
        case .path(let given):
            guard !given.isEmpty else { throw RecError.usage(what, "the URL is empty") }
            let path = given.hasPrefix("/") ? given : currentDirectory + "/" + given
            stored = path
            if let made = try prepareDirectory(path, what: what) {
                // A clone of the new repository checks out the branch this store uses.
                if let branch = try? git.capture(["symbolic-ref", "HEAD"]), branch.succeeded {
                    try Git(directory: path).require(["symbolic-ref", "HEAD", branch.output.trimmed], what: what)
                }
                said.append(made)
            }
        case .ssh, .other:
            let probe = try git.capture(["ls-remote", "-q", url, "HEAD"])
            guard probe.succeeded else { throw RecError.failure(what, "\(name): cannot reach \(url): \(probe.reason)") }
        }
        try git.require(["remote", "add", name, stored], what: what)
        said.append("added remote '\(name)' (\(stored))")
        return said
    }

    /// Makes `path` a bare repository if it is missing or empty; checks it is one otherwise.
    static func prepareDirectory(_ path: String, what: String) throws -> String? {
        // Walk up to the nearest thing that exists: it must be a directory.
        var probe = path
        while !FileSystem.exists(probe) {
            let parent = FileSystem.parentDirectory(of: probe)
            if parent == probe { break }
            probe = parent
        }
        var info = stat()
        if stat(probe, &info) == 0, info.st_mode & S_IFMT != S_IFDIR {
            throw RecError.failure(what, "\(path): \(probe) is not a directory")
        }
        let isEmpty = !FileSystem.exists(path) || FileSystem.entries(of: path).isEmpty
        if isEmpty {
            try FileSystem.makeDirectories(path)
            let bare = Git(directory: path)
            try bare.require(["init", "-q", "--bare"], what: what)
            try bare.require(["annex", "init", "-q", FileSystem.baseName(of: path)], what: what)
            return "made \(path) a bare git and git-annex repository"
        }
        let looksBare = FileSystem.exists(path + "/HEAD") && FileSystem.exists(path + "/objects")
        guard looksBare || FileSystem.exists(path + "/.git") else {
            throw RecError.failure(what, "\(path): not a repository, and not empty")
        }
        return nil
    }

    package static func remove(_ git: Git, name: String) throws {
        let held = try RepositoryLock.require(git, what: "sync remote remove")
        defer { withExtendedLifetime(held) {} }
        guard try list(git).contains(where: { $0.name == name }) else {
            throw RecError.failure("sync remote remove", "no remote named '\(name)'")
        }
        // What git-annex recorded of the remote's copies stays in its location log; `info`
        // and `drop` leave them out from now on, as this machine no longer reaches them.
        let uuid = RepositoryConfig(git).remoteNames.first { $0.value == name }?.key
        try git.require(["remote", "remove", name], what: "sync remote remove")
        if let uuid, !RepositoryConfig(git).forgottenRemotes.contains(uuid) {
            try git.require(["config", "--add", RepositoryConfig.forgottenRemoteKey, uuid], what: "sync remote remove")
        }
    }
}

extension SyncRemotes {
    /// Where relative paths given as URLs are resolved.
    package static var currentDirectory: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(cString: buffer)
    }

    /// `[{"name": "hub", "url": "/mnt/usb/notes"}]`
    package static func json(_ remotes: [Remote]) -> String {
        var w = JSONWriter()
        w.array(remotes) { w, remote in
            w.beginObject()
            w.field("name", remote.name)
            w.field("url", remote.url)
            w.endObject()
        }
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension SyncSetup {
    /// `sync clone`: the library of `url` into `location`, which must not hold one yet,
    /// then set up as `initialize` does.
    package static func clone(url: String, into location: StoreLocation, machine: String?, currentDirectory: String)
        throws -> [String]
    {
        let what = "sync clone"
        let directory = location.directory
        if FileSystem.exists(location.storeFile) {
            throw RecError.failure(what, "\(directory) holds a library already; sync with it instead ('recnotes sync')")
        }
        if FileSystem.exists(directory) && !FileSystem.entries(of: directory).isEmpty {
            throw RecError.failure(what, "\(directory) is not empty; clone into an empty or new store directory")
        }
        var source = url
        if case .path(let path) = SyncRemotes.kind(of: url), !path.hasPrefix("/") {
            source = currentDirectory + "/" + path
        }
        try FileSystem.makeDirectories(FileSystem.parentDirectory(of: directory))
        let cloned = try Captured.run(["git", "clone", "-q", "--", source, directory])
        guard cloned.succeeded else {
            // git leaves nothing behind when a clone fails, but a directory it was given.
            throw RecError.failure(what, "cannot clone \(url): \(cloned.reason)")
        }
        var said = ["cloned \(url) into \(directory)"]
        said += try initialize(location, machine: machine).filter { !$0.hasPrefix("wrote ") }
        said.append("the audio stays on the remotes until 'recnotes sync' or 'recnotes get' brings it")
        return said
    }
}

import RecSystem

/// The few settings of the store repository's `.git/config` that commands read often (`info`
/// asks where a recording's audio is), read from the file without starting git: the
/// machine's name, each remote's git-annex UUID, and the remotes `sync remote remove` forgot.
struct RepositoryConfig {
    /// `[section "subsection"]` lowercased section and subsection as written, then key
    /// (lowercased, as git compares them) and value, in the file's order.
    var entries: [(section: String, subsection: String?, key: String, value: String)] = []

    init(_ git: Git) { self.init(file: git.gitDirectory + "/config") }

    init(file: String) {
        guard let bytes = try? FileSystem.read(file) else { return }
        var section = ""
        var subsection: String?
        for raw in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.hasPrefix("#") || line.hasPrefix(";") || line.isEmpty { continue }
            if line.hasPrefix("["), let close = line.lastIndex(of: "]") {
                let header = line[line.index(after: line.startIndex)..<close]
                if let quote = header.firstIndex(of: "\"") {
                    section = header[..<quote].trimmingCharacters(in: " \t").lowercased()
                    subsection = header[header.index(after: quote)...].trimmingCharacters(in: "\"")
                } else {
                    section = header.lowercased()
                    subsection = nil
                }
                continue
            }
            let parts = line.split(separator: "=", maxSplits: 1)
            let key = parts[0].trimmingCharacters(in: " \t").lowercased()
            let value = parts.count == 2 ? parts[1].trimmingCharacters(in: " \t").trimmingCharacters(in: "\"") : ""
            entries.append((section, subsection, key, value))
        }
    }

    /// The last value of `section.key` or `section.subsection.key`, as `git config --get`
    /// names it; a value git would have written quoted or continued reads as something else.
    func value(_ name: String) -> String? {
        guard let first = name.firstIndex(of: "."), let last = name.lastIndex(of: ".") else { return nil }
        let section = name[..<first].lowercased()
        let key = name[name.index(after: last)...].lowercased()
        let subsection = first == last ? nil : String(name[name.index(after: first)..<last])
        return entries.last { $0.section == section && $0.subsection == subsection && $0.key == key }?.value
    }

    func values(_ section: String, _ key: String) -> [String] {
        entries.filter { $0.section == section && $0.subsection == nil && $0.key == key }.map(\.value)
    }

    /// Each remote's git-annex UUID, to the remote's name: `remote.NAME.annex-uuid`, which
    /// git-annex records once it has reached the remote, else, for a repository on this
    /// machine, its own `annex.uuid`.
    var remoteNames: [String: String] {
        var names: [String: String] = [:]
        for entry in entries where entry.section == "remote" && entry.key == "annex-uuid" {
            if let name = entry.subsection, !entry.value.isEmpty { names[entry.value] = name }
        }
        for entry in entries where entry.section == "remote" && entry.key == "url" {
            guard let name = entry.subsection, !names.values.contains(name),
                let directory = SyncRun.localGitDirectory(SyncRemotes.Remote(name: name, url: entry.value)),
                let uuid = RepositoryConfig(file: directory + "/config").values("annex", "uuid").last
            else { continue }
            names[uuid] = name
        }
        return names
    }

    /// The UUIDs of remotes `sync remote remove` forgot (`recnotes.forgottenremote`).
    var forgottenRemotes: Set<String> { Set(values("recnotes", "forgottenremote")) }

    static let forgottenRemoteKey = "recnotes.forgottenremote"
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String { Substring(self).trimmingCharacters(in: set) }
}

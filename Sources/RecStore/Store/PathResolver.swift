import RecSystem
import RecValues

/// Turns what a user types into items. A path is absolute (`/Work/Ideas`), relative to the
/// current folder (`Ideas`, `../Work`, `.`), or starts with `@` and a unique prefix of at
/// least four hex digits of a UUID (`@3f2a`, `@3f2a/notes`). A name that itself begins with
/// `@` is reached as `./@name`.
package struct PathResolver {
    package let document: Document
    package let currentFolder: ItemID

    package static let minimumPrefix = 4

    package init(document: Document, currentFolder: ItemID) {
        self.document = document
        self.currentFolder = document[currentFolder]?.isFolder == true ? currentFolder : .root
    }

    /// Where a path points: an existing item, or a name that could be created in an
    /// existing folder.
    package enum Target: Equatable {
        case existing(Item)
        case missing(parent: Item, name: String)
    }

    /// Where a path leads, whatever is missing: an existing item, or the names that are not
    /// there yet below the deepest existing folder on the way (`mkdir -p` makes them; the
    /// trash knows the path they spell). `endsInSlash`: the path ended in `/`, so its last
    /// name is meant as a folder too.
    package enum Location: Equatable {
        case existing(Item)
        case missing(parent: Item, names: [String], endsInSlash: Bool)
    }

    /// The existing item at `path`.
    package func resolve(_ path: String) throws -> Item {
        switch try walk(path) {
        case .existing(let item): return item
        case .missing(let parent, let names, _): throw missing(path, parent: parent, names: names)
        }
    }

    /// The existing folder at `path`.
    package func resolveFolder(_ path: String) throws -> Item {
        let item = try resolve(path)
        guard item.isFolder else { throw RecError.failure(path, "not a folder") }
        return item
    }

    /// An existing item, or one name missing in an existing folder; a missing folder on the
    /// way is an error.
    package func locate(_ path: String) throws -> Target {
        switch try walk(path) {
        case .existing(let item): return .existing(item)
        case .missing(let parent, let names, _) where names.count == 1: return .missing(parent: parent, name: names[0])
        case .missing(let parent, let names, _): throw missing(path, parent: parent, names: names)
        }
    }

    /// The absolute path that `path` spells, whether or not anything is there now: what the
    /// trash matches a removed item's path against.
    package func absolutePath(_ path: String) throws -> String {
        switch try walk(path) {
        case .existing(let item): return document.path(of: item.id)
        case .missing(let parent, let names, _): return Self.joined(document.path(of: parent.id), names)
        }
    }

    /// The one walk of a path: `.` stays, `..` climbs (past the root it stays there, and after
    /// a missing name it takes that name back), a name steps into a folder's child. Names are
    /// checked as they are read; a name under a recording is an error, as is a trailing `/`
    /// after one.
    package func walk(_ path: String) throws -> Location {
        guard !path.isEmpty else { throw RecError.usage("''", "a path cannot be empty") }
        var (current, components) = try start(path)
        let endsInSlash = path.hasSuffix("/") && path.count > 1
        var missing: [String] = []
        for (index, component) in components.enumerated() {
            switch component {
            case ".":
                continue
            case "..":
                if missing.isEmpty {
                    current = current.parent.flatMap { document[$0] } ?? current
                } else {
                    missing.removeLast()
                }
                continue
            default:
                try NameRules.validate(component)
            }
            if !missing.isEmpty {
                missing.append(component)
            } else if !current.isFolder {
                throw notAFolder(path, current)
            } else if let child = document.child(named: component, in: current.id) {
                if !child.isFolder && index < components.count - 1 { throw notAFolder(path, child) }
                current = child
            } else {
                missing.append(component)
            }
        }
        if !missing.isEmpty { return .missing(parent: current, names: missing, endsInSlash: endsInSlash) }
        if endsInSlash && !current.isFolder { throw RecError.failure(path, "not a folder") }
        return .existing(current)
    }

    /// What a path whose `names` are missing under `parent` is told: the item, when only the
    /// last name is missing, otherwise the first folder missing. `hint` says how to go on.
    package func missing(_ path: String, parent: Item, names: [String], hint: String? = nil) -> RecError {
        let reason =
            names.count == 1
            ? "no such folder or recording" : "no such folder: \(Self.joined(document.path(of: parent.id), [names[0]]))"
        return RecError.failure(path, hint.map { "\(reason) (\($0))" } ?? reason)
    }

    func notAFolder(_ path: String, _ item: Item) -> RecError {
        RecError.failure(path, "\(document.path(of: item.id)) is not a folder")
    }

    /// Names under a folder's path, as a path: `/` and `[a, b]` are `/a/b`.
    static func joined(_ parent: String, _ names: [String]) -> String {
        names.reduce(parent) { $0 == "/" ? "/" + $1 : $0 + "/" + $1 }
    }

    /// The folder a path's walk starts from, and the components left to walk.
    package func start(_ path: String) throws -> (Item, [String]) {
        var components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if path.hasPrefix("/") { return (document.root, components) }
        if path.hasPrefix("@"), let first = components.first {
            components.removeFirst()
            return (try byPrefix(String(first.dropFirst()), typed: first), components)
        }
        return (document[currentFolder] ?? document.root, components)
    }

    /// The hex digits of a typed UUID prefix (`@3f2a`, dashes ignored), as nibbles; a usage
    /// error unless there are `minimumPrefix` to 32 of them. Every `@` form goes through here.
    package static func prefixNibbles(_ prefix: Substring, typed: String) throws -> [UInt8] {
        let digits = prefix.filter { $0 != "-" }.lowercased()
        guard digits.count >= minimumPrefix, digits.count <= 32, digits.allSatisfy(\.isHexDigit) else {
            throw RecError.usage(typed, "a UUID prefix needs \(minimumPrefix) to 32 hex digits after '@'")
        }
        return digits.utf8.compactMap(hexValue)
    }

    /// The item whose UUID starts with `prefix`; dashes in the prefix are ignored.
    package func byPrefix(_ prefix: String, typed: String) throws -> Item {
        let nibbles = try Self.prefixNibbles(Substring(prefix), typed: typed)
        let digits = String(nibbles.map { Character(String($0, radix: 16)) })
        var matches: [Item] = []
        for item in document.items.values where item.id.hasPrefix(nibbles: nibbles) {
            matches.append(item)
        }
        switch matches.count {
        case 0:
            throw RecError.failure(typed, "no item has a UUID starting with \(digits)")
        case 1:
            return matches[0]
        default:
            let listed = matches.sorted { $0.id < $1.id }.prefix(10).map {
                "@\(String($0.id.hexDigits.prefix(12))) \(document.path(of: $0.id))"
            }
            let more = matches.count > 10 ? ", and \(matches.count - 10) more" : ""
            throw RecError.failure(
                typed,
                "ambiguous UUID prefix, matching \(matches.count) items: \(listed.joined(separator: ", "))\(more)")
        }
    }
}

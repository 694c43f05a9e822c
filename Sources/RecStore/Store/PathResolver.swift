/// Turns what a user types into items. A path is absolute (`/Work/Ideas`), relative to the
/// current folder (`Ideas`, `../Work`, `.`), or starts with `@` and a unique prefix of at
/// least four hex digits of a UUID (`@3f2a`, `@3f2a/notes`). A name that itself begins with
/// `@` is reached as `./@name`.
public struct PathResolver {
    public let document: Document
    public let currentFolder: ItemID

    public static let minimumPrefix = 4

    public init(document: Document, currentFolder: ItemID) {
        self.document = document
        self.currentFolder = document[currentFolder]?.isFolder == true ? currentFolder : .root
    }

    /// Where a path points: an existing item, or a name that could be created in an
    /// existing folder.
    public enum Target: Equatable {
        case existing(Item)
        case missing(parent: Item, name: String)
    }

    /// The existing item at `path`.
    public func resolve(_ path: String) throws -> Item {
        switch try locate(path) {
        case .existing(let item): return item
        case .missing: throw RecError.failure(path, "no such folder or recording")
        }
    }

    /// The existing folder at `path`.
    public func resolveFolder(_ path: String) throws -> Item {
        let item = try resolve(path)
        guard item.isFolder else { throw RecError.failure(path, "not a folder") }
        return item
    }

    public func locate(_ path: String) throws -> Target {
        guard !path.isEmpty else { throw RecError.usage("''", "a path cannot be empty") }
        var (current, components) = try start(path)
        let mustBeFolder = path.hasSuffix("/") && path.count > 1
        var index = 0
        while index < components.count {
            let component = components[index]
            let isLast = index == components.count - 1
            index += 1
            switch component {
            case ".":
                continue
            case "..":
                current = current.parent.flatMap { document[$0] } ?? current
                continue
            default:
                try NameRules.validate(component)
            }
            if let child = document.child(named: component, in: current.id) {
                if !isLast && !child.isFolder {
                    throw RecError.failure(path, "\(document.path(of: child.id)) is not a folder")
                }
                current = child
            } else if isLast {
                return .missing(parent: current, name: component)
            } else {
                throw RecError.failure(path, "no such folder: \(joined(document.path(of: current.id), component))")
            }
        }
        if mustBeFolder && !current.isFolder { throw RecError.failure(path, "not a folder") }
        return .existing(current)
    }

    /// The folder a path's walk starts from, and the components left to walk.
    public func start(_ path: String) throws -> (Item, [String]) {
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
    public static func prefixNibbles(_ prefix: Substring, typed: String) throws -> [UInt8] {
        let digits = prefix.filter { $0 != "-" }.lowercased()
        guard digits.count >= minimumPrefix, digits.count <= 32, digits.allSatisfy(\.isHexDigit) else {
            throw RecError.usage(typed, "a UUID prefix needs \(minimumPrefix) to 32 hex digits after '@'")
        }
        return digits.utf8.compactMap(hexValue)
    }

    /// The item whose UUID starts with `prefix`; dashes in the prefix are ignored.
    public func byPrefix(_ prefix: String, typed: String) throws -> Item {
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

    private func joined(_ parent: String, _ name: String) -> String {
        parent == "/" ? "/" + name : parent + "/" + name
    }
}

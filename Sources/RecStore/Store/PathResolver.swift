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

    /// Where a path leads in the document (`PathWalker.Location`).
    package typealias Location = PathWalker<Document>.Location

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

    /// The one walk of a path (`PathWalker.walk`), through the document.
    package func walk(_ path: String) throws -> Location {
        try PathWalker(document).walk(path, from: document[currentFolder] ?? document.root)
    }

    /// What a path whose `names` are missing under `parent` is told: the item, when only the
    /// last name is missing, otherwise the first folder missing. `hint` says how to go on.
    package func missing(_ path: String, parent: Item, names: [String], hint: String? = nil) -> RecError {
        PathWalker(document).missing(path, parent: parent, names: names, hint: hint)
    }

    /// Names under a folder's path, as a path: `/` and `[a, b]` are `/a/b`.
    static func joined(_ parent: String, _ names: [String]) -> String {
        names.reduce(parent) { $0 == "/" ? "/" + $1 : $0 + "/" + $1 }
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
}

/// What a path is walked through: the whole document, or a table of it that the store keeps
/// (the reads' table, `find`'s index), which answers each question as the document would.
package protocol ItemTree {
    associatedtype Node
    var rootNode: Node { get }
    func id(of node: Node) -> ItemID
    func parent(of node: Node) -> Node?
    func isFolder(_ node: Node) -> Bool
    /// The first child named `name` of the folder `folder`, in display order.
    func child(named name: String, in folder: Node) -> Node?
    func node(withID id: ItemID) -> Node?
    /// Every item whose UUID starts with `nibbles`; nil when the tree does not hold every
    /// item of the document, so that one match in it may not be one in the document.
    func nodes(withPrefix nibbles: [UInt8]) -> [Node]?
    /// The absolute path of the item, for messages.
    func path(of node: Node) -> String
}

extension ItemTree {
    /// The folder a view state's folder stack leaves the user in: its deepest folder still
    /// there, or the root.
    package func deepestFolder(of stack: [ItemID]) -> Node {
        for id in stack.reversed() {
            if let node = node(withID: id), isFolder(node) { return node }
        }
        return rootNode
    }
}

/// The one walk of a path, over any `ItemTree`: `.` stays, `..` climbs (past the root it
/// stays there, and after a missing name it takes that name back), a name steps into a
/// folder's child. Names are checked as they are read; a name under a recording is an
/// error, as is a trailing `/` after one. The errors are the user's, whatever the tree: one
/// that answers only when it can (a table) treats any error as "ask the document".
package struct PathWalker<Tree: ItemTree> {
    package let tree: Tree

    package init(_ tree: Tree) { self.tree = tree }

    /// Where a path leads, whatever is missing: an existing item, or the names that are not
    /// there yet below the deepest existing folder on the way (`mkdir -p` makes them; the
    /// trash knows the path they spell). `endsInSlash`: the path ended in `/`, so its last
    /// name is meant as a folder too.
    package enum Location {
        case existing(Tree.Node)
        case missing(parent: Tree.Node, names: [String], endsInSlash: Bool)
    }

    /// Where `path` leads from the folder `current`; `visit` sees each item stepped into.
    package func walk(_ path: String, from current: Tree.Node, visit: (Tree.Node) -> Void = { _ in }) throws
        -> Location
    {
        guard !path.isEmpty else { throw RecError.usage("''", "a path cannot be empty") }
        var components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var current = current
        if path.hasPrefix("/") {
            current = tree.rootNode
        } else if path.hasPrefix("@"), let first = components.first {
            components.removeFirst()
            current = try byPrefix(String(first.dropFirst()), typed: first)
        }
        visit(current)
        let endsInSlash = path.hasSuffix("/") && path.count > 1
        var missing: [String] = []
        for (index, component) in components.enumerated() {
            switch component {
            case ".":
                continue
            case "..":
                if missing.isEmpty {
                    current = tree.parent(of: current) ?? current
                } else {
                    missing.removeLast()
                }
                continue
            default:
                try NameRules.validate(component)
            }
            if !missing.isEmpty {
                missing.append(component)
            } else if !tree.isFolder(current) {
                throw notAFolder(path, current)
            } else if let child = tree.child(named: component, in: current) {
                if !tree.isFolder(child) && index < components.count - 1 { throw notAFolder(path, child) }
                current = child
                visit(child)
            } else {
                missing.append(component)
            }
        }
        if !missing.isEmpty { return .missing(parent: current, names: missing, endsInSlash: endsInSlash) }
        if endsInSlash && !tree.isFolder(current) { throw RecError.failure(path, "not a folder") }
        return .existing(current)
    }

    /// The existing item at `path`.
    package func resolve(_ path: String, from current: Tree.Node, visit: (Tree.Node) -> Void = { _ in }) throws
        -> Tree.Node
    {
        switch try walk(path, from: current, visit: visit) {
        case .existing(let node): return node
        case .missing(let parent, let names, _): throw missing(path, parent: parent, names: names)
        }
    }

    /// What a path whose `names` are missing under `parent` is told: the item, when only the
    /// last name is missing, otherwise the first folder missing. `hint` says how to go on.
    package func missing(_ path: String, parent: Tree.Node, names: [String], hint: String? = nil) -> RecError {
        let reason =
            names.count == 1
            ? "no such folder or recording"
            : "no such folder: \(PathResolver.joined(tree.path(of: parent), [names[0]]))"
        return RecError.failure(path, hint.map { "\(reason) (\($0))" } ?? reason)
    }

    private func notAFolder(_ path: String, _ node: Tree.Node) -> RecError {
        RecError.failure(path, "\(tree.path(of: node)) is not a folder")
    }

    /// The item whose UUID starts with `prefix`; dashes in the prefix are ignored.
    private func byPrefix(_ prefix: String, typed: String) throws -> Tree.Node {
        let nibbles = try PathResolver.prefixNibbles(Substring(prefix), typed: typed)
        let digits = String(nibbles.map { Character(String($0, radix: 16)) })
        guard let matches = tree.nodes(withPrefix: nibbles) else {
            throw RecError.failure(typed, "this table of the store does not hold every item")
        }
        switch matches.count {
        case 0:
            throw RecError.failure(typed, "no item has a UUID starting with \(digits)")
        case 1:
            return matches[0]
        default:
            let listed = matches.sorted { tree.id(of: $0) < tree.id(of: $1) }.prefix(10).map {
                "@\(String(tree.id(of: $0).hexDigits.prefix(12))) \(tree.path(of: $0))"
            }
            let more = matches.count > 10 ? ", and \(matches.count - 10) more" : ""
            throw RecError.failure(
                typed,
                "ambiguous UUID prefix, matching \(matches.count) items: \(listed.joined(separator: ", "))\(more)")
        }
    }
}

extension Document: ItemTree {
    package var rootNode: Item { root }
    package func id(of node: Item) -> ItemID { node.id }
    package func parent(of node: Item) -> Item? { node.parent.flatMap { items[$0] } }
    package func isFolder(_ node: Item) -> Bool { node.isFolder }
    package func child(named name: String, in folder: Item) -> Item? { child(named: name, in: folder.id) }
    package func node(withID id: ItemID) -> Item? { items[id] }
    package func nodes(withPrefix nibbles: [UInt8]) -> [Item]? {
        items.values.filter { $0.id.hasPrefix(nibbles: nibbles) }
    }
    package func path(of node: Item) -> String { path(of: node.id) }
}

extension PathWalker.Location: Equatable where Tree.Node: Equatable {}

/// The server's write routes (issue 27, "Small writes"): `POST /api/<route>`, each the CLI
/// command of its name made through the same transaction (so undo, the journal, history and
/// sync see it), answering what that command prints with `--json`: the items it changed.
/// Who may write (the token header, the origin, `--read-only`) is the HTTP side's to check.
extension LibraryAPI {
    /// The write routes and the parameters each takes (`path` names the item, as for reads).
    public static let writeRoutes: [(route: String, parameters: [String])] = [
        ("mark", ["path", "at", "label"]),  // mark PATH --at TIME [LABEL]
        ("tag", ["path", "add", "remove"]),  // tag PATH +ADD... -REMOVE... (add, remove repeat)
        ("note", ["path"]),  // note PATH --set BODY (the request's body, UTF-8; empty removes it)
    ]

    /// The answer of `POST /api/<route>` with the request's query parameters and body.
    public static func write(
        _ route: String, parameters: [(String, String)], body: [UInt8], location: StoreLocation
    ) -> Answer {
        answering {
            guard let known = writeRoutes.first(where: { $0.route == route })?.parameters else {
                let names = writeRoutes.map(\.route).joined(separator: ", ")
                return .error(404, "POST /api/\(route): no such write route (there are \(names))")
            }
            for (key, _) in parameters where !known.contains(key) {
                throw RecError.usage(key, "\(route) has no such parameter")
            }
            func values(_ key: String) -> [String] { parameters.filter { $0.0 == key }.map(\.1) }
            let path = storePath(values("path").last)
            let library = try Library(location: location)
            _ = try found { try library.item(at: path) }
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
                try library.documents.transaction { tx in _ = try tx.setNote(text, at: path, from: .root) }
            default:
                preconditionFailure("a write route without its case: \(route)")
            }
            return json(changed.json)
        }
    }
}

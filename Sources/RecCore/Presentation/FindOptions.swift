import RecStore

/// `find`'s filters as typed, by the CLI's options or the server's `/api/find` parameters
/// (the same names): one place turns them into a `SearchQuery`, so both check them alike.
package struct FindOptions: Sendable {
    package var name: String?
    package var iname: String?
    package var type: ItemKind?
    package var tags: [String] = []
    package var text: String?
    package var after: String?
    package var before: String?
    package var longer: String?
    package var shorter: String?

    package init() {}

    /// Every filter checked before the store is opened: a bad tag, date or time is a usage error.
    package func query() throws -> SearchQuery {
        var query = SearchQuery()
        query.namePattern = name
        query.caselessNamePattern = iname
        query.kind = type
        for tag in tags { try TagRules.validate(tag) }
        query.tags = tags
        if let text { query.setText(text) }
        query.after = try after.map { try DateSpec.parse($0, option: "--after") }
        query.before = try before.map { try DateSpec.parse($0, option: "--before") }
        query.longer = try longer.map { try TimeSpec.length($0, option: "--longer") }
        query.shorter = try shorter.map { try TimeSpec.length($0, option: "--shorter") }
        return query
    }
}

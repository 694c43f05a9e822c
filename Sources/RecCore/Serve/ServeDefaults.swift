import RecSystem

/// `recnotes serve`'s documented defaults, which the CLI's `--help` and the server share.
package enum ServeDefaults {
    package static let host = "127.0.0.1"
    /// Unassigned by IANA and not one that development servers usually take (8080, 8000, 8888).
    package static let port = 8930
    /// The server's executable, looked for beside the running `recnotes`.
    package static let executable = "recnotes-serve"

    /// Where `recnotes serve` looks for the server, in order, given the directory of the
    /// running `recnotes`: beside it (a build tree, `make install`), then in
    /// `libexec/recnotes` next to its `bin` (the .deb: /usr/libexec/recnotes, as git keeps its
    /// helpers, since users never run the server by its own name).
    package static func executablePaths(besideDirectory directory: String) -> [String] {
        let parent: String
        if let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
            parent = String(directory[..<slash])
        } else {
            parent = ""
        }
        return [directory + "/" + executable, parent + "/libexec/recnotes/" + executable]
    }

    /// The `recnotes` beside the running server, as `executablePaths` placed it (so, from
    /// `libexec/recnotes`, in `bin` next to it); nil when the running program is not the
    /// server.
    package static func cliExecutable(ofServer path: String = DetachedProcess.currentExecutable) -> String? {
        guard FileSystem.baseName(of: path) == executable, let slash = path.lastIndex(of: "/") else { return nil }
        let directory = String(path[..<slash])
        let helpers = "/libexec/recnotes"
        if directory.hasSuffix(helpers) { return directory.dropLast(helpers.count) + "/bin/recnotes" }
        return directory + "/recnotes"
    }
}

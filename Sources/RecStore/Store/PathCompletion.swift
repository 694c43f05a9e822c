import RecSystem

/// Shell completion of store paths: what TAB offers after `recnotes play Ideas/st`.
/// It only reads: a completion must never create a store or rewrite a view state.
package enum PathCompletion {
    /// Candidates for `prefix`, as paths the user can type: folders end in `/`.
    package static func candidates(words: [String], prefix: String, environment: [String: String]) -> [String] {
        guard let location = try? StoreLocation.resolve(explicit: storeOption(in: words), environment: environment),
            let bytes = try? FileSystem.read(location.storeFile),
            let (document, _) = try? bytes.withUnsafeBufferPointer({ try DocumentCodec.decode($0) })
        else { return [] }
        var current = ItemID.root
        if let state = ViewStateStore.peek(location) {
            current = state.restored(against: document).currentFolder
        }
        let resolver = PathResolver(document: document, currentFolder: current)
        let slash = prefix.lastIndex(of: "/")
        let folderPart = slash.map { String(prefix[...$0]) } ?? ""
        let namePart = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        guard let folder = try? (folderPart.isEmpty ? document[current] : resolver.resolve(folderPart)), folder.isFolder
        else {
            return []
        }
        return document.children(of: folder.id)
            .filter { $0.name.hasPrefix(namePart) }
            .sorted(by: displayOrder)
            .map { folderPart + $0.name + ($0.isFolder ? "/" : "") }
    }

    /// The value of `--store DIR` or `--store=DIR` among the words typed so far.
    static func storeOption(in words: [String]) -> String? {
        var value: String?
        for (i, word) in words.enumerated() {
            if word == "--store", i + 1 < words.count { value = unquoted(words[i + 1]) }
            if word.hasPrefix("--store=") { value = unquoted(String(word.dropFirst(8))) }
        }
        return value
    }

    /// Shell words arrive verbatim; a quoted or escaped store path is taken plainly.
    private static func unquoted(_ word: String) -> String {
        var result = ""
        var escaped = false
        for c in word {
            if escaped {
                result.append(c)
                escaped = false
                continue
            }
            if c == "\\" {
                escaped = true
                continue
            }
            if c == "'" || c == "\"" { continue }
            result.append(c)
        }
        return result
    }
}

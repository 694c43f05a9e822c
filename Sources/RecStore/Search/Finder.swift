import RecSystem

/// `find`: from the index when it is current (`ItemIndex`); else the library is opened as
/// every command opens it, the index made again from it (and written), and the search done
/// on that. The document search is left for when no index can be made. Every way gives the
/// same answer, path for path.
package enum Finder {
    package struct Found {
        package var location: StoreLocation
        /// Each hit's path, in order.
        package var paths: [String]
        /// What opening the view state found wrong (the document path prints its own).
        package var warnings: [String]
        /// With `details`: each hit, its whole item and where the text matched, made as
        /// `forEachHit` goes (from the index: read from store.json then, none held).
        fileprivate var source: HitSource

        /// Calls `body` with each hit (its index in `paths`, the hit), in order; nothing
        /// without `details`. From the index, store.json was opened and checked to be the
        /// file the index was made from before `find` returned; should an item still not
        /// read as the index says (store.json changed in place by something other than
        /// recnotes while it was read), it throws after the hits before it, which a caller
        /// may have printed. Items for showing: from the index, the markers of a store older
        /// than version 4 have no ids (`Marker.unassigned`; no output shows one).
        package func forEachHit(_ body: (Int, SearchHit) throws -> Void) throws {
            switch source {
            case .held(let hits):
                for (k, hit) in hits.enumerated() { try body(k, hit) }
            case .index(let reader):
                try reader.forEach(body)
            }
        }

        /// Every hit at once (`forEachHit`).
        package func hits() throws -> [SearchHit] {
            var hits: [SearchHit] = []
            try forEachHit { hits.append($1) }
            return hits
        }
    }

    fileprivate enum HitSource {
        case held([SearchHit])
        case index(IndexHits)
    }

    /// The index's hits, read from store.json as they are asked for.
    fileprivate struct IndexHits {
        let index: ItemIndex
        let positions: [Int]
        let store: ItemIndex.StoreFile
        let query: SearchQuery
        let files: TranscriptFiles

        func forEach(_ body: (Int, SearchHit) throws -> Void) throws {
            let matcher = HitMatcher(index: index, query: query, files: files)
            var thrown: Error?
            let whole = index.forEachItem(at: positions, in: store) { k, item in
                guard let hit = matcher.hit(item, at: positions[k]) else { return false }
                do { try body(k, hit) } catch {
                    thrown = error
                    return false
                }
                return true
            }
            if let thrown { throw thrown }
            guard whole else {
                throw RecError.failure("store.json", "changed while find read it (not by recnotes); run find again")
            }
        }
    }

    /// The items under the folder at `path` (the current folder when nil) that match `query`.
    /// `openLibrary` opens the store as every command does: it is called only when the
    /// index cannot answer, and its errors are `find`'s.
    package static func find(
        _ query: SearchQuery, in path: String?, details: Bool, location: StoreLocation,
        openLibrary: () throws -> Library
    ) throws -> Found {
        if let found = fromIndex(query, in: path, details: details, location: location) { return found }
        let library = try openLibrary()
        let top = try library.item(at: path)
        let files = TranscriptFiles(location: library.location)
        // The index made again (or the one that is still current: after a change to
        // store.json, the transcripts' is), and the search done on it.
        let indexes = SearchIndexFiles.refresh(library, transcripts: query.hasTextFilters)
        if let index = indexes.items, let position = index.position(of: top.id) {
            let positions = index.search(query, under: position, transcripts: indexes.transcripts)
            if let hits = details
                ? hits(
                    at: positions, in: index, query, files, item: { library.document[index.items[positions[$0]].id] })
                : []
            {
                return Found(
                    location: library.location, paths: positions.map(index.path(at:)), warnings: [],
                    source: .held(hits))
            }
        }
        // No index (store.json changed since it was read): the document itself.
        let hits = library.document.search(query, under: top.id, transcripts: query.hasTextFilters ? files : nil)
        return Found(
            location: library.location, paths: library.document.paths(of: hits.lazy.map(\.item)), warnings: [],
            source: .held(details ? hits : []))
    }

    /// Where each of the index's hits matched, from its whole item (`item(k)` is the one at
    /// `positions[k]`) and the text the index holds folded (not folded again); nil if an
    /// item is missing or does not match after all (which would be a bug: the index is exact).
    private static func hits(
        at positions: [Int], in index: ItemIndex, _ query: SearchQuery, _ files: TranscriptFiles,
        item: (Int) -> Item?
    ) -> [SearchHit]? {
        let matcher = HitMatcher(index: index, query: query, files: files)
        var hits: [SearchHit] = []
        hits.reserveCapacity(positions.count)
        for (k, position) in positions.enumerated() {
            guard let item = item(k), let hit = matcher.hit(item, at: position) else { return nil }
            hits.append(hit)
        }
        return hits
    }

    /// The hits of one search on the index, as their items come.
    fileprivate struct HitMatcher {
        let index: ItemIndex
        let query: SearchQuery
        let files: TranscriptFiles
        let indexes: TranscriptFiles.IndexReader?

        init(index: ItemIndex, query: SearchQuery, files: TranscriptFiles) {
            self.index = index
            self.query = query
            self.files = files
            indexes = query.hasTextFilters ? TranscriptFiles.IndexReader(files) : nil
        }

        /// nil when `item` (the index's at `position`) does not match.
        func hit(_ item: Item, at position: Int) -> SearchHit? {
            index.withFoldedFields(
                at: position, { query.match(item, folded: $0, transcripts: files, indexes: indexes) })
        }
    }

    /// nil whenever the index cannot answer as the document would: no index or a stale one,
    /// a recording to recover (a change), or a path that does not name an item (the
    /// document's error says why).
    static func fromIndex(_ query: SearchQuery, in path: String?, details: Bool, location: StoreLocation) -> Found? {
        guard let index = ItemIndex.current(at: location) ?? ItemIndex.caughtUp(at: location) else { return nil }
        // After a transcription, only the transcripts' index is stale: it is made again
        // here, reading only the files that changed, and the store is not opened.
        let transcripts = query.hasTextFilters ? SearchIndexFiles.currentTranscripts(location) : nil
        guard let viewState = try? ViewStateStore(location: location) else { return nil }
        if let recording = viewState.state.recording, !processIsAlive(recording.pid) { return nil }
        // A folder's path is the index's to resolve; whatever else it names (a recording,
        // nothing) the document answers. A UUID prefix is unique or not among all items.
        guard
            let position = try? PathWalker(index).resolve(
                path ?? ".", from: index.deepestFolder(of: viewState.state.folderStack)),
            index.items[position].isFolder || (path ?? "").hasPrefix("@")
        else { return nil }
        let positions = index.search(query, under: position, transcripts: transcripts)
        var source = HitSource.held([])
        if details {
            // Whether the items can be read is decided here, before anything is printed;
            // they are read and matched as the caller writes them, none held.
            guard let store = ItemIndex.StoreFile(index, location: location) else { return nil }
            source = .index(
                IndexHits(
                    index: index, positions: positions, store: store, query: query,
                    files: TranscriptFiles(location: location)))
        }
        return Found(
            location: location, paths: positions.map(index.path(at:)), warnings: viewState.warnings, source: source)
    }
}

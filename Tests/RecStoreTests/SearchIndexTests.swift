import PropertyBased
import RecSystem
import RecTestSupport
import RecValues
import Testing

@testable import RecStore

#if canImport(Glibc)
    import Glibc
#endif

/// `find`'s index (`ItemIndex`, `TranscriptIndex`) must answer exactly as the document
/// search does, and must never answer once what it was made from has changed.
@Suite("find's index")
struct SearchIndexTests {
    /// A deterministic generator (the property-test library's), so that a failure names a
    /// seed that reproduces it.
    static func generator(_ seed: UInt64) -> Xoshiro { Xoshiro(seed: (seed, ~seed, 0x9E37_79B9_7F4A_7C15, 1)) }

    static let vocabulary = [
        "budget", "Zürich", "zurich", "café", "CAFE", "Straße", "strasse", "q3", "hiring", "Œuvre",
        "naïve", "日本語", "ПРИВЕТ", "road", "map", "x", "Budget-Plan", "e\u{301}te\u{301}",
    ]
    static let tags = ["work", "q3", "draft", "urgent", "zürich"]

    /// A store of folders and recordings with notes, tags, markers and transcripts (some of
    /// them in the trash), written through the usual transactions.
    static func makeStore(in directory: TemporaryDirectory, seed: UInt64) throws -> [ItemID] {
        var random = Self.generator(seed)
        func words(_ count: Int) -> String {
            (0..<count).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " ")
        }
        let library = try Library(location: directory.location)
        var folders: [ItemID] = [.root]
        var recordings: [ItemID] = []
        try library.documents.transaction { tx in
            for k in 0..<40 {
                let parent = folders.randomElement(using: &random)!
                let created = Timestamp(
                    millisecondsSinceEpoch: 1_700_000_000_000 + Int64.random(in: 0...100_000_000_000, using: &random))
                var item: Item
                if k % 4 == 0 {
                    item = Item.folder(name: "f\(k) \(words(1))", parent: parent, created: created)
                    folders.append(item.id)
                } else {
                    let id = ItemID.random()
                    item = Item.recording(
                        id: id,
                        name: (["r\(k)"] + [words(Int.random(in: 0...2, using: &random))].filter { !$0.isEmpty })
                            .joined(separator: " "), parent: parent,
                        created: created, info: Fixture.info(id, duration: Double.random(in: 1...600, using: &random)))
                    item.annotations.markers = (0..<Int.random(in: 0...3, using: &random)).map { m in
                        Marker(frame: Int64(m) * 48000 * 3, label: m == 0 ? "" : words(1))
                    }
                    recordings.append(id)
                }
                item.annotations.note = Bool.random(using: &random) ? words(Int.random(in: 1...8, using: &random)) : ""
                item.annotations.tags = Array(
                    Set((0..<Int.random(in: 0...2, using: &random)).map { _ in tags.randomElement(using: &random)! })
                ).sorted()
                try tx.add(item)
            }
            try tx.remove(recordings[0])
        }
        let files = TranscriptFiles(location: directory.location)
        for id in recordings where Bool.random(using: &random) {
            let segments = (0..<Int.random(in: 1...4, using: &random)).map { s in
                Transcript.Segment(
                    start: Double(s) * 2, end: Double(s) * 2 + 2, text: words(Int.random(in: 1...6, using: &random)))
            }
            try files.write(
                Transcript(engine: "test", model: "", created: Fixture.created, quality: .draft, segments: segments),
                for: id, duration: 600)
        }
        return folders
    }

    /// Sets the sources' times ten seconds back: a source changed within the last second
    /// is not trusted (`SourceIdentity.of`), and these were all just written.
    static func age(_ location: StoreLocation) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var times = [timespec(tv_sec: now.tv_sec - 10, tv_nsec: 0), timespec(tv_sec: now.tv_sec - 10, tv_nsec: 0)]
        for path in [location.storeFile, location.transcriptsDirectory] { utimensat(AT_FDCWD, path, &times, 0) }
    }

    /// The index made as `find` makes it, from a library opened afresh.
    static func indexed(_ location: StoreLocation) throws -> Library {
        age(location)
        let library = try Library(location: location)
        SearchIndexFiles.refresh(library, transcripts: true)
        return library
    }

    static func randomQuery(_ random: inout Xoshiro) -> SearchQuery {
        var query = SearchQuery()
        switch Int.random(in: 0..<4, using: &random) {
        case 0: query.setText(vocabulary.randomElement(using: &random)!)
        case 1: query.setText((0..<2).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " "))
        case 2: query.setText(String(TextFolding.fold(vocabulary.randomElement(using: &random)!).prefix(3)))
        default: break
        }
        if Int.random(in: 0..<3, using: &random) == 0 { query.tags = [tags.randomElement(using: &random)!] }
        if Int.random(in: 0..<4, using: &random) == 0 {
            query.kind = Bool.random(using: &random) ? .folder : .recording
        }
        if Int.random(in: 0..<4, using: &random) == 0 { query.longer = Double.random(in: 0...600, using: &random) }
        if Int.random(in: 0..<4, using: &random) == 0 { query.shorter = Double.random(in: 0...600, using: &random) }
        if Int.random(in: 0..<4, using: &random) == 0 {
            query.after = Timestamp(
                millisecondsSinceEpoch: 1_700_000_000_000 + Int64.random(in: 0...100_000_000_000, using: &random))
        }
        if Int.random(in: 0..<5, using: &random) == 0 {
            query.namePattern = ["r1*", "*budget*", "f*", "*[0-9] *"].randomElement(using: &random)!
        }
        if Int.random(in: 0..<5, using: &random) == 0 {
            query.caselessNamePattern = ["*ZÜRICH*", "*Budget*", "R2*"].randomElement(using: &random)!
        }
        return query
    }

    @Test("the index finds what the document search finds, hit for hit", arguments: [1, 2, 3] as [UInt64])
    func sameAnswers(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let folders = try Self.makeStore(in: directory, seed: seed)
        let library = try Self.indexed(directory.location)
        let files = TranscriptFiles(location: directory.location)
        var random = Self.generator(seed &* 7919)
        var nonEmpty = 0
        for round in 0..<150 {
            let query = Self.randomQuery(&random)
            let top = folders.randomElement(using: &random)!
            let path =
                round % 3 == 0
                ? nil : round % 3 == 1 ? library.document.path(of: top) : "@" + String(top.hexDigits.prefix(8))
            let found = try #require(
                Finder.fromIndex(query, in: path, details: true, location: directory.location),
                "seed \(seed), round \(round): the index did not answer")
            let expected = library.document.search(query, under: path == nil ? .root : top, transcripts: files)
            #expect(found.paths == library.document.paths(of: expected.map(\.item)), "seed \(seed), round \(round)")
            #expect(try found.hits() == expected, "seed \(seed), round \(round)")
            if !expected.isEmpty { nonEmpty += 1 }
        }
        // The comparison means something only if searches find things, and not always.
        #expect(nonEmpty > 30 && nonEmpty < 150)

        // store.json just changed (its time now): the index is made again by the first
        // search, from the library as it was opened, and searched in memory; the next ones
        // use it, store.json's bytes being the same.
        utimensat(AT_FDCWD, directory.location.storeFile, nil, 0)
        for round in 0..<30 {
            let query = Self.randomQuery(&random)
            let top = folders.randomElement(using: &random)!
            if round == 0 {
                #expect(Finder.fromIndex(query, in: nil, details: false, location: directory.location) == nil)
            }
            let found = try Finder.find(
                query, in: library.document.path(of: top), details: round % 2 == 0,
                location: directory.location
            ) { try Library(location: directory.location) }
            let expected = library.document.search(query, under: top, transcripts: files)
            #expect(
                found.paths == library.document.paths(of: expected.map(\.item)), "seed \(seed), stale round \(round)")
            #expect(try found.hits() == (round % 2 == 0 ? expected : []), "seed \(seed), stale round \(round)")
        }
    }

    @Test("a transcript's words are found through the index, with the segment's time")
    func transcriptHits() throws {
        let directory = try TemporaryDirectory()
        let library = try Library(location: directory.location)
        let id = ItemID.random()
        try library.documents.transaction { tx in
            try tx.add(Item.recording(id: id, name: "lecture", parent: .root, info: Fixture.info(id, duration: 60)))
        }
        let segments = [
            Transcript.Segment(start: 0, end: 4, text: "good morning everyone"),
            Transcript.Segment(start: 4, end: 9, text: "the Ångström unit matters"),
        ]
        try TranscriptFiles(location: directory.location).write(
            Transcript(engine: "test", model: "", created: Fixture.created, quality: .draft, segments: segments),
            for: id, duration: 60)
        _ = try Self.indexed(directory.location)
        var query = SearchQuery()
        query.setText("angstrom")
        let found = try #require(Finder.fromIndex(query, in: "/", details: true, location: directory.location))
        #expect(found.paths == ["/lecture"])
        #expect(try found.hits().first?.time == 4)
        query.setText("morning angstrom")
        #expect(Finder.fromIndex(query, in: "/", details: false, location: directory.location)?.paths == ["/lecture"])
        // Words must each lie within one line: across two segments is not a match.
        query.setText("everyone the")
        #expect(Finder.fromIndex(query, in: "/", details: false, location: directory.location)?.paths == ["/lecture"])
        query.setText("everyonethe")
        #expect(Finder.fromIndex(query, in: "/", details: false, location: directory.location)?.paths == [])
    }

    @Test(
        "the hits come from the store.json checked before find answers; changed in place while read, an error after the hits before"
    )
    func hitsReadFromTheCheckedFile() throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        let library = try Library(location: location)
        let ids = (0..<3).map { _ in ItemID.random() }
        try library.documents.transaction { tx in
            for (k, id) in ids.enumerated() {
                try tx.add(
                    Item.recording(id: id, name: "budget \(k)", parent: .root, info: Fixture.info(id, duration: 60)))
            }
        }
        _ = try Self.indexed(location)
        var query = SearchQuery()
        query.setText("budget")
        let first = try #require(Finder.fromIndex(query, in: "/", details: true, location: location))
        let second = try #require(Finder.fromIndex(query, in: "/", details: true, location: location))
        let names = ["budget 0", "budget 1", "budget 2"]
        // The checked file kept under another name, and store.json replaced as recnotes
        // replaces it (a new file renamed over it), with the items' names changed.
        let held = directory.path + "/held.json"
        #expect(link(location.storeFile, held) == 0)
        let bytes = try #require(try FileSystem.read(location.storeFile))
        let renamed = String(decoding: bytes, as: UTF8.self).split(
            separator: "budget", omittingEmptySubsequences: false
        )
        .joined(separator: "BUDGET")
        try FileSystem.writeAtomically(Array(renamed.utf8), to: location.storeFile)
        #expect(try first.hits().map(\.item.name) == names)
        // The checked file changed in place (never by recnotes): the second item's uuid is
        // another one's now.
        let key = Array("{\"uuid\": \"\(ids[1])\"".utf8)
        let offset = try #require(bytes.firstRange(of: key)).upperBound - 2
        let fd = open(held, O_WRONLY)
        #expect(fd >= 0)
        let digit: UInt8 = bytes[offset] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(withUnsafeBytes(of: digit) { pwrite(fd, $0.baseAddress, 1, off_t(offset)) } == 1)
        close(fd)
        var seen: [String] = []
        #expect(throws: RecError.self) { try second.forEachHit { seen.append($1.item.name) } }
        #expect(seen == ["budget 0"])
    }

    @Test(
        "a change to store.json not made by the store, or to transcripts/, makes the index stale; find makes it again")
    func staleAfterChanges() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.makeStore(in: directory, seed: 9)
        var library = try Self.indexed(directory.location)
        var query = SearchQuery()
        query.tags = ["brand-new"]
        #expect(Finder.fromIndex(query, in: nil, details: false, location: directory.location)?.paths == [])
        let someone = library.document.preorder().last!
        // Written as another program would (an older recnotes, an editor): the store does
        // not see it, and the index names the file before.
        var changed = library.document
        var transaction = DocumentStore.Transaction(document: changed)
        _ = try transaction.tag([changed.path(of: someone.id)], adding: ["brand-new"], removing: [], from: .root)
        changed = transaction.document
        try FileSystem.writeAtomically(DocumentCodec.encode(changed), to: directory.location.storeFile)
        #expect(ItemIndex.current(at: directory.location) == nil)
        #expect(Finder.fromIndex(query, in: nil, details: false, location: directory.location) == nil)
        let found = try Finder.find(query, in: nil, details: false, location: directory.location) {
            try Library(location: directory.location)
        }
        #expect(found.paths == [library.document.path(of: someone.id)])

        library = try Self.indexed(directory.location)
        query = SearchQuery()
        query.setText("zzyzx")
        #expect(Finder.fromIndex(query, in: nil, details: false, location: directory.location)?.paths == [])
        let recording = try #require(library.document.preorder().last { $0.recording != nil })
        try TranscriptFiles(location: directory.location).write(
            Transcript(
                engine: "test", model: "", created: Fixture.created, quality: .draft,
                segments: [Transcript.Segment(start: 1, end: 2, text: "zzyzx road")]), for: recording.id, duration: 600)
        #expect(TranscriptIndex.current(at: directory.location) == nil)
        // Only the transcripts' index is stale: it is made again without opening the store.
        let again = try #require(Finder.fromIndex(query, in: nil, details: false, location: directory.location))
        #expect(again.paths == [library.document.path(of: recording.id)])
    }

    @Test("making the transcripts' index again reads only the files that changed")
    func transcriptsIndexLendsUnchangedText() throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        let library = try Library(location: location)
        let (first, second) = (ItemID.random(), ItemID.random())
        try library.documents.transaction { tx in
            try tx.add(Item.recording(id: first, name: "first", parent: .root, info: Fixture.info(first, duration: 60)))
            try tx.add(
                Item.recording(id: second, name: "second", parent: .root, info: Fixture.info(second, duration: 60)))
        }
        let files = TranscriptFiles(location: location)
        func say(_ text: String, _ id: ItemID) throws {
            try files.write(
                Transcript(
                    engine: "test", model: "", created: Fixture.created, quality: .draft,
                    segments: [Transcript.Segment(start: 1, end: 2, text: text)]), for: id, duration: 60)
        }
        try say("alpha words", first)
        try say("beta words", second)
        var old = timespec()
        clock_gettime(CLOCK_REALTIME, &old)
        old.tv_sec -= 10
        old.tv_nsec = 0
        func age(_ path: String) {
            var times = [old, old]
            utimensat(AT_FDCWD, path, &times, 0)
        }
        for path in [
            files.indexPath(of: first), files.indexPath(of: second), location.transcriptsDirectory, location.storeFile,
        ] { age(path) }
        _ = try Self.indexed(location)
        #expect(TranscriptIndex.current(at: location) != nil)

        // The first file changed in place, its identity kept (size, inode, time): its text
        // is lent from the index, not read. The second is replaced, as recnotes writes.
        let fd = open(files.indexPath(of: first), O_WRONLY)
        let bytes = Array("1\tzzzzz words\n".utf8)
        #expect(pwrite(fd, bytes, bytes.count, 0) == bytes.count)
        close(fd)
        age(files.indexPath(of: first))
        try say("gamma words", second)
        // Back in time again, but not to the time the index recorded.
        old.tv_sec += 1
        age(location.transcriptsDirectory)
        let remade = SearchIndexFiles.currentTranscripts(location)
        #expect(TranscriptIndex.current(at: location) != nil)
        func found(_ word: String) -> [String] {
            var query = SearchQuery()
            query.setText(word)
            return Finder.fromIndex(query, in: "/", details: false, location: location)?.paths ?? ["(no answer)"]
        }
        #expect(found("alpha") == ["/first"])
        #expect(found("zzzzz") == [])
        #expect(found("gamma") == ["/second"])
        #expect(found("beta") == [])
        // Made from nothing, it reads every file: the lent text is what differs.
        #expect(!TranscriptIndex.build(location: location).hasSameText(as: remade))
    }

    @Test("a source changed within the last second is trusted only with the same bytes")
    func racySources() throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        _ = try Library(location: location)
        guard case .recent = SourceIdentity.of(location.storeFile) else {
            Issue.record("a store.json just written should not be trusted by its identity")
            return
        }
        #expect(SourceIdentity.of(location.transcriptsDirectory) == .absent)
        Self.age(location)
        guard case .present = SourceIdentity.of(location.storeFile) else {
            Issue.record("an old store.json should be trusted")
            return
        }
        // A store never searched gets no index from its writes.
        let library = try Library(location: location)
        try library.documents.transaction { tx in _ = try tx.add(Item.folder(name: "new", parent: .root)) }
        #expect(!FileSystem.exists(location.itemIndexFile))
        // An index made from a recent source answers while store.json has the same bytes.
        SearchIndexFiles.refresh(try Library(location: location), transcripts: true)
        let index = try #require(ItemIndex.current(at: location))
        #expect(index.source == .recent(try #require(FileIdentity(path: location.storeFile))))
        // An edit in place in the same clock tick keeps the identity (inode, size, time):
        // the bytes tell.
        var info = stat()
        #expect(stat(location.storeFile, &info) == 0)
        var bytes = try #require(try FileSystem.read(location.storeFile))
        let at = try #require(bytes.firstIndex(of: UInt8(ascii: "n")))
        bytes[at] = UInt8(ascii: "m")
        let fd = open(location.storeFile, O_WRONLY)
        #expect(pwrite(fd, bytes, bytes.count, 0) == bytes.count)
        close(fd)
        var times = [info.st_atim, info.st_mtim]
        utimensat(AT_FDCWD, location.storeFile, &times, 0)
        #expect(FileIdentity(path: location.storeFile) == FileIdentity(info))
        #expect(ItemIndex.current(at: location) == nil)
    }

    @Test(
        "a write through the store keeps the index current, as a rebuild would make it",
        arguments: [21, 22] as [UInt64])
    func writesKeepIndex(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        _ = try Self.makeStore(in: directory, seed: seed)
        let library = try Self.indexed(location)
        let files = TranscriptFiles(location: location)
        var random = Self.generator(seed &* 31)
        var nonEmpty = 0
        for round in 0..<40 {
            let document = library.document
            let items = document.preorder().filter { $0.id != .root }
            let folders = document.preorder().filter(\.isFolder)
            let item = items.randomElement(using: &random)!
            let word = Self.vocabulary.randomElement(using: &random)!
            try library.documents.transaction { tx in
                switch Int.random(in: 0..<7, using: &random) {
                case 0:
                    var annotations = item.annotations
                    annotations.tags = Array(Set(annotations.tags + [Self.tags.randomElement(using: &random)!]))
                    _ = try tx.annotate(item.id, with: annotations)
                case 1:
                    var annotations = item.annotations
                    annotations.tags = Array(annotations.tags.dropFirst())
                    annotations.note = "\(word) \(round)"
                    _ = try tx.annotate(item.id, with: annotations)
                case 2:
                    _ = try tx.move(
                        item.id, into: item.parent!, name: document.freeName(word, in: item.parent!, except: nil))
                case 3:
                    let target = folders.randomElement(using: &random)!
                    guard target.id != item.id, !document.isDescendant(target.id, of: item.id) else { return }
                    _ = try tx.move(
                        item.id, into: target.id, name: document.freeName(item.name, in: target.id, except: item.id))
                case 4:
                    let parent = folders.randomElement(using: &random)!
                    try tx.add(
                        Item.folder(
                            name: document.freeName("\(word) \(round)", in: parent.id, except: nil), parent: parent.id))
                case 5:
                    let parent = folders.randomElement(using: &random)!
                    let id = ItemID.random()
                    var recording = Item.recording(
                        id: id, name: document.freeName("r \(word)", in: parent.id, except: nil), parent: parent.id,
                        info: Fixture.info(id, duration: Double(round) + 0.5))
                    recording.annotations.note = word
                    try tx.add(recording)
                default:
                    try tx.remove(item.id)
                }
            }
            // Current without a rebuild: it names the store.json just written, and holds what
            // a rebuild from a library opened afresh holds, byte for byte.
            let stored = try #require(
                try FileSystem.read(location.itemIndexFile), "seed \(seed), round \(round): no index")
            let index = try #require(
                ItemIndex.current(at: location), "seed \(seed), round \(round): the write left the index stale")
            // The store stamped the file's time as it wrote it (`FileSystem.stampModified`; the
            // test's file system keeps nanoseconds), so the index names it by its identity
            // alone, even within the second; a library that reads it afresh cannot know
            // that (within the second, it names it `recent`): only the rest is compared.
            let identity = try #require(FileIdentity(path: location.storeFile))
            #expect(index.source == .present(identity), "seed \(seed), round \(round)")
            let fresh = try Library(location: location)
            var rebuilt = try #require(ItemIndex.build(from: fresh))
            rebuilt.source = index.source
            let same = SearchIndexCodec.encode(rebuilt) == stored
            #expect(same, "seed \(seed), round \(round): the index differs from a rebuild")
            // And it answers as the document does.
            let query = Self.randomQuery(&random)
            let found = try #require(Finder.fromIndex(query, in: nil, details: true, location: location))
            let expected = fresh.document.search(query, under: .root, transcripts: files)
            #expect(found.paths == fresh.document.paths(of: expected.map(\.item)), "seed \(seed), round \(round)")
            #expect(try found.hits() == expected, "seed \(seed), round \(round)")
            if !expected.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty > 5)
    }

    @Test("a damaged index file is never used; one that reads but lies is what fsck reports and removes")
    func damagedIndexes() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.makeStore(in: directory, seed: 5)
        _ = try Self.indexed(directory.location)
        let location = directory.location
        let good = try #require(try FileSystem.read(location.itemIndexFile))
        #expect(ItemIndex.current(at: location) != nil)
        var random = Self.generator(11)
        // Cut short, zeroed, or with a word of its layout changed: each is refused.
        let headerAndRecords = 8 + 48 + 32 + (try #require(SearchIndexCodec.decodeItems(good))).items.count * 136
        for damaged in [
            Array(good.prefix(good.count / 2)), [UInt8](repeating: 0, count: good.count), Array(good.dropLast()),
        ]
            + (0..<40).map({ _ -> [UInt8] in
                var copy = good
                copy[Int.random(in: 8..<headerAndRecords, using: &random)] ^= 0x80
                return copy
            })
        {
            try FileSystem.writeAtomically(damaged, to: location.itemIndexFile, durable: false)
            if let index = ItemIndex.current(at: location) {
                // A flipped bit that still reads (a time, a length of a recording): fsck sees it.
                let library = try Library(location: location)
                #expect(
                    SearchIndexFiles.disagreeing(
                        with: library.document, itemRanges: try #require(library.documents.itemRanges),
                        location: location) == ["cache/find-items"])
                _ = index
            }
        }
        // A changed letter in the folded text: current by identity, but wrong.
        var lying = good
        let text = try #require(SearchIndexCodec.decodeItems(good)).items.last!.text
        lying[text.lowerBound] = lying[text.lowerBound] == 0x71 ? 0x72 : 0x71
        try FileSystem.writeAtomically(lying, to: location.itemIndexFile, durable: false)
        #expect(ItemIndex.current(at: location) != nil)
        let report = try StoreCheck(location: location, audio: NoAudioInspection()).run(repair: true)
        #expect(report.problems.contains(.wrongSearchIndex(file: "cache/find-items")))
        #expect(report.repairs.contains("removed cache/find-items, which find makes again"))
        #expect(!FileSystem.exists(location.itemIndexFile))
        #expect(
            !(try StoreCheck(location: location, audio: NoAudioInspection()).run(repair: false).problems.contains {
                if case .wrongSearchIndex = $0 { return true } else { return false }
            }))
    }

    @Test("a log of changes reads back record for record; one cut short or with a byte changed is not read")
    func logRecords() throws {
        var random = Self.generator(28)
        func identity() -> FileIdentity { LogChecks.identity(using: &random) }
        let records = (0..<5).map { k in
            ItemIndexLog.Record(
                base: k % 2 == 0 ? .present(identity()) : .recent(identity()),
                baseHash: UInt64.random(in: 0...UInt64.max, using: &random),
                made: .present(identity()),
                madeHash: k % 3 == 0 ? 0 : UInt64.random(in: 0...UInt64.max, using: &random),
                restructured: k % 2 == 1, changed: (0..<k).map { _ in ItemID.random() })
        }
        LogChecks.expectFramed(records, encode: ItemIndexLog.encode, decode: ItemIndexLog.decode, using: &random)
    }

    @Test(
        "tags and notes spliced through the table are logged, not written into the index; find patches it as a rebuild makes it",
        arguments: [23, 24] as [UInt64])
    func loggedChanges(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        _ = try Self.makeStore(in: directory, seed: seed)
        let files = TranscriptFiles(location: location)
        var random = Self.generator(seed &* 37)
        var caughtUp = 0
        for round in 0..<12 {
            // The reads' table and find's index made from the store as it is.
            let whole = try Self.indexed(location)
            StoreTable.refresh(whole)
            let indexBefore = try #require(try FileSystem.read(location.itemIndexFile))
            // A chain of changes, each spliced through the table the one before patched.
            let chain = Int.random(in: 1...4, using: &random)
            for step in 0..<chain {
                let fresh = try Library(location: location)
                let items = fresh.document.preorder().filter { $0.id != .root }
                let path = fresh.document.paths(of: [items.randomElement(using: &random)!])[0]
                let library = try #require(
                    Library.changing(location, paths: [path]), "seed \(seed), round \(round): not through the table")
                let item = try library.item(at: path)
                try library.documents.transaction { tx in
                    var annotations = item.annotations
                    // Each a change (a tag or note the item does not have), so each is logged.
                    if Bool.random(using: &random) {
                        annotations.tags.append("\(Self.tags.randomElement(using: &random)!)-\(round)-\(step)")
                    } else {
                        annotations.note = "\(Self.vocabulary.randomElement(using: &random)!) \(round) \(step)"
                    }
                    _ = try tx.annotate(item.id, with: annotations)
                }
            }
            let logged = try #require(try FileSystem.read(location.itemIndexLogFile), "seed \(seed), round \(round)")
            #expect(ItemIndexLog.decode(logged)?.count == chain, "seed \(seed), round \(round)")
            let untouched = try FileSystem.read(location.itemIndexFile) == indexBefore
            #expect(untouched, "seed \(seed), round \(round): the change wrote the index")
            #expect(ItemIndex.current(at: location) == nil, "seed \(seed), round \(round)")
            // Some rounds: another program's change between (the table made again from it),
            // which no record names: the chain does not reach it, and the index is not patched.
            let edited = Int.random(in: 0..<4, using: &random) == 0
            if edited {
                var text = String(decoding: try #require(try FileSystem.read(location.storeFile)), as: UTF8.self)
                text = text.replacingOccurrences(of: "\"budget", with: "\"edited")
                try FileSystem.writeAtomically(Array(text.utf8), to: location.storeFile)
                Self.age(location)
                StoreTable.refresh(try Library(location: location))
            }
            let patched = ItemIndex.caughtUp(at: location)
            #expect((patched == nil) == edited, "seed \(seed), round \(round)")
            guard let patched else { continue }
            caughtUp += 1
            #expect(!FileSystem.exists(location.itemIndexLogFile), "the log is dropped once taken in")
            let stored = try #require(try FileSystem.read(location.itemIndexFile))
            let written = SearchIndexCodec.encode(patched) == stored
            #expect(written, "seed \(seed), round \(round): not the index written")
            let fresh = try Library(location: location)
            var rebuilt = try #require(ItemIndex.build(from: fresh))
            rebuilt.source = patched.source
            rebuilt.contentHash = patched.contentHash
            let same = SearchIndexCodec.encode(rebuilt) == stored
            #expect(same, "seed \(seed), round \(round): not as a rebuild")
            let query = Self.randomQuery(&random)
            let found = try #require(Finder.fromIndex(query, in: nil, details: true, location: location))
            let expected = fresh.document.search(query, under: .root, transcripts: files)
            #expect(found.paths == fresh.document.paths(of: expected.map(\.item)), "seed \(seed), round \(round)")
        }
        #expect(caughtUp >= 6, "seed \(seed): \(caughtUp) rounds caught up")
    }

    @Test("a change finding the log past its limit drops the index and the log; the next find makes the index again")
    func logPastItsLimit() throws {
        let directory = try TemporaryDirectory()
        let location = directory.location
        _ = try Self.makeStore(in: directory, seed: 25)
        StoreTable.refresh(try Self.indexed(location))
        try FileSystem.writeAtomically(
            [UInt8](repeating: 7, count: ItemIndexLog.limit), to: location.itemIndexLogFile, durable: false)
        let fresh = try Library(location: location)
        let item = try #require(fresh.document.preorder().last { $0.id != .root })
        let path = fresh.document.paths(of: [item])[0]
        let library = try #require(Library.changing(location, paths: [path]))
        try library.documents.transaction { tx in
            var annotations = item.annotations
            annotations.note = "past the limit"
            _ = try tx.annotate(item.id, with: annotations)
        }
        #expect(!FileSystem.exists(location.itemIndexFile) && !FileSystem.exists(location.itemIndexLogFile))
        // A store without an index keeps no log: the next change appends nothing.
        let again = try #require(Library.changing(location, paths: [path]))
        try again.documents.transaction { tx in
            var annotations = item.annotations
            annotations.note = "still no index"
            _ = try tx.annotate(item.id, with: annotations)
        }
        #expect(!FileSystem.exists(location.itemIndexLogFile))
        var query = SearchQuery()
        query.setText("still")
        let found = try Finder.find(
            query, in: nil, details: false, location: location, openLibrary: { try Library(location: location) })
        #expect(found.paths == [path])
        #expect(ItemIndex.current(at: location) != nil)
    }
}

import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// `find`: which items under a folder match every filter given, and where in them the
/// text was found. A hit in a marker or a transcript carries its time, so that the moment
/// can be played (`play PATH --seek TIME`).
package struct SearchQuery: Sendable {
    /// A shell pattern on the name (`--name`), and one matched in either case (`--iname`).
    package var namePattern: String?
    package var caselessNamePattern: String?
    package var kind: ItemKind?
    /// Every one of these tags.
    package var tags: [String] = []
    /// Every word, folded (`TextFolding`), somewhere in the name, the note, a marker label or
    /// the transcript.
    package var words: [String] = [] {
        didSet { wordBytes = words.map { Array($0.utf8) } }
    }
    /// `words` as UTF-8, as they are compared with every item.
    private(set) var wordBytes: [[UInt8]] = []
    /// Created at or after / before these times.
    package var after: Timestamp?
    package var before: Timestamp?
    /// Recordings longer / shorter than these many seconds (folders never match).
    package var longer: Double?
    package var shorter: Double?
    /// Whether note hits carry a snippet (JSON and a terminal show them; a pipe does not).
    package var snippets = true

    package init() {}

    /// `--text WORDS`: split on whitespace and folded.
    package mutating func setText(_ text: String) {
        words = text.split(whereSeparator: { $0.isWhitespace }).map { TextFolding.fold(String($0)) }.filter {
            !$0.isEmpty
        }
    }

    package var hasTextFilters: Bool { !words.isEmpty }
}

/// Where a text search matched.
package enum SearchField: Equatable, Sendable {
    case name
    case note(snippet: String)
    case marker(Marker, index: Int, seconds: Double)
    /// The first segment of the transcript where a word occurs: when the word (or, without
    /// word times, the segment) starts, nil when the engine gave no times.
    case transcript(seconds: Double?, snippet: String)
}

package struct SearchHit: Equatable, Sendable {
    package var item: Item
    /// Empty when no text was searched for.
    package var fields: [SearchField]

    /// The moment to play: the first marker that matched, else where the transcript matched,
    /// else nil.
    package var time: Double? {
        for field in fields { if case .marker(_, _, let seconds) = field { return seconds } }
        for field in fields { if case .transcript(let seconds?, _) = field { return seconds } }
        return nil
    }
}

extension Document {
    /// The items under `top` (not `top` itself) that match `query`, parents before
    /// children in name order, as `find` lists them.
    /// With `transcripts`, a recording's transcript is searched too (through its index).
    package func search(_ query: SearchQuery, under top: ItemID, transcripts: TranscriptFiles? = nil) -> [SearchHit] {
        var hits: [SearchHit] = []
        let indexes = query.hasTextFilters ? transcripts.map(TranscriptFiles.IndexReader.init) : nil
        forEachInSubtree(of: top) { item in
            guard item.id != top, let hit = query.match(item, transcripts: transcripts, indexes: indexes) else {
                return
            }
            hits.append(hit)
        }
        return hits
    }
}

extension SearchQuery {
    /// The hit for `item`, or nil if any filter rejects it. Cheap filters first.
    package func match(_ item: Item, transcripts: TranscriptFiles? = nil) -> SearchHit? {
        match(
            item, transcripts: transcripts,
            indexes: hasTextFilters ? transcripts.map(TranscriptFiles.IndexReader.init) : nil)
    }

    /// `folded`, when given, is the item's text as `TextFolding.foldedFields` makes it (the
    /// index holds it): it is not folded again.
    func match(
        _ item: Item, folded: UnsafeBufferPointer<UInt8>? = nil, transcripts: TranscriptFiles?,
        indexes: TranscriptFiles.IndexReader?
    ) -> SearchHit? {
        guard
            admits(
                kind: item.kind, created: item.created, duration: item.recording?.duration,
                hasTag: item.annotations.tags.contains, name: { item.name })
        else { return nil }
        guard !words.isEmpty else { return SearchHit(item: item, fields: []) }
        if let folded { return textHit(item, folded: folded, transcripts: transcripts, indexes: indexes) }
        return TextFolding.foldedFields(of: item).withUnsafeBufferPointer {
            textHit(item, folded: $0, transcripts: transcripts, indexes: indexes)
        }
    }

    /// Every filter but the text, cheap ones first: on an item of the document, or of
    /// `find`'s index (`ItemIndex`). `duration` is nil for a folder.
    func admits(kind: ItemKind, created: Timestamp, duration: Double?, hasTag: (String) -> Bool, name: () -> String)
        -> Bool
    {
        if let wanted = self.kind, kind != wanted { return false }
        if let after, created < after { return false }
        if let before, !(created < before) { return false }
        if longer != nil || shorter != nil {
            guard let duration else { return false }
            if let longer, !(duration > longer) { return false }
            if let shorter, !(duration < shorter) { return false }
        }
        for tag in tags where !hasTag(tag) { return false }
        if namePattern == nil && caselessNamePattern == nil { return true }
        let name = name()
        if let namePattern, fnmatch(namePattern, name, 0) != 0 { return false }
        // Lower-cased on both sides: fnmatch's FNM_CASEFOLD knows only ASCII letters.
        if let caselessNamePattern, fnmatch(caselessNamePattern.lowercased(), name.lowercased(), 0) != 0 {
            return false
        }
        return true
    }

    /// Every word must occur in some field; the fields where any word occurs are reported.
    /// Folded text is compared as UTF-8 bytes (memmem): folding has already made equal
    /// what should match, and a UTF-8 substring is a whole-scalar substring. `folded` is
    /// the item's fields, each followed by a NUL (`TextFolding.foldedFields`): each word is
    /// looked for once through all of them, and where it occurs says which field holds it
    /// (no word holds a NUL). A transcript is searched through its index (a folder has none).
    private func textHit(
        _ item: Item, folded: UnsafeBufferPointer<UInt8>, transcripts: TranscriptFiles?,
        indexes: TranscriptFiles.IndexReader?
    ) -> SearchHit? {
        let spoken =
            item.recording == nil
            ? nil : indexes?.indexBytes(of: item.id).map { TranscriptIndexSearch(index: $0, words: self.words) }
        let markers = item.annotations.markers
        // Field 0 is the name, 1 the note, 2 + k marker k's label.
        var matched = Array(repeating: false, count: 2 + markers.count)
        // The first word (in the query's order) found in the note, and where in it.
        var noteWord: (word: Int, offset: Int)?
        for (k, word) in wordBytes.enumerated() {
            var found = false
            var field = 0
            var fieldStart = 0
            var fieldEnd = TextFolding.fieldEnd(in: folded, from: 0)
            TextFolding.occurrences(of: word, in: folded, from: 0, to: folded.count) { offset in
                while offset > fieldEnd {
                    field += 1
                    fieldStart = fieldEnd + 1
                    fieldEnd = TextFolding.fieldEnd(in: folded, from: fieldStart)
                }
                found = true
                if field < matched.count { matched[field] = true }
                if field == 1 && noteWord == nil { noteWord = (k, offset - fieldStart) }
                return fieldEnd + 1
            }
            if !found && spoken?.found[k] != true { return nil }
        }
        var fields: [SearchField] = []
        if matched[0] { fields.append(.name) }
        if let noteWord {
            let snippet =
                snippets
                ? TextFolding.snippet(of: item.annotations.note, around: words[noteWord.word], at: noteWord.offset)
                : ""
            fields.append(.note(snippet: snippet))
        }
        let rate = item.recording?.sampleRate ?? 1
        for (index, marker) in markers.enumerated() where matched[2 + index] {
            fields.append(.marker(marker, index: index + 1, seconds: marker.seconds(sampleRate: rate)))
        }
        if let first = spoken?.first {
            // The word's own time, from the transcript itself (read only for a hit).
            var seconds = first.seconds
            if let offset = first.offset, let transcript = try? transcripts?.read(item.id),
                first.line < transcript.segments.count,
                let start = TranscriptFiles.wordStart(in: transcript.segments[first.line], atByte: offset)
            {
                seconds = start
            }
            fields.append(.transcript(seconds: seconds, snippet: first.snippet))
        }
        return SearchHit(item: item, fields: fields)
    }
}

/// Words looked for in a transcript's search index (`TranscriptFiles.index`), line by
/// line, on bytes: an ASCII line is lower-cased in place, any other is folded as text.
struct TranscriptIndexSearch {
    /// Which of the words occur somewhere.
    var found: [Bool]
    /// The first line where any does (from 0, a segment's index): when it starts, the
    /// match's byte offset in its text (nil when the line is not ASCII), and a snippet.
    var first: (line: Int, offset: Int?, seconds: Double?, snippet: String)?

    init(index: [UInt8], words: [String]) {
        found = Array(repeating: false, count: words.count)
        let needles = words.map { Array($0.utf8) }
        // Most files hold none of the words: an ASCII file is lower-cased whole and looked
        // through once (times included, so this can only say yes too often), and only a
        // file where some word occurs is read line by line.
        if !Self.mayContain(needles, index) { return }
        var folded: [UInt8] = []
        Self.forEachLine(of: index) { lineNumber, start, text in
            if first != nil && !found.contains(false) { return false }
            var ascii = true
            folded.removeAll(keepingCapacity: true)
            for b in text {
                if b >= 0x80 {
                    ascii = false
                    break
                }
                folded.append(b >= 0x41 && b <= 0x5A ? b + 32 : b)
            }
            if !ascii { folded = TextFolding.foldedUTF8(String(decoding: text, as: UTF8.self)) }
            var hitAt: Int?
            for (k, needle) in needles.enumerated() {
                guard let at = TextFolding.firstOffset(of: needle, in: folded) else { continue }
                found[k] = true
                if hitAt == nil { hitAt = at }
            }
            guard first == nil, let hitAt else { return true }
            let line = String(decoding: text, as: UTF8.self)
            let seconds = Double(String(decoding: start, as: UTF8.self))
            let word = words[needles.firstIndex { TextFolding.firstOffset(of: $0, in: folded) != nil }!]
            first = (lineNumber, ascii ? hitAt : nil, seconds, TextFolding.snippet(of: line, around: word))
            return true
        }
    }

    /// Calls `body` with each line of a transcript's search index (`START<TAB>TEXT`) that
    /// has a tab: its number from 0 (a segment's index; lines without a tab are counted
    /// too), its start and its text, until `body` returns false. `ItemIndex` folds
    /// transcripts through the same lines.
    static func forEachLine(
        of index: [UInt8],
        _ body: (_ number: Int, _ start: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        index.withUnsafeBufferPointer { bytes in
            var lineStart = 0
            var lineNumber = -1
            while lineStart < bytes.count {
                lineNumber += 1
                var lineEnd = lineStart
                while lineEnd < bytes.count && bytes[lineEnd] != 0x0A { lineEnd += 1 }
                defer { lineStart = lineEnd + 1 }
                var tab = lineStart
                while tab < lineEnd && bytes[tab] != 0x09 { tab += 1 }
                guard tab < lineEnd else { continue }
                guard
                    body(
                        lineNumber, UnsafeBufferPointer(rebasing: bytes[lineStart..<tab]),
                        UnsafeBufferPointer(rebasing: bytes[(tab + 1)..<lineEnd]))
                else { return }
            }
        }
    }

    /// False only when the index is ASCII and, lower-cased, holds none of the needles.
    static func mayContain(_ needles: [[UInt8]], _ index: [UInt8]) -> Bool {
        var folded = index
        let ascii = folded.withUnsafeMutableBufferPointer { bytes -> Bool in
            var any: UInt8 = 0
            for i in bytes.indices {
                let b = bytes[i]
                any |= b
                bytes[i] = b &- 0x41 < 26 ? b | 0x20 : b
            }
            return any < 0x80
        }
        guard ascii else { return true }
        return needles.contains { TextFolding.contains(folded, $0) }
    }
}

/// Text as search compares it: lower case, without diacritics (é → e, ß → ss, Å → a), so
/// that what a person types finds what was written with or without accents. The standard
/// library has no Unicode decomposition, so precomposed Latin letters are mapped by table
/// (Latin-1 Supplement and Latin Extended-A, which cover the languages with accents written
/// in Latin script), and combining marks (U+0300–U+036F) are dropped.
package enum TextFolding {
    package static func fold(_ text: String) -> String {
        String(decoding: foldedUTF8(text), as: UTF8.self)
    }

    /// `fold` as UTF-8 bytes, without making a String on the way: what search compares.
    package static func foldedUTF8(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            // Straight off the UTF-8: ASCII, most of any text, is only lower-cased, and the
            // few other scalars are decoded here rather than through String's iterator.
            var i = 0
            while i < bytes.count {
                var end = i
                while end < bytes.count && bytes[end] < 0x80 { end += 1 }
                if end > i {
                    // A run of ASCII is copied whole and lower-cased in place.
                    let from = out.count
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<end]))
                    out.withUnsafeMutableBufferPointer { copied in
                        for k in from..<copied.count where copied[k] &- 0x41 < 26 { copied[k] |= 0x20 }
                    }
                    i = end
                    continue
                }
                let lead = bytes[i]
                let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                var value = UInt32(lead) & (0x7F >> length)
                for k in 1..<length { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
                i += length
                append(Unicode.Scalar(value) ?? "\u{FFFD}", to: &out)
            }
            return out
        }
    }

    /// Folds `scalars` onto `out` (UTF-8).
    static func append(_ scalars: some Sequence<Unicode.Scalar>, to out: inout [UInt8]) {
        for scalar in scalars { append(scalar, to: &out) }
    }

    @inline(__always)
    private static func append(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        let value = scalar.value
        if value < 0x80 {
            out.append(UInt8(value) + ((0x41...0x5A).contains(value) ? 32 : 0))
        } else if (0x300...0x36F).contains(value) {
            return
        } else if let base = latinBase[value] {
            out.append(contentsOf: base.utf8)
        } else {
            out.append(contentsOf: scalar.properties.lowercaseMapping.utf8)
        }
    }

    /// Whether `needle` occurs in `haystack`, byte for byte.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        firstOffset(of: needle, in: haystack) != nil
    }

    static func firstOffset(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty else { return 0 }
        var first: Int?
        occurrences(of: needle, in: haystack, from: 0, to: haystack.count) { offset in
            first = offset
            return .max
        }
        return first
    }

    /// Calls `body` with each place `word` occurs in `haystack[from..<to]`; `body` returns
    /// where to look on from. glibc's `memmem` (`System.firstOccurrence`) is a two-way
    /// search, far faster than a byte loop on megabytes.
    static func occurrences(of word: [UInt8], in haystack: [UInt8], from: Int, to: Int, _ body: (Int) -> Int) {
        haystack.withUnsafeBufferPointer { occurrences(of: word, in: $0, from: from, to: to, body) }
    }

    static func occurrences(
        of word: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, from: Int, to: Int, _ body: (Int) -> Int
    ) {
        guard !word.isEmpty, let h = haystack.baseAddress else { return }
        word.withUnsafeBytes { w in
            var at = from
            while to - at >= w.count {
                guard let hit = System.firstOccurrence(of: w.baseAddress!, count: w.count, in: h + at, count: to - at)
                else { return }
                at = max(body(UnsafeRawPointer(h).distance(to: hit)), at + 1)
            }
        }
    }

    /// An item's name, note and marker labels, folded, each followed by a NUL (which no
    /// word holds, so a word found in them is found in one field): what search compares,
    /// and what `find`'s index keeps of each item.
    static func foldedFields(of item: Item) -> [UInt8] {
        var out: [UInt8] = []
        appendFoldedFields(of: item, to: &out)
        return out
    }

    static func appendFoldedFields(of item: Item, to out: inout [UInt8]) {
        out.append(contentsOf: foldedUTF8(item.name))
        out.append(0)
        out.append(contentsOf: foldedUTF8(item.annotations.note))
        out.append(0)
        for marker in item.annotations.markers {
            out.append(contentsOf: foldedUTF8(marker.label))
            out.append(0)
        }
    }

    /// Where the field of `foldedFields` that starts at `start` ends: its NUL.
    static func fieldEnd(in fields: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard start < fields.count, let base = fields.baseAddress,
            let nul = memchr(base + start, 0, fields.count - start)
        else { return fields.count }
        return UnsafeRawPointer(base).distance(to: nul)
    }

    /// About 60 characters of `text` around the first place `word` (folded) occurs, on one line.
    /// `at`, when known, is where that is in `text` folded (search has found it).
    package static func snippet(of text: String, around word: String, at foldedOffset: Int? = nil, width: Int = 60)
        -> String
    {
        var text = text
        if let piece = text.withUTF8({ simpleSnippet(of: $0, around: word, at: foldedOffset, width: width) }) {
            return piece
        }
        return characterSnippet(of: text, around: word, width: width)
    }

    /// `snippet` of any text, character by character.
    static func characterSnippet(of text: String, around word: String, width: Int) -> String {
        let characters = Array(text)
        // The folded text, and for each of its bytes the character it came from.
        var folded: [UInt8] = []
        var owner: [Int] = []
        folded.reserveCapacity(text.utf8.count)
        owner.reserveCapacity(text.utf8.count)
        for (i, character) in characters.enumerated() {
            append(character.unicodeScalars, to: &folded)
            owner.append(contentsOf: repeatElement(i, count: folded.count - owner.count))
        }
        let start = firstOffset(of: Array(word.utf8), in: folded).map { owner[$0] } ?? 0
        let from = max(0, start - width / 3)
        let to = min(characters.count, from + width)
        var piece = String(characters[from..<to]).map { $0.isNewline || $0 == "\t" ? " " : $0 }.map(String.init)
            .joined()
        if from > 0 { piece = "…" + piece }
        if to < characters.count { piece += "…" }
        return piece
    }

    /// `snippet` of text whose every scalar lies below U+0300 (ASCII and the Latin blocks up
    /// to the combining marks: almost every note), worked on its UTF-8 bytes without making a
    /// `Character` (which cost most of `find --json`), for the same result: there each character is one
    /// scalar (no scalar below U+0300 extends another), except CR LF, which is one. nil for
    /// any other text (`Character` does the work then). Two walks over the bytes, nothing
    /// held per character: one folds up to the match (when `foldedOffset` does not say where
    /// it is) to find its character, one copies the characters around it.
    static func simpleSnippet(
        of text: UnsafeBufferPointer<UInt8>, around word: String, at foldedOffset: Int? = nil, width: Int
    ) -> String? {
        // A lead byte from 0xCC up starts a scalar from U+0300 up; eight bytes at a time
        // while all are ASCII (most of a note).
        var j = 0
        if let base = text.baseAddress {
            while j + 8 <= text.count {
                let word = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: j, as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                j += 8
            }
        }
        for b in UnsafeBufferPointer(rebasing: text[j...]) where b >= 0xCC { return nil }
        let offset =
            foldedOffset ?? firstOffset(of: Array(word.utf8), in: foldedUTF8(String(decoding: text, as: UTF8.self)))
        // One past the last byte of the character that starts at `i`.
        func characterEnd(_ i: Int) -> Int {
            let b = text[i]
            if b >= 0x80 { return i + 2 }
            return b == 0x0D && i + 1 < text.count && text[i + 1] == 0x0A ? i + 2 : i + 1
        }
        // The character that holds the folded byte at `offset` (0 when the word is not there),
        // and where it starts.
        var start = 0
        var startByte = 0
        if let offset {
            var folded = 0
            var i = 0
            let lengths = foldedLengths
            while i < text.count {
                // Eight ASCII bytes without a CR wholly before the word: eight characters
                // that fold to a byte each (most of a note).
                while i + 8 <= text.count, folded + 8 <= offset {
                    let word = UnsafeRawPointer(text.baseAddress!).loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    let cr = word ^ 0x0D0D_0D0D_0D0D_0D0D
                    let hasCR = (cr &- 0x0101_0101_0101_0101) & ~cr & 0x8080_8080_8080_8080 != 0
                    if word & 0x8080_8080_8080_8080 != 0 || hasCR { break }
                    folded += 8
                    start += 8
                    i += 8
                }
                guard i < text.count else { break }
                let end = characterEnd(i)
                if text[i] < 0x80 {
                    folded += end - i
                } else {
                    folded += Int(lengths[Int(UInt32(text[i] & 0x1F) << 6 | UInt32(text[i + 1] & 0x3F)) - 0x80])
                }
                if folded > offset { break }
                start += 1
                i = end
            }
            if i >= text.count { start = 0 } else { startByte = i }
        }
        let from = max(0, start - width / 3)
        // Back from the word's character to the snippet's first: a continuation byte belongs
        // to the character before it, and an LF after a CR is one character with it.
        var i = startByte
        for _ in from..<start {
            i -= 1
            if text[i] & 0xC0 == 0x80 || (text[i] == 0x0A && i > 0 && text[i - 1] == 0x0D) { i -= 1 }
        }
        let first = i
        var taken = 0
        while taken < width && i < text.count {
            i = characterEnd(i)
            taken += 1
        }
        let last = i
        let ellipsis = "…".utf8
        return String(unsafeUninitializedCapacity: last - first + 2 * ellipsis.count) { piece in
            var n = 0
            if from > 0 {
                for b in ellipsis {
                    piece[n] = b
                    n += 1
                }
            }
            var k = first
            while k < last {
                // Printable ASCII, most of it: one byte, copied as it is.
                let b = text[k]
                if b >= 0x20 && b < 0x80 {
                    piece[n] = b
                    n += 1
                    k += 1
                    continue
                }
                let end = characterEnd(k)
                // A line break (LF, VT, FF, CR, CR LF, NEL) or a tab is a space.
                let isBreak =
                    end - k == 1
                    ? b == 0x09 || (0x0A...0x0D).contains(b) : b == 0x0D || (b == 0xC2 && text[k + 1] == 0x85)
                if isBreak {
                    piece[n] = 0x20
                    n += 1
                } else {
                    for j in k..<end {
                        piece[n] = text[j]
                        n += 1
                    }
                }
                k = end
            }
            if last < text.count {
                for b in ellipsis {
                    piece[n] = b
                    n += 1
                }
            }
            return n
        }
    }

    /// How many bytes each scalar from U+0080 to U+02FF folds to (`append`), at its value
    /// less 0x80: what `simpleSnippet` counts for a two-byte character, without folding it.
    static let foldedLengths: [UInt8] = (0x80..<0x300).map { value in
        var out: [UInt8] = []
        append(Unicode.Scalar(UInt32(value))!, to: &out)
        return UInt8(out.count)
    }

    /// Precomposed Latin letters and their folded base.
    static let latinBase: [UInt32: String] = {
        var table: [UInt32: String] = [:]
        let groups: [(String, String)] = [
            ("ÀÁÂÃÄÅàáâãäåĀāĂăĄą", "a"), ("ÇçĆćĈĉĊċČč", "c"), ("ĎďĐđÐð", "d"),
            ("ÈÉÊËèéêëĒēĔĕĖėĘęĚě", "e"), ("ĜĝĞğĠġĢģ", "g"), ("ĤĥĦħ", "h"),
            ("ÌÍÎÏìíîïĨĩĪīĬĭĮįİı", "i"), ("Ĵĵ", "j"), ("Ķķĸ", "k"), ("ĹĺĻļĽľĿŀŁł", "l"),
            ("ÑñŃńŅņŇňŉŊŋ", "n"), ("ÒÓÔÕÖØòóôõöøŌōŎŏŐő", "o"), ("ŔŕŖŗŘř", "r"),
            ("ŚśŜŝŞşŠšſ", "s"), ("ŢţŤťŦŧ", "t"), ("ÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲų", "u"),
            ("Ŵŵ", "w"), ("ÝýÿŶŷŸ", "y"), ("ŹźŻżŽž", "z"),
            ("Ææ", "ae"), ("Œœ", "oe"), ("ß", "ss"), ("Þþ", "th"), ("Ĳĳ", "ij"),
        ]
        for (letters, base) in groups {
            for scalar in letters.unicodeScalars { table[scalar.value] = base }
        }
        return table
    }()
}

extension Document {
    /// Every tag on an item outside the trash, with how many items carry it, by tag.
    package func tagCounts() -> [(tag: String, count: Int)] {
        var counts: [String: Int] = [:]
        for item in items.values {
            for tag in item.annotations.tags { counts[tag, default: 0] += 1 }
        }
        return counts.sorted { $0.key < $1.key }.map { (tag: $0.key, count: $0.value) }
    }
}

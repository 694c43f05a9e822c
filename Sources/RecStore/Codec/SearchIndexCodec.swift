import RecSystem
import RecValues

#if canImport(Glibc)
    import Glibc
#endif

/// The on-disk layout of `find`'s two index files (`ItemIndex`, `TranscriptIndex`):
/// little-endian 64-bit words, then the byte runs they point into.
///
///     magic (8 bytes: "RNFIND" + kind + layout version)
///     source: state (0 untrusted, 1 present, 2 absent, 3 recent), device, inode, size,
///             mtime s, ns
///     items:        store.json's content hash, count, strings length, text length,
///                   each item: id high, low, flags (1 folder), created ms, duration bits,
///                   parent, subtree end, store offset, store length, then
///                   name, path, tags and text each as offset and length;
///                   the strings, the text
///     transcripts:  count, text length, each: id high, low, its file's identity (as the
///                   source), offset, length; the text
///
/// A file is read whole and checked through: a wrong magic, a length that does not add up
/// or a range out of bounds makes it unreadable, and `find` makes it again. A decoded index
/// points into the file's bytes (its ranges are the file's); `encode` takes one as `build`
/// makes it, each run in an array of its own.
enum SearchIndexCodec {
    // 2: items in natural name order (`NameOrder`); an index of 1 lists them by code point,
    // and is made again rather than trusted. 3: store.json's content hash.
    private static let itemsMagic = Array("RNFINDI3".utf8)
    private static let transcriptsMagic = Array("RNFINDT2".utf8)

    /// The source an index file names, from its first words alone (either kind of file);
    /// nil when it cannot be read.
    static func source(of path: String) -> SourceIdentity? {
        FileSystem.withOpened(path, O_RDONLY) { fd -> SourceIdentity? in
            var header = [UInt8](repeating: 0, count: 8 + 48)
            guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress!, $0.count, 0) }) == header.count else {
                return nil
            }
            return source(in: header)
        } ?? nil
    }

    /// The source named by an index file's bytes (or its first 56 of them).
    static func source(in bytes: [UInt8]) -> SourceIdentity? {
        var r = WordReader(bytes)
        guard r.magic(itemsMagic) || r.magic(transcriptsMagic) else { return nil }
        return r.source()
    }

    static func encode(_ index: ItemIndex) -> [UInt8] {
        var w = Words(capacity: 128 + index.items.count * 136 + index.strings.count + index.text.count)
        w.bytes += itemsMagic
        w.source(index.source)
        w.word(index.contentHash)
        w.int(index.items.count)
        w.int(index.strings.count)
        w.int(index.text.count)
        for item in index.items {
            w.word(item.id.high)
            w.word(item.id.low)
            w.word(item.isFolder ? 1 : 0)
            w.word(UInt64(bitPattern: item.created.millisecondsSinceEpoch))
            w.word(item.duration.bitPattern)
            w.int(item.parent)
            w.int(item.subtreeEnd)
            for range in [item.storeRange, item.name, item.path, item.tags, item.text] {
                w.int(range.lowerBound)
                w.int(range.count)
            }
        }
        w.bytes += index.strings
        w.bytes += index.text
        return w.bytes
    }

    static func decodeItems(_ bytes: [UInt8]) -> ItemIndex? {
        var r = WordReader(bytes)
        guard r.magic(itemsMagic), let source = r.source(), let contentHash = r.word(), let count = r.count(),
            let stringsLength = r.count(),
            let textLength = r.count(), count <= bytes.count / 136
        else { return nil }
        var items: [IndexedItem] = []
        items.reserveCapacity(count)
        for position in 0..<count {
            guard let high = r.word(), let low = r.word(), let flags = r.word(), let created = r.word(),
                let duration = r.word(), let parent = r.signed(), let subtreeEnd = r.count(),
                let storeRange = r.range(within: Int.max), let name = r.range(within: stringsLength),
                let path = r.range(within: stringsLength), let tags = r.range(within: stringsLength),
                let text = r.range(within: textLength),
                parent < position, parent >= -1, (position == 0) == (parent == -1),
                subtreeEnd > position, subtreeEnd <= count
            else { return nil }
            items.append(
                IndexedItem(
                    id: ItemID(high: high, low: low), isFolder: flags & 1 != 0,
                    created: Timestamp(millisecondsSinceEpoch: Int64(bitPattern: created)),
                    duration: Double(bitPattern: duration), parent: parent, subtreeEnd: subtreeEnd,
                    storeRange: storeRange, name: name, path: path, tags: tags, text: text))
        }
        // The runs are not copied out of the file: its ranges are moved to where they lie in it.
        let stringsBase = r.at
        guard !items.isEmpty, r.skip(stringsLength) else { return nil }
        let textBase = r.at
        guard r.skip(textLength), r.isAtEnd else { return nil }
        for k in items.indices {
            items[k].name = items[k].name.shifted(by: stringsBase)
            items[k].path = items[k].path.shifted(by: stringsBase)
            items[k].tags = items[k].tags.shifted(by: stringsBase)
            items[k].text = items[k].text.shifted(by: textBase)
            // Search walks texts in order, and tags up to their NULs.
            if k > 0 && items[k].text.lowerBound < items[k - 1].text.upperBound { return nil }
            if !items[k].tags.isEmpty && bytes[items[k].tags.upperBound - 1] != 0 { return nil }
        }
        return ItemIndex(source: source, contentHash: contentHash, items: items, strings: bytes, text: bytes)
    }

    static func encode(_ index: TranscriptIndex) -> [UInt8] {
        var w = Words(capacity: 128 + index.entries.count * 80 + index.text.count)
        w.bytes += transcriptsMagic
        w.source(index.source)
        w.int(index.entries.count)
        w.int(index.text.count)
        for entry in index.entries {
            w.word(entry.id.high)
            w.word(entry.id.low)
            w.source(entry.file)
            w.int(entry.text.lowerBound)
            w.int(entry.text.count)
        }
        w.bytes += index.text
        return w.bytes
    }

    static func decodeTranscripts(_ bytes: [UInt8]) -> TranscriptIndex? {
        var r = WordReader(bytes)
        guard r.magic(transcriptsMagic), let source = r.source(), let count = r.count(), let textLength = r.count(),
            count <= bytes.count / 80
        else { return nil }
        var entries: [(id: ItemID, file: SourceIdentity, text: Range<Int>)] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            guard let high = r.word(), let low = r.word(), let file = r.source(),
                let text = r.range(within: textLength),
                text.lowerBound >= (entries.last?.text.upperBound ?? 0)
            else { return nil }
            entries.append((ItemID(high: high, low: low), file, text))
        }
        let textBase = r.at
        guard r.skip(textLength), r.isAtEnd else { return nil }
        for k in entries.indices { entries[k].text = entries[k].text.shifted(by: textBase) }
        return TranscriptIndex(source: source, entries: entries, text: bytes)
    }
}

struct Words {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func word(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func int(_ value: Int) { word(UInt64(bitPattern: Int64(value))) }

    mutating func source(_ source: SourceIdentity) {
        switch source {
        case .untrusted: for _ in 0..<6 { word(0) }
        case .absent:
            word(2)
            for _ in 0..<5 { word(0) }
        case .present(let identity), .recent(let identity):
            if case .present = source { word(1) } else { word(3) }
            word(identity.device)
            word(identity.inode)
            int(Int(identity.size))
            int(identity.modifiedSeconds)
            int(identity.modifiedNanoseconds)
        }
    }
}

struct WordReader {
    let bytes: [UInt8]
    private(set) var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { at == bytes.count }

    mutating func magic(_ expected: [UInt8]) -> Bool {
        guard bytes.count >= expected.count, bytes[0..<expected.count].elementsEqual(expected) else { return false }
        at = expected.count
        return true
    }

    mutating func word() -> UInt64? {
        guard bytes.count - at >= 8 else { return nil }
        var value: UInt64 = 0
        for k in (0..<8).reversed() { value = value << 8 | UInt64(bytes[at + k]) }
        at += 8
        return value
    }

    mutating func signed() -> Int? { word().map { Int(Int64(bitPattern: $0)) } }

    /// A count or length: not negative.
    mutating func count() -> Int? {
        guard let value = signed(), value >= 0 else { return nil }
        return value
    }

    /// An offset and a length inside `0..<limit`.
    mutating func range(within limit: Int) -> Range<Int>? {
        guard let start = count(), let length = count(), start <= limit, length <= limit - start else { return nil }
        return start..<(start + length)
    }

    mutating func skip(_ count: Int) -> Bool {
        guard bytes.count - at >= count else { return false }
        at += count
        return true
    }

    mutating func source() -> SourceIdentity? {
        guard let state = word(), let device = word(), let inode = word(), let size = signed(),
            let seconds = signed(), let nanoseconds = signed()
        else { return nil }
        switch state {
        case 0: return .untrusted
        case 1:
            return .present(
                FileIdentity(
                    device: device, inode: inode, size: Int64(size),
                    modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds))
        case 2: return .absent
        case 3:
            return .recent(
                FileIdentity(
                    device: device, inode: inode, size: Int64(size),
                    modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds))
        default: return nil
        }
    }
}

extension Range<Int> {
    func shifted(by offset: Int) -> Range<Int> { (lowerBound + offset)..<(upperBound + offset) }
}

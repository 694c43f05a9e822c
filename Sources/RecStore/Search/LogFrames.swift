/// The framing of the logs beside `cache/`'s derived files (`ItemIndexLog` for find's
/// index, `StoreTableLog` for the reads' table): records appended one `write` each, so that
/// one cut short by a crash, or damaged, is known and the whole log is not trusted.
///
///     each record: magic (8 bytes), payload length, payload's `ContentHash`, the payload
enum LogFrames {
    /// `payload` framed as one record of the log whose records start with `magic`.
    static func frame(_ payload: [UInt8], magic: [UInt8]) -> [UInt8] {
        var framed = Words(capacity: 24 + payload.count)
        framed.bytes.append(contentsOf: magic)
        framed.int(payload.count)
        framed.word(ContentHash.of(payload))
        framed.bytes.append(contentsOf: payload)
        return framed.bytes
    }

    /// Every record's payload in `bytes`, nil when any one of them cannot be read whole.
    static func payloads(_ bytes: [UInt8], magic: [UInt8]) -> [[UInt8]]? {
        var payloads: [[UInt8]] = []
        var at = 0
        while at < bytes.count {
            guard bytes.count - at >= 24, bytes[at..<at + 8].elementsEqual(magic) else { return nil }
            var header = WordReader(Array(bytes[at + 8..<at + 24]))
            guard let length = header.count(), let sum = header.word(), length <= bytes.count - at - 24 else {
                return nil
            }
            let payload = Array(bytes[at + 24..<at + 24 + length])
            guard ContentHash.of(payload) == sum else { return nil }
            payloads.append(payload)
            at += 24 + length
        }
        return payloads
    }
}

extension LogFrames {
    /// Every record in `bytes`, each read from its payload by `read`, which must read it all;
    /// nil when any one of them cannot be read whole.
    static func records<Record>(_ bytes: [UInt8], magic: [UInt8], _ read: (inout WordReader) -> Record?) -> [Record]? {
        guard let payloads = payloads(bytes, magic: magic) else { return nil }
        var records: [Record] = []
        for payload in payloads {
            var reader = WordReader(payload)
            guard let record = read(&reader), reader.isAtEnd else { return nil }
            records.append(record)
        }
        return records
    }
}

/// Where a log's record stands in its chain, which each log writes first in its payload:
/// the file it was made from (`base`, with its hash) and the file it made (`made`).
extension Words {
    mutating func chainLink(base: SourceIdentity, baseHash: UInt64, made: SourceIdentity, madeHash: UInt64) {
        source(base)
        word(baseHash)
        source(made)
        word(madeHash)
    }
}

extension WordReader {
    mutating func chainLink() -> (base: SourceIdentity, baseHash: UInt64, made: SourceIdentity, madeHash: UInt64)? {
        guard let base = source(), let baseHash = word(), let made = source(), let madeHash = word() else { return nil }
        return (base, baseHash, made, madeHash)
    }
}

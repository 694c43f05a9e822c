import Testing

@testable import RecStore

/// What every log beside `cache/`'s files must hold to (`LogFrames`), for `SearchIndexTests`
/// and `StoreTableTests`: it reads back record for record; cut anywhere but between two
/// records, or with any one bit of any byte changed, it is not read at all.
enum LogChecks {
    static func expectFramed<Record: Equatable>(
        _ records: [Record], encode: (Record) -> [UInt8], decode: ([UInt8]) -> [Record]?,
        using random: inout some RandomNumberGenerator
    ) {
        let bytes = records.flatMap(encode)
        #expect(decode(bytes) == records)
        #expect(decode([]) == [])
        var ends = Set<Int>()
        var end = 0
        for record in records {
            end += encode(record).count
            ends.insert(end)
        }
        for cut in 1..<bytes.count where !ends.contains(cut) {
            #expect(decode(Array(bytes.prefix(cut))) == nil, "cut at \(cut)")
        }
        for at in bytes.indices {
            var damaged = bytes
            damaged[at] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            #expect(decode(damaged) == nil, "byte \(at) changed")
        }
    }

    /// A file's identity, any that could be.
    static func identity(using random: inout some RandomNumberGenerator) -> FileIdentity {
        FileIdentity(
            device: UInt64.random(in: 1...9, using: &random), inode: UInt64.random(in: 1...1 << 40, using: &random),
            size: Int64.random(in: 1...1 << 30, using: &random),
            modifiedSeconds: Int.random(in: 1...1 << 31, using: &random),
            modifiedNanoseconds: Int.random(in: 0..<1_000_000_000, using: &random))
    }
}

import Foundation
import RecValues
import Testing

@testable import RecStore

@Suite("Timestamp")
struct TimestampTests {
    @Test(
        "formats as ISO 8601 UTC with milliseconds",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (1_700_000_000_123, "2023-11-14T22:13:20.123Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (951_825_600_000, "2000-02-29T12:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        ])
    func format(ms: Int64, text: String) {
        let t = Timestamp(millisecondsSinceEpoch: ms)
        #expect(t.iso8601 == text)
        #expect(t.description == text)
        #expect(Timestamp(iso8601: text) == t)
    }

    @Test("agrees with Foundation's ISO 8601 formatter")
    func agreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let ms = Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)
            let t = Timestamp(millisecondsSinceEpoch: ms)
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            #expect(t.iso8601 == formatter.string(from: date), "\(ms)")
            #expect(Timestamp(iso8601: t.iso8601) == t)
        }
    }

    @Test(
        "parses offsets and the forms people type",
        arguments: [
            "2023-11-14T22:13:20.123Z",
            "2023-11-14T23:13:20.123+01:00",
            "2023-11-14T23:13:20.123+0100",
            "2023-11-15T03:43:20.123+05:30",
            "2023-11-14T17:13:20.123-05:00",
            "2023-11-14T22:13:20.123+00:00",
            "2023-11-14T22:13:20.123-00:00",
            "2023-11-14t22:13:20.123z",
            "2023-11-14 22:13:20.123Z",
            "2023-11-14T22:13:20.1239Z",
            "2023-11-14T21:13:20.123-01:00",
        ])
    func offsets(text: String) {
        #expect(Timestamp(iso8601: text) == Timestamp(millisecondsSinceEpoch: 1_700_000_000_123), "\(text)")
    }

    @Test("fractions and offsets across a day boundary")
    func fractions() {
        #expect(Timestamp(iso8601: "2023-11-14T22:13:20Z")?.millisecondsSinceEpoch == 1_700_000_000_000)
        #expect(Timestamp(iso8601: "2023-11-14T22:13:20.5Z")?.millisecondsSinceEpoch == 1_700_000_000_500)
        #expect(Timestamp(iso8601: "2023-11-14T22:13:20.05Z")?.millisecondsSinceEpoch == 1_700_000_000_050)
        #expect(Timestamp(iso8601: "2024-01-01T00:30:00+01:00") == Timestamp(iso8601: "2023-12-31T23:30:00Z"))
        #expect(Timestamp(iso8601: "2024-02-29T00:00:00Z") != nil)
    }

    @Test(
        "rejects what is not ISO 8601",
        arguments: [
            "", "2023", "2023-11-14", "2023-11-14T22:13:20", "2023-11-14T22:13Z", "2023-11-14T22:13:20.Z",
            "2023-13-01T00:00:00Z", "2023-00-01T00:00:00Z", "2023-02-29T00:00:00Z", "2023-04-31T00:00:00Z",
            "2023-11-14T24:00:00Z", "2023-11-14T22:60:00Z", "2023-11-14T22:13:20+24:00", "2023-11-14T22:13:20+01",
            "2023-11-14T22:13:20Zjunk", "2023-1-14T22:13:20Z", "2023-11-14X22:13:20Z", " 2023-11-14T22:13:20Z",
            "2023-11-14T22:13:20 Z", "yesterday",
        ])
    func rejects(text: String) {
        #expect(Timestamp(iso8601: text) == nil, "\(text)")
    }

    @Test("orders by time")
    func ordering() {
        #expect(Timestamp(iso8601: "2023-11-14T23:00:00+01:00")! < Timestamp(iso8601: "2023-11-14T22:30:00Z")!)
        #expect(Timestamp(millisecondsSinceEpoch: 1500).secondsSinceEpoch == 1.5)
    }
}

@Suite("ItemID")
struct ItemIDTests {
    @Test("parses either case and formats lowercase, as uuidgen does")
    func parseAndFormat() throws {
        let text = "3F2A1111-0000-4ABC-8DEF-0123456789AB"
        let id = try #require(ItemID(text))
        #expect(id.description == text.lowercased())
        #expect(ItemID(text.lowercased()) == id)
        #expect(id.high == 0x3F2A_1111_0000_4ABC)
        #expect(id.low == 0x8DEF_0123_4567_89AB)
        #expect(id.hexDigits == "3f2a111100004abc8def0123456789ab")
        #expect(ItemID.root.description == "00000000-0000-0000-0000-000000000000")
        #expect(ItemID("00000000-0000-0000-0000-000000000000") == .root)
    }

    @Test("a hex digit's value, either case, and 0x80 for every other byte")
    func hexDigits() {
        for byte in UInt8.min...UInt8.max {
            let value = Character(Unicode.Scalar(byte)).hexDigitValue
            #expect(hexLookup(byte) == value.map(UInt8.init) ?? 0x80, "\(byte)")
        }
    }

    @Test("agrees with Foundation's UUID")
    func agreesWithFoundation() throws {
        for _ in 0..<200 {
            let uuid = UUID()
            let id = try #require(ItemID(uuid.uuidString))
            #expect(id.description == uuid.uuidString.lowercased())
        }
    }

    @Test(
        "rejects what is not a canonical UUID",
        arguments: [
            "", "3f2a", "3f2a11110000-4abc-8def-0123456789ab", "3f2a1111-0000-4abc-8def-0123456789a",
            "3f2a1111-0000-4abc-8def-0123456789abc", "3f2a1111_0000_4abc_8def_0123456789ab",
            "3f2a1111-0000-4abc-8def-0123456789ag", "{3f2a1111-0000-4abc-8def-0123456789a}",
            "3f2a111-10000-4abc-8def-0123456789ab", " 3f2a1111-0000-4abc-8def-0123456789a",
        ])
    func rejects(text: String) {
        #expect(ItemID(text) == nil, "\(text)")
    }

    @Test("random UUIDs are version 4, RFC 4122 variant, and distinct")
    func random() throws {
        var seen = Set<ItemID>()
        for _ in 0..<200 {
            let id = ItemID.random()
            let text = id.description
            #expect(Array(text)[14] == "4")
            #expect("89ab".contains(Array(text)[19]))
            #expect(UUID(uuidString: text) != nil)
            #expect(ItemID(text) == id)
            seen.insert(id)
        }
        #expect(seen.count == 200)
    }

    @Test("orders as the text does, and matches nibble prefixes")
    func orderAndPrefix() throws {
        let ids = (0..<100).map { _ in ItemID.random() }
        #expect(ids.sorted().map(\.description) == ids.map(\.description).sorted())
        let id = try #require(ItemID("3f2a1111-0000-4abc-8def-0123456789ab"))
        #expect(id.hasPrefix(nibbles: [0x3, 0xF, 0x2, 0xA]))
        #expect(!id.hasPrefix(nibbles: [0x3, 0xF, 0x2, 0xB]))
        let all = id.hexDigits.utf8.map { hexValue($0)! }
        #expect(id.hasPrefix(nibbles: all))
        var wrongLast = all
        wrongLast[31] ^= 1
        #expect(!id.hasPrefix(nibbles: wrongLast))
        #expect(id.hasPrefix(nibbles: []))
    }
}
